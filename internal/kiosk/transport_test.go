package kiosk_test

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/app"
	"library/internal/kiosk"
	"library/internal/sip2"
	"library/internal/testkit/apitest"
)

// With SIP_TLS_CERT and SIP_TLS_KEY, kiosks connect over TLS on SIP_ADDR.
func TestKiosksConnectOverTLS(t *testing.T) {
	t.Parallel()
	certFile, keyFile, roots := selfSigned(t)
	cfg := app.Config{}
	cfg.SIP.Addr, cfg.SIP.TLSCert, cfg.SIP.TLSKey = "127.0.0.1:0", certFile, keyFile
	service := apitest.Launch(t, cfg, apitest.ServiceLogger(t, cfg))
	conn, err := tls.Dial("tcp", service.SIP, &tls.Config{RootCAs: roots, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12})
	require.NoError(t, err)
	defer func() { _ = conn.Close() }()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	_, err = conn.Write([]byte("9900302.00AY1AZFCA5\r"))
	require.NoError(t, err)
	answer, err := bufio.NewReader(conn).ReadString('\r')
	require.NoError(t, err)
	assert.Regexp(t, `^98.*AY1AZ[0-9A-F]{4}\r$`, answer)
}

// SIP_LINE_END ends the service's answers as the kiosk's own messages end.
func TestAnswersEndAsTheKioskAsks(t *testing.T) {
	t.Parallel()
	l := serveSessions(t, kiosk.Options{Framing: sip2.Framing{LineEnd: "\r\n"}})
	conn, err := net.Dial("tcp", l.addr)
	require.NoError(t, err)
	defer func() { _ = conn.Close() }()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	_, err = conn.Write([]byte("9900302.00\r\n"))
	require.NoError(t, err)
	answer, err := bufio.NewReader(conn).ReadString('\n')
	require.NoError(t, err)
	assert.Regexp(t, `^98[^\r\n]*\r\n$`, answer)
}

// selfSigned writes a fresh certificate for 127.0.0.1 and its key as PEM files, and returns
// them with a pool that trusts the certificate.
func selfSigned(t *testing.T) (certFile, keyFile string, roots *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "kiosk listener"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true, IsCA: true, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	keyDER, err := x509.MarshalECPrivateKey(key)
	require.NoError(t, err)
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	require.NoError(t, os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600))
	require.NoError(t, os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600))
	leaf, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	roots = x509.NewCertPool()
	roots.AddCert(leaf)
	return certFile, keyFile, roots
}

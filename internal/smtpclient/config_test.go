package smtpclient

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseSMTPURL(t *testing.T) {
	t.Parallel()
	const secret = "Top%2FSecret%40pw" // percent-encoded "Top/Secret@pw"
	const plainSecret = "Top/Secret@pw"
	const user = "smtpUser7%40corp" // percent-encoded "smtpUser7@corp"
	for _, tc := range []struct {
		url  string
		want Config
	}{
		{"smtp://mail.example.com", Config{Host: "mail.example.com", Port: 587, TLS: "starttls"}},
		{"smtp://mail.example.com?tls=none", Config{Host: "mail.example.com", Port: 25, TLS: "none"}},
		{"smtp://mail.example.com?tls=starttls", Config{Host: "mail.example.com", Port: 587, TLS: "starttls"}},
		{"smtp://mail.example.com?tls=tls", Config{Host: "mail.example.com", Port: 465, TLS: "tls"}},
		{"smtps://mail.example.com", Config{Host: "mail.example.com", Port: 465, TLS: "tls"}},
		{"smtp://localhost:1025?tls=none", Config{Host: "localhost", Port: 1025, TLS: "none"}},
		{"smtp://[::1]:2525/?tls=none", Config{Host: "::1", Port: 2525, TLS: "none"}},
		{"smtp://library@mail.example.com:2587", Config{Host: "mail.example.com", Port: 2587, TLS: "starttls", Username: "library"}},
		{"smtp://lib%40rary:" + secret + "@mail.example.com", Config{
			Host: "mail.example.com", Port: 587, TLS: "starttls", Username: "lib@rary", Password: plainSecret,
		}},
	} {
		got, err := ParseURL(tc.url)
		require.NoError(t, err, tc.url)
		require.Equal(t, tc.want, got, tc.url)
	}

	for _, tc := range []struct{ url, wantErr string }{
		{"", "scheme"},
		{"mail.example.com:25", "SMTP_URL"},
		{"http://" + user + ":" + secret + "@mail.example.com", "scheme"},
		{"smtp://" + user + ":" + secret + "@mail.example.com?tls=ssl", "tls must be"},
		{"smtp://" + user + ":" + secret + "@mail.example.com?tls=none&tls=tls", "more than once"},
		{"smtps://" + user + ":" + secret + "@mail.example.com?tls=starttls", "smtps"},
		{"smtp://" + user + ":" + secret + "@mail.example.com:0", "port"},
		{"smtp://" + user + ":" + secret + "@mail.example.com:65536", "port"},
		{"smtp://" + user + ":" + secret + "@mail.example.com:smtp", "SMTP_URL"},
		{"smtp://" + user + ":" + secret + "@mail.example.com?tls=none&timeout=5s", "unknown parameter \"timeout\""},
		{"smtp://" + user + ":" + secret + "@mail.example.com/inbox", "path"},
		{"smtp://" + user + ":" + secret + "@:25", "host"},
		{"smtp://:" + secret + "@mail.example.com", "user name"},
		{"smtp://" + user + ":" + secret + "@mail.example.com?tls=%zz", "query"},
		{"smtp://" + user + ":Top%zz@mail.example.com", "SMTP_URL"},
	} {
		_, err := ParseURL(tc.url)
		require.Error(t, err, tc.url)
		require.ErrorContains(t, err, tc.wantErr, tc.url)
		require.ErrorContains(t, err, "SMTP_URL", tc.url)
		for _, leak := range []string{secret, plainSecret, "Top", "mail.example.com", user, "smtpUser"} {
			require.NotContains(t, err.Error(), leak, tc.url)
		}
	}
}

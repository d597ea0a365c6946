package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestConfigDefaultsEnvironmentAndFlags(t *testing.T) {
	t.Parallel()
	none := func(string) string { return "" }
	c, err := parseConfig(nil, none, io.Discard)
	require.NoError(t, err)
	require.Equal(t, config{addr: "127.0.0.1:9096", audience: "library", clientID: "library-web"}, c)

	env := map[string]string{
		"DEVIDP_ADDR": "127.0.0.1:1", "DEVIDP_ISSUER": "http://idp.test", "DEVIDP_AUDIENCE": "books",
		"DEVIDP_USERS": "u.json", "DEVIDP_CLIENT_ID": "web", "DEVIDP_REDIRECT_URIS": "https://a.test/cb, https://b.test/cb",
	}
	c, err = parseConfig([]string{"-audience", "flagged"}, func(k string) string { return env[k] }, io.Discard)
	require.NoError(t, err)
	require.Equal(t, config{addr: "127.0.0.1:1", issuer: "http://idp.test", audience: "flagged", usersPath: "u.json",
		clientID: "web", redirectURIs: []string{"https://a.test/cb", "https://b.test/cb"}}, c)

	_, err = parseConfig([]string{"extra"}, none, io.Discard)
	require.Error(t, err)
}

func TestServeAnnouncesItselfAndStops(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	issuer := "http://" + ln.Addr().String()
	var logs bytes.Buffer
	ctx, cancel := context.WithCancel(t.Context())
	served := make(chan error, 1)
	cfg := config{issuer: issuer, audience: "library", clientID: "library-web", usersPath: "users.json"}
	go func() { served <- serve(ctx, ln, cfg, slog.New(slog.NewTextHandler(&logs, nil))) }()

	token := clientCredentials(t, issuer, "libby", "libby-password")
	require.True(t, strings.HasPrefix(token, "eyJ"), token)

	cancel()
	require.NoError(t, <-served)
	out := logs.String()
	require.Contains(t, out, "issuer="+issuer)
	require.Contains(t, out, "alice (no roles), libby (librarian), oscar (operator)")
	require.NotContains(t, out, "password")
	require.NotContains(t, out, token)
	require.Contains(t, out, "devidp: stopped")
}

// The built-in users are listed on the sign-in page, their passwords being public; users from a
// file are not.
func TestOnlyTheBuiltInUsersAreShown(t *testing.T) {
	t.Parallel()
	builtIn, err := providerOptions(config{issuer: "http://127.0.0.1:9096"}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	require.True(t, builtIn.ShowUsers)
	require.Len(t, builtIn.Users, 3)
	fromFile, err := providerOptions(config{issuer: "http://127.0.0.1:9096", usersPath: "users.json"}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	require.False(t, fromFile.ShowUsers)
	require.Len(t, fromFile.Users, 3)
}

// clientCredentials gets a token as the curl in the command's doc does.
func clientCredentials(t *testing.T, issuer, user, password string) string {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, issuer+"/oauth/token",
		strings.NewReader("grant_type=client_credentials"))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(user, password)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer func() { _ = resp.Body.Close() }()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var body struct {
		AccessToken string `json:"access_token"`
		TokenType   string `json:"token_type"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
	require.Equal(t, "Bearer", body.TokenType)
	return body.AccessToken
}

package smtptest_test

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
	"github.com/stretchr/testify/require"

	"library/internal/testkit/smtptest"
)

// n clients hold a transaction open at once; the server must have seen all n together.
func TestMaxConversations(t *testing.T) {
	t.Parallel()
	srv := smtptest.Start(t)
	const n = 5
	var opened, finished sync.WaitGroup
	release := make(chan struct{})
	opened.Add(n)
	for range n {
		finished.Go(func() {
			c, err := smtp.Dial(srv.Addr())
			if err != nil {
				opened.Done()
				t.Error(err)
				return
			}
			defer func() { _ = c.Close() }()
			err = c.Mail("a@example.com", nil)
			opened.Done()
			if err != nil {
				t.Error(err)
				return
			}
			<-release
			if err := c.Rcpt("b@example.com", nil); err != nil {
				t.Error(err)
				return
			}
			w, err := c.Data()
			if err == nil {
				_, err = io.Copy(w, strings.NewReader(sample))
			}
			if err == nil {
				err = w.Close()
			}
			if err != nil {
				t.Error(err)
			}
		})
	}
	opened.Wait()
	// Exact without waiting: the server counts a transaction before it answers MAIL FROM.
	require.Equal(t, n, srv.MaxConversations())
	require.Equal(t, n, srv.MaxConnections())
	close(release)
	finished.Wait()
	require.Len(t, srv.WaitForMessages(t, n, 5*time.Second), n)
	requireSettles(t, srv, 0, 0)
	require.Equal(t, n, srv.Connections())
}

// A transaction ends with the reply to DATA, with RSET, or with its connection.
func TestConversationEnds(t *testing.T) {
	t.Parallel()
	srv := smtptest.Start(t)
	c := dial(t, srv, "")
	require.NoError(t, send(t, c, "a@example.com", "b@example.com"))
	requireSettles(t, srv, 1, 0)
	require.NoError(t, send(t, c, "a@example.com", "b@example.com"))
	require.NoError(t, c.Mail("a@example.com", nil))
	require.NoError(t, c.Mail("a@example.com", nil), "a second MAIL FROM restarts the same transaction")
	require.NoError(t, c.Reset())
	require.Equal(t, 1, srv.MaxConversations(), "never two at once on one connection")
	requireSettles(t, srv, 1, 0)

	require.NoError(t, c.Mail("a@example.com", nil))
	requireSettles(t, srv, 1, 1)
	require.NoError(t, c.Close())
	requireSettles(t, srv, 0, 0)
}

func TestAttempts(t *testing.T) {
	t.Parallel()
	srv := smtptest.Start(t)
	srv.RefuseRecipient("deferred@example.com", 451, "Try later")
	srv.RefuseRecipient("gone@example.com", 550, "No such user")
	c := dial(t, srv, "")
	for range 3 {
		require.Error(t, send(t, c, "a@example.com", "Deferred@example.com"))
		require.NoError(t, c.Reset())
	}
	require.Error(t, send(t, c, "a@example.com", "gone@example.com"))
	require.NoError(t, c.Reset())
	require.NoError(t, send(t, c, "a@example.com", "ok@example.com"))

	require.Equal(t, 3, srv.Attempts("DEFERRED@example.com"))
	require.Equal(t, 1, srv.Attempts("gone@example.com"))
	require.Equal(t, 1, srv.Attempts("ok@example.com"))
	require.Equal(t, 0, srv.Attempts("never@example.com"))
}

// MaxConversationsTo counts, per domain, the transactions with a recipient there that were open
// at once: from RCPT TO (while it waits, too) to the end of the transaction, and not at all
// when that RCPT TO is refused.
func TestMaxConversationsTo(t *testing.T) {
	t.Parallel()
	srv := smtptest.Start(t)
	srv.DelayRecipient("slow.example", 200*time.Millisecond)
	srv.RefuseRecipient("gone@other.example", 550, "No such user")
	const n = 3
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			c, err := smtp.Dial(srv.Addr())
			if err != nil {
				t.Error(err)
				return
			}
			defer func() { _ = c.Close() }()
			if err := send(t, c, "a@example.com", fmt.Sprintf("reader-%d@slow.example", i)); err != nil {
				t.Error(err)
			}
		})
	}
	c := dial(t, srv, "")
	require.Error(t, send(t, c, "a@example.com", "gone@other.example"))
	require.NoError(t, c.Reset())
	require.NoError(t, send(t, c, "a@example.com", "reader@other.example"))
	wg.Wait()
	require.Equal(t, n, srv.MaxConversationsTo("SLOW.example"))
	require.Equal(t, 1, srv.MaxConversationsTo("other.example"), "the refused recipient did not count")
	require.Equal(t, 0, srv.MaxConversationsTo("never.example"))
	requireSettles(t, srv, 1, 0)
	require.Equal(t, 0, srv.MaxConversationsTo("slow.example"), "ResetMax starts again from what is open")
}

package smtptest

import "strings"

// MaxConnections is the largest number of connections that were open at once since Start or
// the last ResetMax. A connection counts from when it is accepted until the server has closed
// it, which for a client that hangs up is when the server notices.
func (s *Server) MaxConnections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.maxConns
}

// MaxConversations is the largest number of mail transactions that were open at once since
// Start or the last ResetMax. A transaction opens when MAIL FROM is accepted and closes when
// the reply to its DATA has been written, at RSET (or a repeated EHLO), or when its connection
// ends.
func (s *Server) MaxConversations() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.maxTx
}

// ResetMax sets both maxima to the numbers of connections and transactions open now, so that
// a test can measure one phase on its own. Right after it, the maxima read the current counts.
func (s *Server) ResetMax() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.maxConns = len(s.conns)
	s.maxTx = s.openTx
}

// Attempts is how many RCPT TO commands for addr (matched without regard to case) the server
// has seen, accepted or refused: a test can count the retries of a deferred recipient, or
// check that a refused one is not retried. Commands go-smtp rejects before looking at the
// address (bad syntax, no MAIL FROM yet, over 100 recipients) are not counted.
func (s *Server) Attempts(addr string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.attempts[addrKey(addr)]
}

func (s *Server) txOpened() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.openTx++
	s.maxTx = max(s.maxTx, s.openTx)
}

func (s *Server) txClosed() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.openTx--
}

// addrKey is how an address is looked up: go-smtp hands over RCPT TO addresses without their
// angle brackets, and a caller may write them either way and in any case.
func addrKey(addr string) string {
	return strings.ToLower(strings.Trim(strings.TrimSpace(addr), "<>"))
}

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

// MaxConversationsTo is the largest number of mail transactions with a recipient at domain
// (matched without regard to case) that were open at once since Start or the last ResetMax. A
// transaction counts for a domain from its RCPT TO for an address there (from the command,
// before any DelayRecipient wait) until the transaction ends as MaxConversations says, or at
// once when that RCPT TO is refused.
func (s *Server) MaxConversationsTo(domain string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.maxTo[addrKey(domain)]
}

// ResetMax sets the maxima to the numbers of connections and transactions open now, so that
// a test can measure one phase on its own. Right after it, the maxima read the current counts.
func (s *Server) ResetMax() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.maxConns = len(s.conns)
	s.maxTx = s.openTx
	clear(s.maxTo)
	for d, n := range s.openTo {
		s.maxTo[d] = n
	}
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

// toOpened counts a transaction that now has a recipient at domain.
func (s *Server) toOpened(domain string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.openTo[domain]++
	s.maxTo[domain] = max(s.maxTo[domain], s.openTo[domain])
}

func (s *Server) toClosed(domain string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.openTo[domain]--; s.openTo[domain] <= 0 {
		delete(s.openTo, domain)
	}
}

// addrKey is how an address is looked up: go-smtp hands over RCPT TO addresses without their
// angle brackets, and a caller may write them either way and in any case.
func addrKey(addr string) string {
	return strings.ToLower(strings.Trim(strings.TrimSpace(addr), "<>"))
}

// domainOf is the domain of an addrKey: what follows its last "@", or "" when it has none.
func domainOf(key string) string {
	i := strings.LastIndexByte(key, '@')
	if i < 0 {
		return ""
	}
	return key[i+1:]
}

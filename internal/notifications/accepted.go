package notifications

import (
	"context"
	"sync"
	"time"
)

// Acceptance records one email the relay accepted.
type Acceptance struct {
	MessageID string
	// Position is the position of the BookLent event the email is about.
	Position   int64
	LoanID     string
	AcceptedAt time.Time
	// Attempts is the attempt that was accepted: 1 when the first try went through.
	Attempts int
}

// AcceptedEmails is the record of the emails the relay accepted, kept where every replica sees
// it. The outbox records an email right after the relay's 250 and asks before it sends one, so
// that no holder of its lease sends an accepted email again: after a crash, only what was
// accepted in the instant before it, and not yet recorded, can go out twice.
type AcceptedEmails interface {
	// Accepted reports whether the email with this Message-ID was accepted.
	Accepted(ctx context.Context, messageID string) (bool, error)
	// Record records an accepted email. Recording one again keeps the first record.
	Record(ctx context.Context, a Acceptance) error
}

// MemoryAcceptedEmails keeps the record in the memory of one process.
type MemoryAcceptedEmails struct {
	mu       sync.Mutex
	accepted map[string]Acceptance
}

var _ AcceptedEmails = (*MemoryAcceptedEmails)(nil)

// NewMemoryAcceptedEmails returns an empty record.
func NewMemoryAcceptedEmails() *MemoryAcceptedEmails {
	return &MemoryAcceptedEmails{accepted: map[string]Acceptance{}}
}

// Accepted implements AcceptedEmails.
func (m *MemoryAcceptedEmails) Accepted(ctx context.Context, messageID string) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.accepted[messageID]
	return ok, nil
}

// Record implements AcceptedEmails.
func (m *MemoryAcceptedEmails) Record(ctx context.Context, a Acceptance) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.accepted[a.MessageID]; !ok {
		m.accepted[a.MessageID] = a
	}
	return nil
}

// Get returns the record of one email, for tests.
func (m *MemoryAcceptedEmails) Get(messageID string) (Acceptance, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	a, ok := m.accepted[messageID]
	return a, ok
}

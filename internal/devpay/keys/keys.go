// Package keys keeps the answers a provider gave under idempotency keys, as Stripe keeps them:
// the first answer to a request under a key is kept for a lifetime (a day at Stripe); the same
// key with the same request gets that answer again, marked as a replay of the request that made
// it; the same key with another request is a conflict. It also counts the calls made with each
// key, replays and conflicts included.
//
// A Store is not safe for concurrent use: its caller serialises the calls, so that one key's
// calls never overlap.
package keys

import (
	"maps"
	"time"
)

// Answer is what was answered: a status and a body, and the id of the request that got it.
type Answer struct {
	Status    int
	Body      []byte
	RequestID string
}

// kept is an answer kept under a key, with the request that a reuse of the key must repeat.
type kept struct {
	Answer
	request string
	at      time.Time
}

// Store keeps answers by key. Make it with New.
type Store struct {
	lifetime time.Duration
	kept     map[string]*kept
	calls    map[string]int
}

// New returns a Store that keeps each answer for lifetime.
func New(lifetime time.Duration) *Store {
	return &Store{lifetime: lifetime, kept: map[string]*kept{}, calls: map[string]int{}}
}

// Outcome is what became of a call under a key.
type Outcome int

// The outcomes of a call.
const (
	// Ran: the call ran (no answer was kept under its key).
	Ran Outcome = iota
	// Replayed: the answer kept under its key, for the same request, was given again.
	Replayed
	// Conflict: the key was used before with another request; nothing ran.
	Conflict
)

// Do answers request under key at now: with the answer kept under key when the request is the
// same, with nothing and Conflict when it is not, or by running run, whose answer is kept when
// keep is true. An empty key keeps and counts nothing.
func (s *Store) Do(now time.Time, key, request string, run func() (a Answer, keep bool)) (Answer, Outcome) {
	if key == "" {
		a, _ := run()
		return a, Ran
	}
	s.calls[key]++
	maps.DeleteFunc(s.kept, func(_ string, k *kept) bool { return now.Sub(k.at) >= s.lifetime })
	if k, found := s.kept[key]; found {
		if k.request != request {
			return Answer{}, Conflict
		}
		return k.Answer, Replayed
	}
	a, keep := run()
	if keep {
		s.kept[key] = &kept{Answer: a, request: request, at: now}
	}
	return a, Ran
}

// Calls is how many calls were made with key.
func (s *Store) Calls(key string) int { return s.calls[key] }

// CallCounts are the calls made with each key.
func (s *Store) CallCounts() map[string]int { return maps.Clone(s.calls) }

package commandhttp

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"library/internal/aggregate"
)

// benchPaid stands for a domain event in a result.
type benchPaid struct {
	Amount int64 `json:"amount"`
}

func (benchPaid) EventType() string { return "PaymentReceived" }

// BenchmarkWriteResult measures answering a command with its result, as JSON: a typical
// aggregate.Result with the one event the command recorded (201). Every successful command
// pays it. Each iteration includes a fresh httptest.ResponseRecorder.
func BenchmarkWriteResult(b *testing.B) {
	result := aggregate.Result{
		StreamID: "account-m1",
		Version:  11,
		Position: 4242,
		Events: []aggregate.RecordedEvent{{
			Type:       "PaymentReceived",
			Version:    11,
			Position:   4242,
			RecordedAt: time.Date(2026, 3, 10, 14, 30, 15, 123456000, time.UTC),
			Data:       benchPaid{Amount: 1500},
		}},
	}
	r := httptest.NewRequest(http.MethodPost, "/accounts/m1/payments", nil)
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		WriteResult(w, r, result)
		if w.Code != http.StatusCreated {
			b.Fatalf("status %d, want %d", w.Code, http.StatusCreated)
		}
	}
}

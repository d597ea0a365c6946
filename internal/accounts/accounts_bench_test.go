package accounts_test

import (
	"context"
	"fmt"
	"testing"

	"library/internal/accounts"
	"library/internal/aggregate"
	"library/internal/eventstore"
)

// benchAccount returns a memory store and a service on it, with the account of member "m"
// written by n commands through the service itself, so that events and metadata are exactly
// what production writes: the account is opened, then late fines (each for its own loan) and
// payments alternate. The balance stays positive, so that a further payment is accepted.
// Command i has the command id "key-<i>".
func benchAccount(b *testing.B, n int) (*eventstore.Memory, *accounts.Service) {
	b.Helper()
	ctx := context.Background()
	store := eventstore.NewMemory(nil)
	svc := accounts.NewService(store, aggregate.Options{})
	for i := range n {
		o := aggregate.Origin{CommandID: fmt.Sprintf("key-%d", i), CorrelationID: fmt.Sprintf("request-%d", i)}
		var err error
		switch {
		case i == 0:
			_, err = svc.SetContact(ctx, "m", accounts.SetContact{Name: "Ada Lovelace", Email: "ada@example.org"}, o)
		case i%2 == 1:
			_, err = svc.ChargeFine(ctx, "m", accounts.ChargeFine{Amount: 150, Reason: "returned 3 days late", LoanID: fmt.Sprintf("loan-%d", i)}, o)
		default:
			_, err = svc.Pay(ctx, "m", accounts.Pay{Amount: 100}, o)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	return store, svc
}

// BenchmarkAccountLoad measures loading an account from 10, 100 and 1000 events through the
// service (Get, which is Repository.Load with the Account codecs and Apply). Every account
// command and read pays it, and it grows with the account's history.
func BenchmarkAccountLoad(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		b.Run(fmt.Sprintf("events=%d", n), func(b *testing.B) {
			_, svc := benchAccount(b, n)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				_, version, err := svc.Get(ctx, "m")
				if err != nil {
					b.Fatal(err)
				}
				if version != int64(n) {
					b.Fatalf("version %d, want %d", version, n)
				}
			}
		})
	}
}

// BenchmarkPay measures a whole payment in memory, on an account of 10 events: validation,
// fingerprint, load and fold, command-id lookup, decision, encoding and append. "fresh-key" is
// a new payment; each iteration starts from a copy of the same 10-event stream (copied with the
// timer stopped) so that the stream does not grow with b.N. "replay" is a retry of the last
// payment, answered from the log without appending: what a client's retry costs.
func BenchmarkPay(b *testing.B) {
	const n = 10
	ctx := context.Background()
	pay := accounts.Pay{Amount: 100}

	b.Run("fresh-key", func(b *testing.B) {
		template, _ := benchAccount(b, n)
		stored, err := template.ReadStream(ctx, "account-m", 0)
		if err != nil {
			b.Fatal(err)
		}
		seed := make([]eventstore.NewEvent, len(stored))
		for i, e := range stored {
			seed[i] = eventstore.NewEvent{Type: e.Type, Data: e.Data, Metadata: e.Metadata}
		}
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			b.StopTimer()
			store := eventstore.NewMemory(nil)
			if _, err := store.Append(ctx, "account-m", 0, seed); err != nil {
				b.Fatal(err)
			}
			svc := accounts.NewService(store, aggregate.Options{})
			o := aggregate.Origin{CommandID: fmt.Sprintf("fresh-%d", i), CorrelationID: "request-fresh"}
			i++
			b.StartTimer()

			result, err := svc.Pay(ctx, "m", pay, o)
			if err != nil {
				b.Fatal(err)
			}
			if result.Replayed || result.Version != n+1 {
				b.Fatalf("replayed %v at version %d, want a new event at version %d", result.Replayed, result.Version, n+1)
			}
		}
	})

	b.Run("replay", func(b *testing.B) {
		// benchAccount pays on even commands after the first: the last payment is key-8, the
		// 9th event of the 10.
		_, svc := benchAccount(b, n)
		o := aggregate.Origin{CommandID: "key-8", CorrelationID: "request-retry"}
		b.ReportAllocs()
		for b.Loop() {
			result, err := svc.Pay(ctx, "m", pay, o)
			if err != nil {
				b.Fatal(err)
			}
			if !result.Replayed || result.Version != 9 {
				b.Fatalf("replayed %v at version %d, want a replay at version 9", result.Replayed, result.Version)
			}
		}
	})
}

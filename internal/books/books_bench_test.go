package books_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"library/internal/aggregate"
	"library/internal/books"
	"library/internal/eventstore"
)

// benchBook returns a service on a memory store holding book "b1" written by n commands
// through the service itself, so that events and metadata are what production writes: the
// book is added, then lent and returned again and again, each time under a new loan.
func benchBook(b *testing.B, n int) *books.Service {
	b.Helper()
	ctx := context.Background()
	clock := time.Date(2026, 3, 10, 14, 30, 15, 0, time.UTC)
	svc := books.NewService(eventstore.NewMemory(nil), aggregate.Options{}, func() time.Time { return clock }, books.Policy{LoanPeriod: 14 * 24 * time.Hour, MaxRenewals: 2}, nil)
	for i := range n {
		o := aggregate.Origin{CommandID: fmt.Sprintf("key-%d", i), CorrelationID: fmt.Sprintf("request-%d", i)}
		var err error
		switch {
		case i == 0:
			_, err = svc.Add(ctx, books.AddBook{ID: "b1", Title: "Dune", Author: "Frank Herbert"}, o)
		case i%2 == 1:
			_, err = svc.Lend(ctx, "b1", books.LendBook{LoanID: fmt.Sprintf("loan-%d", i), MemberID: "m1"}, o)
		default:
			_, err = svc.Return(ctx, "b1", books.ReturnBook{LoanID: fmt.Sprintf("loan-%d", i-1)}, o)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	return svc
}

// BenchmarkBookLoad measures loading a book from 10, 100 and 1000 events through the service
// (Get, which is Repository.Load with the Book codecs and Apply). Every lend and return pays
// it first, and a popular book's stream only grows; book events carry timestamps, which cost
// more to decode than the account's amounts.
func BenchmarkBookLoad(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		b.Run(fmt.Sprintf("events=%d", n), func(b *testing.B) {
			svc := benchBook(b, n)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				_, version, err := svc.Get(ctx, "b1")
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

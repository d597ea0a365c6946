package app_test

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"library/internal/app"
	"library/internal/testkit/pgtest"
)

// BenchmarkLendAndReturnOverHTTP measures a loan and its return, each a POST over HTTP, by 8
// clients on PostgreSQL: what a circulation desk (or a kiosk) does most. Each loan is decided
// on the member's account, the book, and what the library lends by.
func BenchmarkLendAndReturnOverHTTP(b *testing.B) {
	base := startService(b, app.Config{DatabaseURL: pgtest.NewDatabase(b)})
	const books = 256
	for i := range books {
		post(b, fmt.Sprintf("%s/books", base), fmt.Sprintf(`{"id":"b%d","title":"Book %d","author":"A"}`, i, i), "")
	}
	var n atomic.Int64
	b.ReportAllocs()
	b.SetParallelism(4) // 8 clients on this machine's two cores
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := n.Add(1)
			book := fmt.Sprintf("%s/books/b%d", base, i%books)
			post(b, book+"/loans", fmt.Sprintf(`{"loanId":"l%d","memberId":"m%d"}`, i, i%books), "")
			post(b, book+"/returns", fmt.Sprintf(`{"loanId":"l%d"}`, i), "")
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "loans/s")
}

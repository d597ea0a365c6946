package app_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"library/internal/app"
	"library/internal/testkit/pgtest"
)

// BenchmarkPaymentsOverHTTP pays into many accounts with fresh Idempotency-Keys, over real
// sockets, from several clients at once: the full path of a command (HTTP, decode, load,
// decide, append). It reports commands per second, and the allocations and bytes of each
// payment: the client's, the server's and the background processors' that read it, together
// (TestKeyedPaymentAllocations counts the handler's alone).
//
//	go test -run '^$' -bench PaymentsOverHTTP -count=5 ./internal/app/
func BenchmarkPaymentsOverHTTP(b *testing.B) {
	for _, s := range []struct {
		name string
		url  func(b *testing.B) string
	}{
		{"memory", func(*testing.B) string { return "" }},
		{"postgres", func(b *testing.B) string { return pgtest.NewDatabase(b) }},
	} {
		b.Run(s.name, func(b *testing.B) {
			base := startService(b, app.Config{DatabaseURL: s.url(b)})
			const accounts = 256
			for i := range accounts {
				body := `{"amount":100000000,"reason":"opening balance"}`
				post(b, fmt.Sprintf("%s/accounts/m%d/fines", base, i), body, "")
			}
			var n atomic.Int64
			b.ReportAllocs()
			b.SetParallelism(4) // 8 clients on this machine's two cores
			b.ResetTimer()
			start := time.Now()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					i := n.Add(1)
					post(b, fmt.Sprintf("%s/accounts/m%d/payments", base, i%accounts), `{"amount":1}`, fmt.Sprintf("bench-%d", i))
				}
			})
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "commands/s")
		})
	}
}

// benchClient keeps a connection per client goroutine, as the clients of a service would.
var benchClient = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}

func post(b *testing.B, url, body, key string) {
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewBufferString(body))
	if err != nil {
		b.Error(err)
		return
	}
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	resp, err := benchClient.Do(req)
	if err != nil {
		b.Error(err)
		return
	}
	_, _ = io.Copy(io.Discard, resp.Body) // read to the end, so that the connection is kept
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		b.Errorf("%s: status %d", url, resp.StatusCode)
	}
}

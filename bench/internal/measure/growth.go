package measure

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"library/bench/internal/figures"
	"library/bench/internal/workload"
)

// The growth measurement: a payment's latency on account streams that already hold 10, 100,
// 1000 and 10000 events. The streams are written straight into the events table, as the
// service writes a fine: FineCharged events with the metadata of a chargeFine command (its
// command id, name, payload fingerprint and correlation id).

// GrowthLengths are the stream lengths a payment is timed on: a fresh slice each call.
func GrowthLengths() []int { return []int{10, 100, 1000, 10000} }

// The fines, and the payments each length gets unmeasured first.
const (
	growthFine    = 1000 // cents per fine: every stream owes far more than the payments pay
	growthReason  = "benchmark growth"
	GrowthWarmups = 5
)

// GrowthPoint is one stream length's result.
type GrowthPoint struct {
	Events   int // events in the stream before the payments
	Payments int
	P50, P99 time.Duration
	Ratio    float64 // P50 over the shortest stream's P50
}

// growthFingerprint is the service's fingerprint of the chargeFine payload the streams hold:
// the first 16 bytes of the SHA-256 of its JSON.
func growthFingerprint() string {
	sum := sha256.Sum256(fmt.Appendf(nil, `{"amount":%d,"reason":%q}`, growthFine, growthReason))
	return "sha256:" + hex.EncodeToString(sum[:16])
}

// growthInsert writes versions 1 to n of one account stream in one statement.
const growthInsert = `INSERT INTO events (stream_id, version, type, data, metadata)
SELECT $1, v, 'FineCharged',
	jsonb_build_object('amount', $3::bigint, 'reason', $4::text),
	jsonb_build_object('commandId', $5::text || v, 'command', 'chargeFine', 'fingerprint', $6::text,
		'correlationId', 'librarybench-growth')
FROM generate_series(1, $2::bigint) AS v`

// Growth writes the streams, then times `payments` payments with fresh keys into each,
// one at a time.
func Growth(ctx context.Context, api *workload.Client, databaseURL string, payments int) ([]GrowthPoint, error) {
	conn, err := pgx.Connect(ctx, databaseURL)
	if err != nil {
		return nil, fmt.Errorf("connecting: %w", err)
	}
	defer func() { _ = conn.Close(context.WithoutCancel(ctx)) }()
	fp := growthFingerprint()
	for _, n := range GrowthLengths() {
		member := fmt.Sprintf("bench-growth-%d", n)
		if _, err := conn.Exec(ctx, growthInsert, "account-"+member, n, growthFine, growthReason,
			fmt.Sprintf("growth-%d-", n), fp); err != nil {
			return nil, fmt.Errorf("writing a stream of %d events: %w", n, err)
		}
	}

	var points []GrowthPoint
	for _, n := range GrowthLengths() {
		member := fmt.Sprintf("bench-growth-%d", n)
		var lat []time.Duration
		for i := range GrowthWarmups + payments {
			t0 := time.Now()
			if _, err := api.Pay(ctx, member, fmt.Sprintf("growth-pay-%d-%d", n, i)); err != nil {
				return nil, fmt.Errorf("a stream of %d events: %w", n, err)
			}
			if i >= GrowthWarmups {
				lat = append(lat, time.Since(t0))
			}
		}
		slices.Sort(lat)
		points = append(points, GrowthPoint{Events: n, Payments: payments, P50: figures.Percentile(lat, 0.5), P99: figures.Percentile(lat, 0.99)})
	}
	for i := range points {
		points[i].Ratio = points[i].P50.Seconds() / points[0].P50.Seconds()
	}
	return points, nil
}

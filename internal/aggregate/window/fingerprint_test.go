package window

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/json"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// A fingerprint is the first 16 bytes of HMAC-SHA-256 of json.Marshal's bytes, and the plain
// hash the first 16 of SHA-256 of them, however often a Fingerprinter is used and from how many
// goroutines: the log holds fingerprints made so, which a retry's must equal.
func TestFingerprintsAreTheHashesOfTheJSON(t *testing.T) {
	t.Parallel()
	type pay struct {
		Amount     int64 `json:"amount"`
		AtMostOwed bool  `json:"atMostOwed,omitempty"`
	}
	payloads := []any{pay{Amount: 1}, pay{Amount: 250, AtMostOwed: true}, map[string]string{"name": "Zoë <z@example.org>"}, nil, []int{}}
	for _, key := range [][]byte{nil, []byte("an installation's key")} {
		f := NewFingerprinter(key)
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				for range 50 {
					for _, p := range payloads {
						b, err := json.Marshal(p)
						require.NoError(t, err)
						plain := sha256.Sum256(b)
						want := plain
						if key != nil {
							mac := hmac.New(sha256.New, key)
							mac.Write(b)
							copy(want[:], mac.Sum(nil))
						}
						fp, legacy, err := f.Payload(p)
						require.NoError(t, err)
						require.Equal(t, Fingerprint(want[:16]), fp, "%s", b)
						require.Equal(t, Fingerprint(plain[:16]), legacy, "%s", b)
					}
				}
			})
		}
		wg.Wait()
	}
	_, _, err := NewFingerprinter(nil).Payload(func() {})
	require.ErrorContains(t, err, "aggregate: fingerprint payload: json: unsupported type")
}

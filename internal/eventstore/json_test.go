package eventstore_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"library/internal/eventstore"
)

// jsonText draws strings as metadata holds them, and the ones encoding/json must escape.
func jsonText() *rapid.Generator[string] {
	return rapid.OneOf(
		rapid.Just(""),
		rapid.StringMatching(`[ -~]{0,40}`),
		rapid.SampledFrom([]string{"sha256:0f1e", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "https://id.example/?a=1&b=2",
			"<script>", `a "quote" and a \ backslash`, "tab\there", "Zoë", "\u2028\u2029", "\xff\xfe not UTF-8", "\x00\x1f\x7f"}),
		rapid.String(),
	)
}

// Metadata's own encoding is json.Marshal's, byte for byte: what a store wrote before it and
// what it writes now read back alike, and compare alike.
func TestMetadataAppendJSONIsMarshal(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		m := eventstore.Metadata{
			CommandID: jsonText().Draw(t, "commandId"), Command: jsonText().Draw(t, "command"),
			Fingerprint: jsonText().Draw(t, "fingerprint"), CorrelationID: jsonText().Draw(t, "correlationId"),
			TraceParent: jsonText().Draw(t, "traceparent"),
			Actor:       eventstore.Actor{Subject: jsonText().Draw(t, "sub"), Role: jsonText().Draw(t, "role"), Issuer: jsonText().Draw(t, "iss")},
			Card:        jsonText().Draw(t, "card"),
			Schema:      rapid.OneOf(rapid.Just(0), rapid.IntRange(-3, 1<<20)).Draw(t, "schema"),
		}
		want, err := json.Marshal(m)
		require.NoError(t, err)
		require.Equal(t, string(want), string(m.AppendJSON(nil)))
		require.Equal(t, "prefix"+string(want), string(m.AppendJSON([]byte("prefix"))))
		var back eventstore.Metadata
		require.NoError(t, json.Unmarshal(m.AppendJSON(nil), &back))
	})
	require.Equal(t, "{}", string(eventstore.Metadata{}.AppendJSON(nil)))
}

// The metadata of an event of schema version 1 (Schema 0) is what it was before versions were
// recorded, byte for byte; a later version adds "schema" at the end.
func TestMetadataSchemaIsLeftOutForVersionOne(t *testing.T) {
	t.Parallel()
	m := eventstore.Metadata{CommandID: "k", Command: "pay", Fingerprint: "f", Actor: eventstore.Actor{Role: "open"}}
	require.Equal(t, `{"commandId":"k","command":"pay","fingerprint":"f","actor":{"role":"open"}}`, string(m.AppendJSON(nil)))
	m.Schema = 2
	require.Equal(t, `{"commandId":"k","command":"pay","fingerprint":"f","actor":{"role":"open"},"schema":2}`, string(m.AppendJSON(nil)))
	require.Equal(t, `{"schema":3}`, string(eventstore.Metadata{Schema: 3}.AppendJSON(nil)))
}

// A string is written as json.Marshal writes it, whatever it holds.
func FuzzAppendJSONStringIsMarshal(f *testing.F) {
	for _, s := range []string{"", "abc", "<&>", `"\`, "Zoë", "\u2028", "\xff", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, err := json.Marshal(s)
		require.NoError(t, err)
		require.Equal(t, string(want), string(eventstore.AppendJSONString(nil, s)))
	})
}

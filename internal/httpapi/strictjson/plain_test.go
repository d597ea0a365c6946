package strictjson

import (
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// plainBody has a field of each kind the request bodies have.
type plainBody struct {
	Amount int64   `json:"amount"`
	Reason string  `json:"reason"`
	DueAt  *string `json:"dueAt"`
	Owed   bool    `json:"atMostOwed,omitempty"`
	Hidden string  `json:"-"`
	Named  string
}

// nestedBody has a struct field, whose unknown members only the strict decoder refuses.
type nestedBody struct {
	Inner struct {
		A int `json:"a"`
	} `json:"inner"`
}

// What the bodies of the command endpoints look like, and what a client may get wrong.
var plainSeeds = []string{
	`{"amount":1}`,
	` {"amount":250, "reason":"late" , "dueAt":"2026-12-24T17:00:00Z"} `,
	`{"amount":1,"dueAt":null,"atMostOwed":true,"Named":"n"}`,
	`{}`, ` { } `,
	`{"amount":1}{}`, `{"amount":1} x`, `{"amount":1}` + "\x00", `{"amount":1`, `{"amount":}`, `{"amount"}`,
	`{"amount":1,"amount":2}`, `{"Amount":1}`, `{"AMOUNT":1}`, `{"\u0061mount":1}`, `{"amount":1,}`,
	`{"reason":"a \" quote, a \\ and a }"}`, `{"reason":"\u00e9\ud83d\ude00"}`, `{"reason":"\ud800"}`,
	`{"amount":{"nested":1}}`, `{"amount":[1]}`, `{"amount":1e3}`, `{"amount":-0}`, `{"amount":9223372036854775808}`,
	`{"amount":"100"}`, `{"amount":tru}`, `{"amount":true}`, `{"amount":nul}`, `{"reason":1}`,
	`{"Hidden":"x"}`, `{"named":"x"}`, `{"inner":{"a":1}}`, `{"inner":{"a":1,"b":2}}`, `{"inner":{"A":1}}`,
	`{"amount":1,"inner":null}`, "{\"amount\":\t1\r\n}", `{"amount" : 1 , "reason" : "x" }`,
}

// A body the plain path decodes is decoded as the strict decoder decodes it; a body it leaves
// gets the strict decoder's refusal, word for word.
func FuzzPlainDecodingIsStrict(f *testing.F) {
	for _, seed := range plainSeeds {
		f.Add([]byte(seed), false)
		f.Add([]byte(seed), true)
	}
	f.Fuzz(func(t *testing.T, body []byte, nested bool) {
		if checkBody(body) != nil {
			return // refused before either decodes
		}
		newBody := func() any { return new(plainBody) }
		if nested {
			newBody = func() any { return new(nestedBody) }
		}
		fields := FieldsOf(reflect.TypeOf(newBody()))
		plain, strict := newBody(), newBody()
		var plainErr error
		if !decodePlainly(body, plain, fields) {
			plainErr = decodeStrictly(body, plain, fields)
		}
		strictErr := decodeStrictly(body, strict, fields)
		if strictErr == nil {
			require.NoError(t, plainErr, "%q", body)
		} else {
			require.EqualError(t, plainErr, strictErr.Error(), "%q", body)
		}
		require.Equal(t, strict, plain, "%q", body)
	})
}

// The bodies clients send take the plain path; those it can't vouch for take the strict one.
func TestPlainBodiesTakeThePlainPath(t *testing.T) {
	t.Parallel()
	plain, nested := FieldsOf(reflect.TypeFor[plainBody]()), FieldsOf(reflect.TypeFor[nestedBody]())
	require.True(t, plain.plain)
	require.False(t, nested.plain, "a struct field")
	for _, body := range []string{`{"amount":1}`, ` {"amount":250, "reason":"late" , "dueAt":null} `, `{}`} {
		require.True(t, decodePlainly([]byte(body), new(plainBody), plain), body)
	}
	for _, body := range []string{`{"amount":1,"amount":2}`, `{"Amount":1}`, `{"\u0061mount":1}`, `{"amount":"1"}`,
		`{"amount":1} x`, `{"other":1}`, `{"amount":{}}`} {
		dst := new(plainBody)
		require.False(t, decodePlainly([]byte(body), dst, plain), body)
		require.Equal(t, new(plainBody), dst, "%s: dst as it was", body)
	}
	require.False(t, decodePlainly([]byte(`{"amount":1}`), &plainBody{Reason: "kept"}, plain), "a value that is not zero")
	require.False(t, decodePlainly([]byte(`{"inner":{"a":1}}`), new(nestedBody), nested))
	require.False(t, plainMembers([]byte(strings.Repeat(`{"amount":`, 100)), plain.names))
}

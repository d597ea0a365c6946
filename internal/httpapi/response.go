package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"sync"
)

// WriteJSON answers with v encoded as JSON. The body is encoded before anything is written, so
// an encoding failure becomes a clean 500 problem rather than half an answer.
func WriteJSON(w http.ResponseWriter, r *http.Request, status int, v any) {
	buf := getBuffer()
	defer putBuffer(buf)
	if err := encodeAnswer(buf, v); err != nil {
		WriteError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// buffers are the buffers that request bodies are read into and answers encoded into, used
// again from one request to the next: io.ReadAll starts a new one for every body, and
// json.Marshal copies each answer out of its own into a new one.
var buffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxKeptBuffer is the largest buffer kept for another request: a rare long body or answer (an
// export) is left to the garbage collector rather than held for the short ones.
const maxKeptBuffer = 64 << 10

// getBuffer is an empty buffer from buffers; putBuffer gives it back.
func getBuffer() *bytes.Buffer {
	buf := buffers.Get().(*bytes.Buffer)
	buf.Reset()
	return buf
}

func putBuffer(buf *bytes.Buffer) {
	if buf.Cap() <= maxKeptBuffer {
		buffers.Put(buf)
	}
}

// encodeAnswer writes v into buf as json.Marshal encodes it, byte for byte: a json.Encoder
// writes the same bytes, and a newline after them, which is cut off.
func encodeAnswer(buf *bytes.Buffer, v any) error {
	if err := json.NewEncoder(buf).Encode(v); err != nil {
		return err
	}
	buf.Truncate(buf.Len() - 1)
	return nil
}

// Handle adapts a handler that returns an error: the error is answered as a problem.
func Handle(h func(w http.ResponseWriter, r *http.Request) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			WriteError(w, r, err)
		}
	}
}

package httpapi

import (
	"context"
	"io"
	"net/http"
)

// requestState is what observe keeps of one request, in one allocation rather than one each:
// the request's context, which it wraps to carry the request's requestInfo; the ResponseWriter
// that notes the status and the bytes of the answer; and the value of the answer's
// X-Request-Id header.
type requestState struct {
	context.Context // the request's, as it came: deadlines, cancellation and other values
	info            requestInfo
	writer          statusWriter
	idHeader        [1]string
}

// Value answers for the requestInfo, and asks the context it wraps for anything else.
func (s *requestState) Value(key any) any {
	if key == (requestInfoKey{}) {
		return &s.info
	}
	return s.Context.Value(key)
}

// statusWriter is a ResponseWriter that notes the status it answered with and the bytes of its
// body, as chi's middleware.WrapResponseWriter does: the first status of 200 or more counts,
// and a second one is not passed on (net/http would log it as superfluous).
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int
}

func (w *statusWriter) WriteHeader(status int) {
	switch {
	case status >= 100 && status <= 199 && status != http.StatusSwitchingProtocols:
		w.ResponseWriter.WriteHeader(status) // informational: the answer is still to come
	case w.status == 0:
		w.status = status
		w.ResponseWriter.WriteHeader(status)
	}
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += n
	return n, err
}

// ReadFrom lets io.Copy hand a file to net/http's own ReadFrom (sendfile, or a pooled buffer),
// as it would without this writer in between.
func (w *statusWriter) ReadFrom(r io.Reader) (int64, error) {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	var n int64
	var err error
	if rf, ok := w.ResponseWriter.(io.ReaderFrom); ok {
		n, err = rf.ReadFrom(r)
	} else {
		n, err = io.Copy(writerOnly{w.ResponseWriter}, r)
	}
	w.bytes += int(n)
	return n, err
}

// Flush sends what was written so far, when the writer underneath can.
func (w *statusWriter) Flush() {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

// Unwrap is the writer underneath, for http.ResponseController.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// writerOnly hides a writer's ReadFrom from io.Copy, which would otherwise call it again.
type writerOnly struct{ io.Writer }

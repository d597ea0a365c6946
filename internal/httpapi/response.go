package httpapi

import (
	"encoding/json"
	"net/http"

	"library/internal/aggregate"
)

// WriteJSON answers with v encoded as JSON. The body is encoded before anything is written, so
// an encoding failure becomes a clean 500 problem rather than half an answer.
func WriteJSON(w http.ResponseWriter, r *http.Request, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// WriteResult answers with a command's result: 201 when it recorded events, 200 when it
// recorded none. A replayed result is the first answer again, with Idempotent-Replayed: true.
func WriteResult(w http.ResponseWriter, r *http.Request, result aggregate.Result) {
	status := http.StatusOK
	if result.Recorded() {
		status = http.StatusCreated
	}
	if result.Replayed {
		w.Header().Set(ReplayedHeader, "true")
	}
	WriteJSON(w, r, status, result)
}

// Handle adapts a handler that returns an error: the error is answered as a problem.
func Handle(h func(w http.ResponseWriter, r *http.Request) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			WriteError(w, r, err)
		}
	}
}

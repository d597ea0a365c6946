// Package processorhttp serves a replica's processors over the HTTP API: GET /status, which
// anyone may read and which names no member, and the operators' endpoints under
// /admin/processors/{name}: replay, retry-parked and the list of parked events. It only
// translates: what each answer means, and which replica may give it (a saga's replay and
// retry-parked only the lease holder; a view's replay, status and the parked list any replica),
// is package engine's Group.
package processorhttp

import (
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"library/internal/httpapi"
	"library/internal/processor"
	"library/internal/processor/engine"
)

// Routes are GET /status and the admin endpoints of the HTTP API.
type Routes struct {
	Group *engine.Group
	// Replica names this process in /status.
	Replica string
}

// Routes implements httpapi.Module. Who may call them (operators, and ADMIN_TOKEN) is the
// rules table's to say (package auth), like every route's.
func (h Routes) Routes(r chi.Router) {
	r.Get("/status", httpapi.Handle(h.status))
	r.Post("/admin/processors/{name}/replay", httpapi.Handle(h.admin(h.replay)))
	r.Post("/admin/processors/{name}/retry-parked", httpapi.Handle(h.admin(h.retryParked)))
	r.Get("/admin/processors/{name}/parked", httpapi.Handle(h.admin(h.parked)))
}

type statusView struct {
	Replica     string                  `json:"replica"`
	ReadHorizon processor.HorizonStatus `json:"readHorizon"`
	Processors  []processor.Status      `json:"processors"`
}

func (h Routes) status(w http.ResponseWriter, r *http.Request) error {
	processors, err := h.Group.Status(r.Context())
	if err != nil {
		return err
	}
	horizon, err := h.Group.ReadHorizon(r.Context())
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, r, http.StatusOK, statusView{Replica: h.Replica, ReadHorizon: horizon, Processors: processors})
	return nil
}

// admin reads the processor's name from the path.
func (h Routes) admin(next func(w http.ResponseWriter, r *http.Request, name string) error) func(http.ResponseWriter, *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		name, err := httpapi.PathID(r, "name")
		if err != nil {
			return err
		}
		return next(w, r, name)
	}
}

type replayView struct {
	Processor string `json:"processor"`
	Replay    string `json:"replay"`
	// Build names the build of a view that its replay is, absent for a saga.
	Build string `json:"build,omitempty"`
}

func (h Routes) replay(w http.ResponseWriter, r *http.Request, name string) error {
	build, err := h.Group.Replay(r.Context(), name)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, r, http.StatusAccepted, replayView{Processor: name, Replay: "started", Build: build})
	return nil
}

type requeuedView struct {
	Requeued int `json:"requeued"`
}

func (h Routes) retryParked(w http.ResponseWriter, r *http.Request, name string) error {
	n, err := h.Group.RetryParked(r.Context(), name)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, r, http.StatusAccepted, requeuedView{Requeued: n})
	return nil
}

// parkedView is GET /admin/processors/{name}/parked: what /status can't show, since anyone may
// read it (a reason can name a member or quote a relay's reply).
type parkedView struct {
	Processor string        `json:"processor"`
	Parked    []parkedEvent `json:"parked"`
}

type parkedEvent struct {
	Position int64     `json:"position"`
	StreamID string    `json:"streamId"`
	Version  int64     `json:"version"`
	Type     string    `json:"type"`
	Reason   string    `json:"reason"`
	Attempts int       `json:"attempts"`
	ParkedAt time.Time `json:"parkedAt"`
}

func (h Routes) parked(w http.ResponseWriter, r *http.Request, name string) error {
	parked, err := h.Group.Parked(r.Context(), name)
	if err != nil {
		return err
	}
	view := parkedView{Processor: name, Parked: make([]parkedEvent, len(parked))}
	for i, p := range parked {
		e := p.Event
		view.Parked[i] = parkedEvent{Position: e.Position, StreamID: e.StreamID, Version: e.Version, Type: e.Type,
			Reason: p.Reason, Attempts: p.Attempts, ParkedAt: p.ParkedAt.UTC()}
	}
	httpapi.WriteJSON(w, r, http.StatusOK, view)
	return nil
}

// Package circulationhttp is the HTTP face of package circulation: GET and PUT
// /circulation-rules, the table and its version, and GET /circulation-rules/resolve, what the
// table says of one patron group and one material type, field by field, with the row that
// decided each. Who may call each route is the rules table's to say (package auth).
//
// It promises that the table is changed only on the version its client read: PUT takes that
// version in If-Match, as the ETag of GET gave it, and is refused with 428
// PreconditionRequired without one and 412 PreconditionFailed when the table has changed
// since; that a retry under the same Idempotency-Key is the first answer again, byte for byte;
// and that a table that is not valid is refused with 400 InvalidRequest naming the row and
// the field.
package circulationhttp

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"library/internal/circulation"
	"library/internal/errs"
	"library/internal/httpapi"
	"library/internal/httpapi/commandhttp"
)

// Routes are the circulation rules' endpoints.
type Routes struct {
	Service *circulation.Service
	// Defaults is the */* row the environment makes (circulation.Defaults), under the table.
	Defaults circulation.Row
}

// Routes implements httpapi.Module.
func (h Routes) Routes(r chi.Router) {
	r.Get("/circulation-rules", httpapi.Handle(h.get))
	r.Put("/circulation-rules", httpapi.Handle(h.set))
	r.Get("/circulation-rules/resolve", httpapi.Handle(h.resolve))
}

// rulesView is the table as GET /circulation-rules shows it: its version, its rows as they
// were set, and the row of defaults under them.
type rulesView struct {
	Version  int64             `json:"version"`
	Rows     []circulation.Row `json:"rows"`
	Defaults circulation.Row   `json:"defaults"`
}

func (h Routes) get(w http.ResponseWriter, r *http.Request) error {
	if _, err := httpapi.QueryParams(r, nil, "GET /circulation-rules takes no query parameters"); err != nil {
		return err
	}
	rules, err := h.Service.Get(r.Context())
	if err != nil {
		return err
	}
	rows := rules.Table.Rows
	if rows == nil {
		rows = []circulation.Row{}
	}
	w.Header().Set("ETag", etag(rules.Version))
	httpapi.WriteJSON(w, r, http.StatusOK, rulesView{Version: rules.Version, Rows: rows, Defaults: h.Defaults})
	return nil
}

// setBody is the body of PUT /circulation-rules as the strict decoder reads it: its rows are
// then read by circulation.DecodeTable, which names a row and its field in each refusal.
type setBody struct {
	Rows json.RawMessage `json:"rows"`
}

// set answers PUT /circulation-rules with the command's result, and the table's version after
// it as its ETag.
func (h Routes) set(w http.ResponseWriter, r *http.Request) error {
	origin, err := commandhttp.CommandOrigin(r)
	if err != nil {
		return err
	}
	ifVersion, err := ifMatch(r)
	if err != nil {
		return err
	}
	var body setBody
	if err := httpapi.DecodeJSON(r, &body); err != nil {
		return err
	}
	table, err := decodeRows(body.Rows)
	if err != nil {
		return err
	}
	result, err := h.Service.Set(r.Context(), circulation.SetRules(table), ifVersion, origin)
	if err != nil {
		return err
	}
	version := ifVersion
	if result.Recorded() {
		version++
	}
	w.Header().Set("ETag", etag(version))
	commandhttp.WriteResult(w, r, result)
	return nil
}

// decodeRows reads the rows of a body as circulation.DecodeTable does: nil is a body without.
func decodeRows(rows json.RawMessage) (circulation.Table, error) {
	if rows == nil {
		return circulation.DecodeTable([]byte(`{}`))
	}
	var doc bytes.Buffer
	doc.WriteString(`{"rows":`)
	doc.Write(rows)
	doc.WriteString(`}`)
	return circulation.DecodeTable(doc.Bytes())
}

// etag is the ETag of the table at version: the version, quoted.
func etag(version int64) string { return strconv.Quote(strconv.FormatInt(version, 10)) }

// ifMatch reads the version a PUT is made on from If-Match: the ETag GET gave ("3"), or the
// bare number. Without one, the request is refused: a table set on no version read would
// overwrite a colleague's without a word.
func ifMatch(r *http.Request) (int64, error) {
	values := r.Header.Values("If-Match")
	if len(values) == 0 {
		return 0, errs.E(errs.PreconditionRequired,
			"send If-Match with the ETag that GET /circulation-rules gave, so that a change made since is not overwritten")
	}
	v := strings.TrimSpace(values[0])
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		v = v[1 : len(v)-1]
	}
	// Digits alone: no sign, no escapes, no weak W/ ETag, no list, no *.
	version, err := strconv.ParseUint(v, 10, 63)
	if len(values) > 1 || err != nil {
		return 0, errs.E(errs.InvalidRequest, `If-Match must be one ETag of GET /circulation-rules, such as "3"`)
	}
	return int64(version), nil
}

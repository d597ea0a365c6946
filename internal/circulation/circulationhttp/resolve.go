package circulationhttp

import (
	"net/http"

	"library/internal/circulation"
	"library/internal/httpapi"
)

// resolveView is what GET /circulation-rules/resolve answers: the group and material type
// asked about, the table's version, and the terms, each field's value and, in from, the row
// that decided it (row -1 for the defaults).
type resolveView struct {
	Group        string            `json:"group"`
	MaterialType string            `json:"materialType"`
	Version      int64             `json:"version"`
	Terms        circulation.Terms `json:"terms"`
}

var resolveParameters = []string{"group", "materialType"}

func (h Routes) resolve(w http.ResponseWriter, r *http.Request) error {
	query, err := httpapi.QueryParams(r, resolveParameters, "GET /circulation-rules/resolve takes group and materialType")
	if err != nil {
		return err
	}
	group, materialType := query.Get("group"), query.Get("materialType")
	if err := circulation.CheckName("group", group); err != nil {
		return err
	}
	if err := circulation.CheckName("materialType", materialType); err != nil {
		return err
	}
	rules, err := h.Service.Get(r.Context())
	if err != nil {
		return err
	}
	w.Header().Set("ETag", etag(rules.Version))
	httpapi.WriteJSON(w, r, http.StatusOK, resolveView{Group: group, MaterialType: materialType, Version: rules.Version,
		Terms: rules.Table.Resolve(group, materialType, h.Defaults)})
	return nil
}

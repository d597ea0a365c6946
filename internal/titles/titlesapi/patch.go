package titlesapi

import (
	"context"
	"encoding/json"
	"mime"
	"net/http"

	"library/internal/aggregate"
	"library/internal/errs"
	"library/internal/httpapi"
	"library/internal/titles"
)

// MergePatchType is the media type of a JSON merge patch (RFC 7396), which PATCH
// /titles/{titleId} takes; application/json is read the same way.
const MergePatchType = "application/merge-patch+json"

// field is one member of a merge patch: left out (not Given), null (to remove), or a value.
type field[T any] struct {
	Given bool
	Null  bool
	Value T
}

// UnmarshalJSON is called only for a member the patch has, null included.
func (f *field[T]) UnmarshalJSON(b []byte) error {
	f.Given = true
	if string(b) == "null" {
		f.Null = true
		return nil
	}
	return json.Unmarshal(b, &f.Value)
}

// patchRequest is the body of PATCH /titles/{titleId}: a merge patch of the title's record.
type patchRequest struct {
	Title     field[string]   `json:"title"`
	Authors   field[[]string] `json:"authors"`
	ISBN      field[string]   `json:"isbn"`
	Year      field[int]      `json:"year"`
	Publisher field[string]   `json:"publisher"`
	Language  field[string]   `json:"language"`
	Subjects  field[[]string] `json:"subjects"`
}

// change answers PATCH /titles/{titleId}.
func (h Routes) change(ctx context.Context, titleID string, body patchRequest, o aggregate.Origin) (aggregate.Result, error) {
	c, err := body.command()
	if err != nil {
		return aggregate.Result{}, err
	}
	return h.Service.Change(ctx, titleID, c, o)
}

// command is the change the patch asks for: a member set is set, a member null removed (title
// and authors, which every title has, can't be), a member left out left as it is.
func (p patchRequest) command() (titles.ChangeTitle, error) {
	if p.Title.Null || p.Authors.Null {
		return titles.ChangeTitle{}, errs.E(errs.InvalidRequest, "title and authors can't be null: every title has them")
	}
	var c titles.ChangeTitle
	if p.Title.Given {
		c.Title = &p.Title.Value
	}
	if p.Authors.Given {
		c.Authors = nonNil(p.Authors.Value)
	}
	c.ISBN = setOrRemove(p.ISBN, titles.FieldISBN, &c.Remove)
	c.Year = setOrRemove(p.Year, titles.FieldYear, &c.Remove)
	c.Publisher = setOrRemove(p.Publisher, titles.FieldPublisher, &c.Remove)
	c.Language = setOrRemove(p.Language, titles.FieldLanguage, &c.Remove)
	if subjects := setOrRemove(p.Subjects, titles.FieldSubjects, &c.Remove); subjects != nil {
		c.Subjects = nonNil(*subjects)
	}
	return c, nil
}

// setOrRemove is the value of a member that is set, nil otherwise; a member that is null is
// added to remove, as name.
func setOrRemove[T any](f field[T], name string, remove *[]string) *T {
	switch {
	case f.Null:
		*remove = append(*remove, name)
	case f.Given:
		return &f.Value
	}
	return nil
}

// nonNil is list, or an empty list for none: a list that is given is never nil.
func nonNil(list []string) []string {
	if list == nil {
		return []string{}
	}
	return list
}

// mergePatchOnly refuses a JSON Patch (RFC 6902, application/json-patch+json), which the route
// does not read, with 415 and what it does read; any other body goes on to be read as JSON.
func mergePatchOnly(next http.Handler) http.HandlerFunc {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if mediaType, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err == nil && mediaType == "application/json-patch+json" {
			httpapi.WriteError(w, r, errs.E(errs.UnsupportedMediaType,
				"send a JSON merge patch (%s): the members to change, null for those to remove", MergePatchType))
			return
		}
		next.ServeHTTP(w, r)
	})
}

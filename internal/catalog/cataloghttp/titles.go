package cataloghttp

import (
	"net/http"

	"library/internal/catalog"
	"library/internal/httpapi"
)

// titleListView is the answer of GET /titles.
type titleListView struct {
	Titles []titleView `json:"titles"`
	// Position is the position of the last event the catalog has handled.
	Position int64 `json:"position"`
	// Next is the cursor of the next page, null on the last.
	Next *string `json:"next"`
}

// titleView is a title as GET /titles lists it: its record, an optional field null when the
// title has none, and its counts, as GET /titles/{titleId} shows them.
type titleView struct {
	ID        string     `json:"id"`
	Title     string     `json:"title"`
	Authors   []string   `json:"authors"`
	ISBN      *string    `json:"isbn"`
	Year      *int       `json:"year"`
	Publisher *string    `json:"publisher"`
	Language  *string    `json:"language"`
	Subjects  []string   `json:"subjects"`
	Counts    countsView `json:"counts"`
}

type countsView struct {
	Total        int `json:"total"`
	Available    int `json:"available"`
	HoldsWaiting int `json:"holdsWaiting"`
}

// titleParameters are the query parameters GET /titles takes.
var titleParameters = []string{"q", "available", "limit", "after", "minPosition"}

// titles answers GET /titles: a page of the catalog's titles. It shows everyone the same.
func (h Routes) titles(w http.ResponseWriter, r *http.Request) error {
	query, err := parseQuery(r, titleParameters, "GET /titles takes q, available, limit, after and minPosition")
	if err != nil {
		return err
	}
	filter, err := catalog.ParseTitleFilter(query.Get("q"), query.Get("available"), query.Get("limit"), query.Get("after"))
	if err != nil {
		return err
	}
	minPosition, err := parseMinPosition(query)
	if err != nil {
		return err
	}
	page, pos, err := h.Query.Titles(r.Context(), filter, minPosition, httpapi.ClientKey(r))
	if err != nil {
		return err
	}
	view := titleListView{Titles: make([]titleView, len(page.Titles)), Position: pos.Checkpoint.Position}
	for i, t := range page.Titles {
		view.Titles[i] = viewOf(t)
	}
	if next := page.Next(); next != "" {
		view.Next = &next
	}
	httpapi.WriteJSON(w, r, http.StatusOK, view)
	return nil
}

func viewOf(t catalog.Title) titleView {
	subjects := t.Subjects
	if subjects == nil {
		subjects = []string{}
	}
	return titleView{ID: t.ID, Title: t.Title, Authors: t.Authors, ISBN: given(t.ISBN), Year: given(t.Year),
		Publisher: given(t.Publisher), Language: given(t.Language), Subjects: subjects,
		Counts: countsView{Total: t.Counts.Total, Available: t.Counts.Available, HoldsWaiting: t.Counts.HoldsWaiting}}
}

// given is nil for a field's zero value, which is its absence, and the value otherwise.
func given[T comparable](v T) *T {
	var zero T
	if v == zero {
		return nil
	}
	return &v
}

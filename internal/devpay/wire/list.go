package wire

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"
)

// Stripe's lists: a page of objects, newest first, that a client walks with limit and a
// cursor, starting_after (the next, older page) or ending_before (the previous, newer one).

// PageParams are the page a list call asks for: Limit objects (1 to 100, default 10) after the
// object StartingAfter or before the object EndingBefore, or from the newest.
type PageParams struct {
	Limit                       int
	StartingAfter, EndingBefore string
}

// pageParams are the parameters of a page.
var pageParams = []string{"limit", "starting_after", "ending_before"}

const (
	defaultLimit = 10
	maxLimit     = 100
)

// parsePage reads the page parameters of a list call, as Stripe checks them.
func parsePage(form url.Values) (PageParams, *Error) {
	p := PageParams{Limit: defaultLimit, StartingAfter: form.Get("starting_after"), EndingBefore: form.Get("ending_before")}
	if v, given := form["limit"]; given {
		n, err := strconv.Atoi(v[0])
		switch {
		case err != nil:
			return PageParams{}, invalid("limit", "Invalid integer: %s.", v[0])
		case n < 1:
			return PageParams{}, invalid("limit", "This value must be greater than or equal to 1.")
		case n > maxLimit:
			return PageParams{}, invalid("limit", "This value must be less than or equal to %d.", maxLimit)
		}
		p.Limit = n
	}
	if p.StartingAfter != "" && p.EndingBefore != "" {
		return PageParams{}, invalid("ending_before", "You may only specify one of these parameters: ending_before, starting_after.")
	}
	return p, nil
}

// Page is the page of items (newest first) that p asks for, and whether the list goes on
// beyond it: past its last item after starting_after or from the newest, before its first
// after ending_before. A cursor that is none of items' ids (by idOf) is refused as Stripe
// refuses an unknown object, named by its kind ("refund").
func Page[T any](items []T, idOf func(T) string, p PageParams, kind string) ([]T, bool, *Error) {
	cursor := func(param, id string) (int, *Error) {
		i := slices.IndexFunc(items, func(item T) bool { return idOf(item) == id })
		if i < 0 {
			return 0, &Error{Type: InvalidRequest, Param: param, Code: "resource_missing",
				Message: fmt.Sprintf("No such %s: '%s'", kind, id)}
		}
		return i, nil
	}
	switch {
	case p.StartingAfter != "":
		i, err := cursor("starting_after", p.StartingAfter)
		if err != nil {
			return nil, false, err
		}
		end := min(len(items), i+1+p.Limit)
		return items[i+1 : end], end < len(items), nil
	case p.EndingBefore != "":
		i, err := cursor("ending_before", p.EndingBefore)
		if err != nil {
			return nil, false, err
		}
		start := max(0, i-p.Limit)
		return items[start:i], start > 0, nil
	default:
		end := min(len(items), p.Limit)
		return items[:end], end < len(items), nil
	}
}

type list struct {
	Object  string            `json:"object"`
	Data    []json.RawMessage `json:"data"`
	HasMore bool              `json:"has_more"`
	URL     string            `json:"url"`
}

// ListObject is Stripe's list object of a page of objects' JSON, listed at a path such as
// /v1/refunds.
func ListObject(path string, objects [][]byte, hasMore bool) []byte {
	l := list{Object: "list", Data: make([]json.RawMessage, len(objects)), HasMore: hasMore, URL: path}
	for i, o := range objects {
		l.Data[i] = o
	}
	return MustJSON(l)
}

package app

import (
	"context"

	"library/internal/aggregate"
	"library/internal/books"
	"library/internal/titles"
)

// shelves are the titles as the books' copies need them (books.Titles), on the titles'
// service: a copy's BookAdded and its title's CopyAdded (and TitleAdded, for the title made for
// a book added on its own) are written in one append.
type shelves struct {
	titles *titles.Service
}

var _ books.Titles = shelves{}

func (s shelves) Record(ctx context.Context, titleID string) (string, []string, error) {
	t, _, err := s.titles.Get(ctx, titleID)
	return t.Title, t.Authors, err
}

func (s shelves) WithISBN(ctx context.Context, isbn13 string) (string, error) {
	return s.titles.WithISBN(ctx, isbn13)
}

func (s shelves) Shelve(ctx context.Context, c books.Shelving) (aggregate.Also, error) {
	shelve := titles.ShelveCopy{BookID: c.BookID, Barcode: c.Barcode}
	if r := c.Record; r != nil {
		record := titles.AddTitle{ID: c.TitleID, Title: r.Title, Authors: []string{r.Author}}
		if r.ISBN != "" {
			record.ISBN = &r.ISBN
		}
		shelve.Record = &record
	}
	return s.titles.Shelve(ctx, c.TitleID, shelve)
}

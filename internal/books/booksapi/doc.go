// Package booksapi is the HTTP face of package books: POST /books, GET /books/{bookId} and a
// book's loans and returns, each a command run through books.Service, answered in the API's
// result shape (docs/api.md). GET /books, the catalog's list, is package catalog.
//
// It promises that a read shows a borrower to staff only (a member sees whether a loan is
// theirs), as catalogview.For does for the list; who may call each route is the rules table's
// to say (package auth).
package booksapi

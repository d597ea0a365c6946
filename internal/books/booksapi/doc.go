// Package booksapi is the HTTP face of package books: POST /books, POST
// /titles/{titleId}/copies, GET /books/{bookId} and a book's loans and returns, and a loan lost
// or claimed returned (lost.go), each a command
// run through books.Service, answered in the API's result shape (docs/api.md). GET /books, the
// catalog's list, and its finding a copy by barcode, are package cataloghttp.
//
// It promises that a copy added without an id gets one derived from the request's
// Idempotency-Key (then required), so that a retry adds nothing twice; and that a read shows a
// borrower to staff only (a member sees whether a loan is theirs), as catalogview.For does for
// the list. Who may call each route is the rules table's to say (package auth).
package booksapi

// Package importcell measures the catalogue import on a service process and a database of
// its own: `library import marc` of a generated catalogue of a million records, the views and
// sagas catching up after it, and beside it PostgreSQL's own COPY of as many rows into a bare
// table and into a table shaped like the log (Import). What it reports is what one run saw; it
// changes nothing outside the database it was given.
package importcell

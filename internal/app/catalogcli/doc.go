// Package catalogcli is the catalogue on the command line: `library import marc FILE...`
// (ImportMARC) records the titles and copies of MARC 21 files through package catalogimport,
// a few batches in flight at once, with a report of every record refused and a progress bar or
// lines; `library export marc` (ExportMARC) writes the catalogue back as MARCXML with its
// holdings. Both open the log the way every command of the command line does (package app's
// OpenLog: a migrated database, never migrated here), and an import stopped at any point and
// started again records what the first did not, and nothing twice.
package catalogcli

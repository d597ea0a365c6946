// Package catalogimport records a catalogue brought in from another library system: titles and
// their copies, read from a file by its caller (package marc reads MARC 21), written to the log
// as the commands that add titles and copies write them, but many records to a transaction.
//
// What it promises:
//
//   - The same file imported again records nothing. A title's identity in the import is the
//     record's control number (TitleID): a record whose title is there already is compared with
//     it, field by field, and records TitleChanged with what changed, or nothing; its copies
//     (by barcode, CopyID) that the title has already record nothing.
//   - An import stopped anywhere and started again ends with the same log as one that never
//     stopped. A batch is written in one transaction, all of it or none (eventstore.Bulk), and
//     every decision is taken again from the log as it is: a batch written before the stop is
//     found there, and records nothing the second time.
//   - Nothing a person did not ask for: a record matches a title by control number, then by
//     ISBN (the title that holds it), and never by a guess. A copy whose barcode another copy
//     holds is refused, and the rest of its record is recorded.
//   - A record that can't be a title (no title, or a field the catalogue can't keep and can't
//     do without) is refused and reported with its place and why; the import goes on past it.
//     Fields the catalogue can't keep but can do without (an ISBN whose check digit is wrong, a
//     language code ISO 639 does not list, a year to come, more authors or subjects than a
//     title keeps) are left out or cut, and reported as warnings.
//
// Titles whose streams, and whose copies' and their reservations' streams, are all new (an
// import into a library that has none of them: nearly every record of a first import) are
// written through eventstore.Bulk, many to a transaction. A record that meets anything already
// in the log goes through the titles' and books' own commands, one at a time, under command
// ids made from the record, so that each decision is the one a librarian's request would get;
// but for those whose title is there as the record has it, copies and all (an import started
// again meets these by the thousand), which a batch finds so in one read of the titles'
// streams, and which the commands would leave as they are.
package catalogimport

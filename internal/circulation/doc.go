// Package circulation is the library's circulation rules: a table that says, for each patron
// group and material type, how long a loan lasts, how often it may be renewed, how many loans
// of that type a patron may have at once, what a late day costs and the most a late return
// costs, what may be held and how long a hold waits, whether the type is lent at all, and
// after how many open days an unreturned item is lost. It is plain Go, with no I/O: the table
// is one stream in the log (circulation-rules), folded here, and the services that lend, renew,
// hold and fine read it through Table.Resolve. A row may also set the default price of a lost
// copy of its material type (replacementPrice), which a copy with no price of its own costs.
//
// # Rows and precedence
//
// A Row is keyed by a patron group and a material type, names the library chooses, either of
// which may be Any ("*"), and sets any of its fields: a row says only what differs. For one
// group and type, each field is resolved on its own, by the most specific row that sets it:
//
//  1. the row (group, type);
//  2. then (group, *);
//  3. then (*, type);
//  4. then (*, *);
//  5. then the environment's defaults (Defaults).
//
// So a group's row beats a type's row: a staff member's DVD loan takes the staff row's loan
// period over the DVD row's, where the staff row sets one. Terms.From says which row decided
// each field, by its key and its index in the table (DefaultsRow for the environment's).
//
// # Defaults
//
// Defaults makes a */* row from the environment's numbers (LOAN_PERIOD and HOLD_PICKUP as exact
// periods, RENEWALS_MAX, MAX_LOANS, FINE_PER_DAY), with holds on titles, everything lent, lost
// after DefaultLostAfter open days, and fines capped at the replacement price. It sets every
// field, and it sits under the table rather than in it: a library that never set a table is
// lent to on it alone; a table without a */* row takes all of its fields from it; a table whose
// */* row leaves a field unset takes that field from it. Its replacement price is 0: a lost
// copy with no price of its own is charged nothing until a row sets its type's. Changing the environment changes what
// those fields resolve to; the table, in the log, does not change with it.
//
// # What validation refuses
//
// Table.Validate refuses, with an errs.InvalidRequest error naming the row (rows[i] and its
// key) and the field: a group or material type that is neither "*" nor 1 to MaxNameLength
// characters from a-z 0-9 - _; two rows with one key; a period that is not more than zero; a
// negative count or amount, or one over its bound; a lostAfter under 1; a holds other than
// "title", "copy" or "none"; more than MaxRows rows. DecodeTable reads a client's table
// strictly, refusing and naming an unknown field.
//
// # What a loan keeps
//
// A loan keeps LoanTerms, the terms it was made on, and its fine is Fine of them: a table
// changed while the book is out changes nothing of the loans made before.
package circulation

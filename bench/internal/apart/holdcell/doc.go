// Package holdcell measures holds on a title with a long queue whose copies come back at once,
// on a service process, a database and an SMTP sink of their own (Holds): a hold's cost by its
// place in the queue, and the returns that each hold a copy for the next member waiting.
package holdcell

package eventstore

import "time"

// StallAfter is how long the read horizon may stay behind one running transaction before it
// counts as stalled: appends take milliseconds, so a transaction open this long is something
// else (a migration, a session left idle in a transaction, a long report).
const StallAfter = time.Second

// Stall says that the log's read horizon is held back: a transaction still running somewhere in
// the PostgreSQL cluster began before events that have committed since, and ReadAll returns
// none of them until it ends (see the package comment). The PostgreSQL store reports it
// (package pgstore); the memory store has no horizon.
type Stall struct {
	// Since is when the holding transaction began, as PostgreSQL shows it, or else when this
	// process first saw the horizon stand at it.
	Since time.Time
	// PID, Database and Application describe the holding backend, where PostgreSQL shows them:
	// the role that reads may lack the right to see other roles' sessions. Zero when unknown.
	PID         int
	Database    string
	Application string
}

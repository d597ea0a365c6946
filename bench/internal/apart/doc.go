// Package apart holds the measurements that need a service process, and a database, of
// their own, so that nothing else the run does is counted in them: the outbox against a slow
// relay and draining a backlog (Relay), a standby taking over after SIGKILL and SIGTERM
// (Takeover), the catalog at 100,000 books (Catalog), an account's first read and payment
// after a restart on long streams (Cold), due timers firing beside payments (Timers), a title
// with a long queue of holds whose copies come back at once (Holds), the titles search
// (Titles), checkouts at kiosks over SIP2 and HTTP (Kiosks), and a catalogue imported from a
// generated MARC file beside PostgreSQL's own COPY (Import).
package apart

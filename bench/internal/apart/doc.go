// Package apart holds the measurements that need a service process, and a database, of
// their own, so that nothing else the run does is counted in them: the outbox against a slow
// relay and draining a backlog (Relay), a standby taking over after SIGKILL and SIGTERM
// (Takeover), the catalog at 100,000 books (Catalog), an account's first read and payment
// after a restart on long streams (Cold), and the titles search (Titles). The larger ones have
// packages of their own below it: due timers firing beside payments (timercell), a title with
// a long queue of holds (holdcell), checkouts at kiosks over SIP2 and HTTP (kioskcell), and a
// catalogue imported from a generated MARC file beside PostgreSQL's own COPY (importcell).
package apart

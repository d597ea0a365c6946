// Package faults is the fault suite: it breaks the things the service depends on, with two
// real processes of the built binary, one PostgreSQL and one SMTP server, and checks after each
// fault that nothing was lost and nothing done twice. Its tests carry the build tag "faults" so
// that they run on their own, with `make faults`:
//
//   - twenty SIGKILLs of random replicas during 500 loans and 500 keyed payments with client
//     retries (kill_test.go);
//   - a PostgreSQL restart during load (restart_test.go);
//   - the lease holder's link to PostgreSQL blackholed (blackhole_test.go);
//   - the SMTP server down for 30 seconds, and a slow SMTP server (smtp_test.go);
//   - a relay that stalls one recipient and refuses another while it takes everyone else's
//     mail (smtp_recipient_test.go);
//   - a flood from one client, far past RATE_LIMIT, while another pays (flood_test.go);
//   - a SIGKILL of the outbox's holder while 100 loans' due-soon reminders fire, then overdue
//     notices at their pace, none after a return or a renewal (reminders_test.go);
//   - twenty-four members going round one book's hold shelf, through two SIGKILLs of the replica
//     that runs the saga and the outbox (holds_test.go);
//   - a day closed that 100 loans are due on, through a SIGKILL of the due-dates saga's holder
//     while it moves them: each moved once, each due-soon reminder once for the new due time
//     (duedates_test.go);
//   - eight SIGKILLs of the replica a self-check kiosk is on, each in the middle of a checkout
//     that the kiosk then resends to the other replica over SIP2 (kiosk_test.go);
//   - an import of 200,000 MARC records SIGKILLed three times and started again, which ends
//     with a clean run's log (import_test.go).
//
// After each fault the suite checks the invariants (invariants_test.go): every payment recorded
// once, every loan emailed at least once and duplicates counted, checkpoints never moved back,
// no event skipped. Each test prints a line starting "FAULTS" with its figures, which
// docs/reliability.md quotes.
//
// The tests that spend most of their time waiting for the clock (a hold's pickup time, a
// reminder's due time, a relay's retry schedule) run in parallel, each on a database and an SMTP
// server of its own, after the others: Go runs parallel tests once the package's serial ones are
// done, so none of them overlaps the PostgreSQL restart, and the suite takes the longest of them
// rather than their sum.
package faults

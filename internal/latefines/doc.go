// Package latefines is the late-fines saga: it reads the books' BookReturned events from the
// log, under the "late-fines" lease (package processor), and fines each late return
// daysLate * FINE_PER_DAY cents on the member's account.
//
// It promises one fine per loan however often it runs, a replay of the whole log included,
// and that a replay writes nothing at all (see Saga). It reads the books' events, and charges
// through Charger, an interface of its own that internal/app fills with accounts.Service, so it
// holds no other feature's service.
package latefines

package workload

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"sync"
)

// The contact changes (contacts): what the service seals. A member's name and email are
// personal data: the service seals them with the member's data key, wrapped by PII_KEY, in
// every AccountOpened and ContactChanged it appends, while a payment carries none and touches
// sealed values only on a cold load or a snapshot. Measured against the service and, with
// BENCH_BEFORE, the build before it, their ratio at concurrency 8 beside the payments' is
// what sealing (and the keyed fingerprints every command with a key pays) costs.
//
// The sizes and labels of the measurement:
const (
	ContactsLabel = "contacts"
	// SealingConcurrency is the level the cost of sealing is judged at.
	SealingConcurrency = 8
	// SealingFloor is the least throughput, against the build before, that keeps crypto's cost
	// within 10%.
	SealingFloor = 0.90
)

// Contacts changes the name and email of accounts opened in setup with PUT /accounts/{id} and
// a fresh Idempotency-Key, each worker on its own accounts (account i belongs to worker i mod
// concurrency), each request to the other of the account's two contacts, so that every one
// records a ContactChanged and seals it.
type Contacts struct {
	API      *Client
	Accounts int
	// current is, per account, whether it holds its second contact. Within a cell an account
	// is one worker's; the cells run one after another.
	current []bool
}

// Name implements Measurement: the rows' label.
func (m *Contacts) Name() string { return ContactsLabel }

// Close implements Measurement.
func (m *Contacts) Close() {}

// contactAccount is the member id of contact account i: no email address, as new ids must not be.
func contactAccount(i int) string { return fmt.Sprintf("bench-contact-%d", i) }

// contactBody is account i's first contact, or its second, as the body of a PUT.
func contactBody(i int, second bool) string {
	if second {
		return fmt.Sprintf(`{"name":"Member %d Renamed","email":"member%d.renamed@example.com"}`, i, i)
	}
	return fmt.Sprintf(`{"name":"Member %d","email":"member%d@example.com"}`, i, i)
}

// Setup opens the accounts with their first contacts, a few at a time, so that the cells
// time changes only: an account's first PUT makes its data key too.
func (m *Contacts) Setup(ctx context.Context) error {
	const parallel = 8
	m.current = make([]bool, m.Accounts)
	errs := make(chan error, m.Accounts)
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	for i := range m.Accounts {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			path := "/accounts/" + url.PathEscape(contactAccount(i))
			a, err := m.API.send(ctx, http.MethodPut, path, "", contactBody(i, false))
			if err == nil && a.Status != http.StatusCreated {
				err = fmt.Errorf("PUT %s: %d %s", path, a.Status, bytes.TrimSpace(a.Body))
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// Prepare implements Measurement.
func (m *Contacts) Prepare(_ context.Context, concurrency int) (Operation, error) {
	counts := make([]int, concurrency)
	owned := func(worker int) int { return (m.Accounts - worker + concurrency - 1) / concurrency }
	return func(ctx context.Context, worker int) error {
		n := counts[worker]
		counts[worker]++
		i := worker + (n%owned(worker))*concurrency
		next := !m.current[i]
		path := "/accounts/" + url.PathEscape(contactAccount(i))
		key := fmt.Sprintf("contact-c%d-w%d-%d", concurrency, worker, n)
		a, err := m.API.send(ctx, http.MethodPut, path, key, contactBody(i, next))
		if err != nil {
			return err
		}
		switch a.Status {
		case http.StatusCreated:
			m.current[i] = next
			return nil
		case http.StatusOK: // it held that contact already (an earlier answer was lost): in step again
			m.current[i] = next
			return fmt.Errorf("PUT %s: 200, nothing recorded", path)
		}
		return fmt.Errorf("PUT %s: %d %s", path, a.Status, bytes.TrimSpace(a.Body))
	}, nil
}

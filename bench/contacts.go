package main

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

const (
	contactsLabel = "contacts"
	// sealingConcurrency is the level the cost of sealing is judged at.
	sealingConcurrency = 8
	// sealingFloor is the least throughput, against the build before, that keeps crypto's cost
	// within 10%.
	sealingFloor = 0.90
)

// contacts changes the name and email of accounts opened in setup with PUT /accounts/{id} and
// a fresh Idempotency-Key, each worker on its own accounts (account i belongs to worker i mod
// concurrency), each request to the other of the account's two contacts, so that every one
// records a ContactChanged and seals it.
type contacts struct {
	api      *apiClient
	accounts int
	// current is, per account, whether it holds its second contact. Within a cell an account
	// is one worker's; the cells run one after another.
	current []bool
}

func (m *contacts) name() string { return contactsLabel }
func (m *contacts) close()       {}

// contactAccount is the member id of contact account i: no email address, as new ids must not be.
func contactAccount(i int) string { return fmt.Sprintf("bench-contact-%d", i) }

// contactBody is account i's first contact, or its second, as the body of a PUT.
func contactBody(i int, second bool) string {
	if second {
		return fmt.Sprintf(`{"name":"Member %d Renamed","email":"member%d.renamed@example.com"}`, i, i)
	}
	return fmt.Sprintf(`{"name":"Member %d","email":"member%d@example.com"}`, i, i)
}

// setup opens the accounts with their first contacts, a few at a time, so that the cells
// time changes only: an account's first PUT makes its data key too.
func (m *contacts) setup(ctx context.Context) error {
	const parallel = 8
	m.current = make([]bool, m.accounts)
	errs := make(chan error, m.accounts)
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	for i := range m.accounts {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			path := "/accounts/" + url.PathEscape(contactAccount(i))
			a, err := m.api.send(ctx, http.MethodPut, path, "", contactBody(i, false))
			if err == nil && a.status != http.StatusCreated {
				err = fmt.Errorf("PUT %s: %d %s", path, a.status, bytes.TrimSpace(a.body))
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

func (m *contacts) prepare(_ context.Context, concurrency int) (operation, error) {
	counts := make([]int, concurrency)
	owned := func(worker int) int { return (m.accounts - worker + concurrency - 1) / concurrency }
	return func(ctx context.Context, worker int) error {
		n := counts[worker]
		counts[worker]++
		i := worker + (n%owned(worker))*concurrency
		next := !m.current[i]
		path := "/accounts/" + url.PathEscape(contactAccount(i))
		key := fmt.Sprintf("contact-c%d-w%d-%d", concurrency, worker, n)
		a, err := m.api.send(ctx, http.MethodPut, path, key, contactBody(i, next))
		if err != nil {
			return err
		}
		switch a.status {
		case http.StatusCreated:
			m.current[i] = next
			return nil
		case http.StatusOK: // it held that contact already (an earlier answer was lost): in step again
			m.current[i] = next
			return fmt.Errorf("PUT %s: 200, nothing recorded", path)
		}
		return fmt.Errorf("PUT %s: %d %s", path, a.status, bytes.TrimSpace(a.body))
	}, nil
}

// sealingRatios are contacts' and commands' throughput over the before build's at
// sealingConcurrency; ok is false unless both were measured.
func (r report) sealingRatios() (contactsRatio, paymentsRatio float64, ok bool) {
	ratio := func(label string) (float64, bool) {
		now, okN := r.cellAt(label, sealingConcurrency)
		was, okW := r.cellAt(label+beforeSuffix, sealingConcurrency)
		if !okN || !okW || was.Throughput() <= 0 {
			return 0, false
		}
		return now.Throughput() / was.Throughput(), true
	}
	c, okC := ratio(contactsLabel)
	p, okP := ratio("commands")
	return c, p, okC && okP
}

// sealingLine is the cost of sealing in one line, "" when it was not measured.
func (r report) sealingLine() string {
	c, p, ok := r.sealingRatios()
	if !ok {
		return ""
	}
	return fmt.Sprintf("sealing personal data: contact changes at concurrency %d are %.2f× of the build before it; payments %.2f×",
		sealingConcurrency, c, p)
}

// sealingTarget adds crypto's cost: contact changes and payments at concurrency 8 against the
// build at BENCH_BEFORE.
func (r report) sealingTarget(t *targetRows) {
	target := fmt.Sprintf("crypto costs at most 10%% of command throughput (≥ %.2f × before)", sealingFloor)
	as := fmt.Sprintf("ops/s at concurrency %d of contact changes and of payments, against the build at BENCH_BEFORE", sealingConcurrency)
	c, p, ok := r.sealingRatios()
	if !ok {
		if r.BeforeCommit == "" {
			t.missing(target, as+" (needs BENCH_BEFORE)")
		} else {
			t.missing(target, as+" (not in BENCH_CONCURRENCY)")
		}
		return
	}
	t.add(target, as, fmt.Sprintf("contacts %.2f ×, payments %.2f ×", c, p), c >= sealingFloor && p >= sealingFloor)
}

// sealingSection is the contact changes beside the build before's, at each concurrency.
func (r report) sealingSection() section {
	s := section{
		title: "Sealing personal data",
		notes: []string{
			fmt.Sprintf("The **%s** rows of the throughput table: every `PUT /accounts/{id}` changes the name and the email of an account opened before the cells, so the service seals both with the member's data key (AES-256-GCM, the key read from `member_keys` and unwrapped with `PII_KEY`) in the `ContactChanged` it appends; each also carries an `Idempotency-Key`, fingerprinted with the installation's key, as the payments do. A payment carries no personal data. Against the build at `BENCH_BEFORE`, which seals nothing and hashes fingerprints without a key, the ratios charge to crypto everything else that changed since, too; the target is met when both contact changes and payments at concurrency %d are at least %.2f × the build before's.", contactsLabel, sealingConcurrency, sealingFloor),
		},
		align:  "|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
		header: []string{"concurrency", "contacts/s", "p50", "p99", "before contacts/s", "before p50", "before p99", "contacts vs before", "payments vs before"},
	}
	if line := r.sealingLine(); line != "" {
		c, p, _ := r.sealingRatios()
		s.lines = append(s.lines, fmt.Sprintf("**%s**. Crypto at most 10%% of command throughput: %s.",
			line, verdict(c >= sealingFloor && p >= sealingFloor)))
	} else {
		s.lines = append(s.lines, fmt.Sprintf("The cost of sealing was not measured: it needs `BENCH_BEFORE` and concurrency %d.", sealingConcurrency))
	}
	vs := func(label string, c int) string {
		now, okN := r.cellAt(label, c)
		was, okW := r.cellAt(label+beforeSuffix, c)
		if !okN || !okW || was.Throughput() <= 0 {
			return "—"
		}
		return fmt.Sprintf("%.2f ×", now.Throughput()/was.Throughput())
	}
	for _, c := range r.Config.Concurrency {
		now, ok := r.cellAt(contactsLabel, c)
		if !ok {
			continue
		}
		row := []string{fmt.Sprint(c), fmt.Sprintf("%.0f", now.Throughput()), formatLatency(now.P50), formatLatency(now.P99), "—", "—", "—"}
		if was, ok := r.cellAt(contactsLabel+beforeSuffix, c); ok {
			row[4], row[5], row[6] = fmt.Sprintf("%.0f", was.Throughput()), formatLatency(was.P50), formatLatency(was.P99)
		}
		s.rows = append(s.rows, append(row, vs(contactsLabel, c), vs("commands", c)))
	}
	return s
}

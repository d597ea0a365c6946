package report

import (
	"fmt"

	"library/bench/internal/figures"
	"library/bench/internal/workload"
)

// sealingRatios are contacts' and commands' throughput over the before build's at
// workload.SealingConcurrency; ok is false unless both were measured.
func (r Report) sealingRatios() (contactsRatio, paymentsRatio float64, ok bool) {
	ratio := func(label string) (float64, bool) {
		now, okN := r.cellAt(label, workload.SealingConcurrency)
		was, okW := r.cellAt(label+workload.BeforeSuffix, workload.SealingConcurrency)
		if !okN || !okW || was.Throughput() <= 0 {
			return 0, false
		}
		return now.Throughput() / was.Throughput(), true
	}
	c, okC := ratio(workload.ContactsLabel)
	p, okP := ratio("commands")
	return c, p, okC && okP
}

// sealingLine is the cost of sealing in one line, "" when it was not measured.
func (r Report) sealingLine() string {
	c, p, ok := r.sealingRatios()
	if !ok {
		return ""
	}
	return fmt.Sprintf("sealing personal data: contact changes at concurrency %d are %.2f× of the build before it; payments %.2f×",
		workload.SealingConcurrency, c, p)
}

// sealingTarget adds crypto's cost: contact changes and payments at concurrency 8 against the
// build at BENCH_BEFORE.
func (r Report) sealingTarget(t *TargetRows) {
	target := fmt.Sprintf("crypto costs at most 10%% of command throughput (≥ %.2f × before)", workload.SealingFloor)
	as := fmt.Sprintf("ops/s at concurrency %d of contact changes and of payments, against the build at BENCH_BEFORE", workload.SealingConcurrency)
	c, p, ok := r.sealingRatios()
	if !ok {
		if r.BeforeCommit == "" {
			t.missing(target, as+" (needs BENCH_BEFORE)")
		} else {
			t.missing(target, as+" (not in BENCH_CONCURRENCY)")
		}
		return
	}
	t.add(target, as, fmt.Sprintf("contacts %.2f ×, payments %.2f ×", c, p), c >= workload.SealingFloor && p >= workload.SealingFloor)
}

// sealingSection is the contact changes beside the build before's, at each concurrency.
func (r Report) sealingSection() Section {
	s := Section{
		Title: "Sealing personal data",
		notes: []string{
			fmt.Sprintf("The **%s** rows of the throughput table: every `PUT /accounts/{id}` changes the name and the email of an account opened before the cells, so the service seals both with the member's data key (AES-256-GCM, the key read from `member_keys` and unwrapped with `PII_KEY`) in the `ContactChanged` it appends; each also carries an `Idempotency-Key`, fingerprinted with the installation's key, as the payments do. A payment carries no personal data. Against the build at `BENCH_BEFORE`, which seals nothing and hashes fingerprints without a key, the ratios charge to crypto everything else that changed since, too; the target is met when both contact changes and payments at concurrency %d are at least %.2f × the build before's.", workload.ContactsLabel, workload.SealingConcurrency, workload.SealingFloor),
		},
		align:  "|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
		Header: []string{"concurrency", "contacts/s", "p50", "p99", "before contacts/s", "before p50", "before p99", "contacts vs before", "payments vs before"},
	}
	if line := r.sealingLine(); line != "" {
		c, p, _ := r.sealingRatios()
		s.lines = append(s.lines, fmt.Sprintf("**%s**. Crypto at most 10%% of command throughput: %s.",
			line, verdict(c >= workload.SealingFloor && p >= workload.SealingFloor)))
	} else {
		s.lines = append(s.lines, fmt.Sprintf("The cost of sealing was not measured: it needs `BENCH_BEFORE` and concurrency %d.", workload.SealingConcurrency))
	}
	vs := func(label string, c int) string {
		now, okN := r.cellAt(label, c)
		was, okW := r.cellAt(label+workload.BeforeSuffix, c)
		if !okN || !okW || was.Throughput() <= 0 {
			return "—"
		}
		return fmt.Sprintf("%.2f ×", now.Throughput()/was.Throughput())
	}
	for _, c := range r.Config.Concurrency {
		now, ok := r.cellAt(workload.ContactsLabel, c)
		if !ok {
			continue
		}
		row := []string{fmt.Sprint(c), fmt.Sprintf("%.0f", now.Throughput()), figures.FormatLatency(now.P50), figures.FormatLatency(now.P99), "—", "—", "—"}
		if was, ok := r.cellAt(workload.ContactsLabel+workload.BeforeSuffix, c); ok {
			row[4], row[5], row[6] = fmt.Sprintf("%.0f", was.Throughput()), figures.FormatLatency(was.P50), figures.FormatLatency(was.P99)
		}
		s.Rows = append(s.Rows, append(row, vs(workload.ContactsLabel, c), vs("commands", c)))
	}
	return s
}

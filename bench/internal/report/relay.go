package report

import (
	"fmt"
	"time"

	"library/bench/internal/apart"
	"library/bench/internal/figures"
)

// relaySection is the slow relay's and the backlog's figures.
func (r Report) relaySection() Section {
	slow, drain := r.Relay.Slow, r.Relay.Drain
	s := Section{
		Title: "Slow relay and backlog",
		notes: []string{
			fmt.Sprintf("A service process of its own, at its default settings (up to 16 emails in flight), on a database of its own, sending to an SMTP server of its own. *Slow relay*: the server waits %s before each `250` to DATA, as a provider some way off answers; %d lenders make %d loans of books added beforehand, as fast as the service takes them, and the time is from the first loan's `201` to the last email. *Backlog*: the server answers every MAIL FROM with `421 4.3.2` while %d loans are made, so the outbox pauses and they pile up; then it accepts again, without delay. *first email to last* is the pace of sending the backlog; *relay back to last email* adds the wait for the outbox's next probe (its backoff doubles from 100 ms to at most 5 s): here the first email came %s after the relay was back. *most conversations at once* is the most mail transactions (MAIL FROM to the end of DATA) the server had open at once.",
				figures.FormatLatency(apart.SlowRelayDelay), apart.RelayLenders, apart.SlowRelayLoans, apart.BacklogLoans, figures.FormatLatency(r.Relay.Resumed)),
		},
		align:  "|---|--:|--:|--:|--:|--:|--:|",
		Header: []string{"run", "loans", "seconds", "emails/s", "most conversations at once", "duplicates", "missing"},
	}
	row := func(run string, x apart.RelayRun, span time.Duration, rate float64) {
		loans := fmt.Sprint(x.Loans)
		if x.Errors > 0 {
			loans += fmt.Sprintf(" (%d errors)", x.Errors)
		}
		s.Rows = append(s.Rows, []string{run, loans, fmt.Sprintf("%.2f", span.Seconds()), fmt.Sprintf("%.0f", rate),
			fmt.Sprint(x.MostConversations), fmt.Sprint(x.Duplicates), fmt.Sprint(x.Missing)})
	}
	row(fmt.Sprintf("slow relay, %s per message: first loan to last email", figures.FormatLatency(apart.SlowRelayDelay)), slow, slow.Span, slow.EmailsPerSecond)
	row("backlog, 0 ms: first email to last", drain, drain.Span, drain.EmailsPerSecond)
	row("backlog, 0 ms: relay back to last email", drain, r.Relay.FromSwitch, r.Relay.FromSwitchPerSecond)
	for _, x := range []apart.RelayRun{slow, drain} {
		if x.FirstError != "" {
			s.notes = append(s.notes, "First error: `"+x.FirstError+"`")
		}
	}
	return s
}

package app_test

// GET /metrics on both stores: requests by route pattern, commands by outcome, replays, the
// processors and the loan emails, as Prometheus reads them.

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/app"
	"library/internal/testkit/smtptest"
)

// scraped is one GET /metrics: its text and its parsed families.
type scraped struct {
	text     string
	families map[string]*dto.MetricFamily
}

func scrapeMetrics(t *testing.T, a *api) scraped {
	t.Helper()
	require.NotEmpty(t, a.Metrics, "the test knows the service's METRICS_ADDR")
	resp, err := http.Get(a.Metrics + "/metrics")
	require.NoError(t, err)
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, "body: %s", body)
	require.True(t, strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain"), resp.Header.Get("Content-Type"))
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(body))
	require.NoError(t, err, "the Prometheus text format")
	return scraped{text: string(body), families: families}
}

// value is the value of the series of name with exactly the given labels (name, value pairs,
// in the order the exposition sorts them: by name); for a histogram, its count of samples.
func (s scraped) value(name string, labels ...string) (float64, bool) {
	for _, m := range s.families[name].GetMetric() {
		if len(m.GetLabel())*2 != len(labels) {
			continue
		}
		match := true
		for i, l := range m.GetLabel() {
			match = match && l.GetName() == labels[2*i] && l.GetValue() == labels[2*i+1]
		}
		switch {
		case !match:
		case m.Histogram != nil:
			return float64(m.GetHistogram().GetSampleCount()), true
		case m.Counter != nil:
			return m.GetCounter().GetValue(), true
		case m.Gauge != nil:
			return m.GetGauge().GetValue(), true
		}
	}
	return 0, false
}

func (s scraped) is(want float64, name string, labels ...string) bool {
	got, ok := s.value(name, labels...)
	return ok && got == want
}

func (s scraped) require(t *testing.T, want float64, name string, labels ...string) {
	t.Helper()
	got, ok := s.value(name, labels...)
	require.True(t, ok, "no series %s %v in\n%s", name, labels, s.text)
	assert.Equal(t, want, got, "%s %v", name, labels)
}

var processorNames = []string{"catalog", "loans", "holds", "notifications", "late-fines"}

// seriesName is the processor label of the series of the named processor: a view's are those
// of the build of it the replica reads.
func seriesName(t *testing.T, a *api, name string) string {
	t.Helper()
	return processorStatus(t, a, name).Name
}

func TestMetrics(t *testing.T) {
	t.Parallel()
	smtp := smtptest.Start(t)
	forEachStore(t, fastBackground(app.Config{SMTPURL: smtp.URL()}), func(t *testing.T, a *api) {
		member := "mia-" + a.Store // one SMTP server for both stores: an address each
		requireProblem(t, pay(t, a, member, 300, "pay-1"), http.StatusConflict, "NothingToPay")
		setContact(t, a, member, "Mia", member+"@example.org")
		fine(t, a, member, 1000, "late")
		first := pay(t, a, member, 300, "pay-1") // a refused command leaves its key free
		requireResult(t, first, http.StatusCreated, "account-"+member)
		requireReplay(t, first, pay(t, a, member, 300, "pay-1"))
		addBook(t, a, "dune")
		lent := lend(t, a, "dune", "loan-1", member)
		// The loan's append is the log's last: the book's BookLent, its title's CopyLent and the
		// account's LoanOpened.
		caught := caughtUp(t, a, "catalog")
		loanEnd := float64(caught.Head)
		require.GreaterOrEqual(t, loanEnd, float64(lent.Position))
		again := a.Call(t, http.MethodPost, "/books/dune/loans", obj{"loanId": "loan-1", "memberId": member})
		requireResult(t, again, http.StatusOK, "book-dune")
		getAccount(t, a, member)
		// Of AccountOpened, FineCharged, PaymentReceived, BookAdded (with its title's TitleAdded
		// and CopyAdded), BookLent (with CopyLent) and LoanOpened, each processor handles the
		// types it reads: the catalog the books' and the titles'.
		handled := map[string]float64{"catalog": 5, "loans": 2, "holds": 3, "notifications": 1, "late-fines": 0, "adoption": 1}

		// The background work is counted as it happens: wait until every processor is done
		// with every event of its types and the loan email has gone. The catalog's series are
		// its build's (catalog@2 on a fresh database in PostgreSQL).
		var s scraped
		eventually(t, 10*time.Second, func() bool {
			s = scrapeMetrics(t, a)
			done := s.is(1, "library_emails_accepted_total")
			for _, name := range processorNames {
				series := seriesName(t, a, name)
				done = done && s.is(0, "library_processor_lag", "processor", series) &&
					s.is(handled[name], "library_processor_events_handled_total", "processor", series)
			}
			return done
		}, "the processors to catch up and the email to be counted")
		require.Equal(t, caught.Name, seriesName(t, a, "catalog"))

		t.Run("commands by name and outcome", func(t *testing.T) {
			for _, c := range []struct {
				command, outcome string
				n                float64
			}{
				{"pay", "refused", 1}, {"pay", "recorded", 1}, {"pay", "replayed", 1},
				{"setContact", "recorded", 1}, {"chargeFine", "recorded", 1},
				{"addBook", "recorded", 1}, {"lendBook", "recorded", 1}, {"lendBook", "unchanged", 1},
			} {
				s.require(t, c.n, "library_commands_total", "command", c.command, "outcome", c.outcome)
			}
			s.require(t, 1, "library_idempotent_replays_total", "command", "pay")
		})

		t.Run("requests by route pattern, never by path", func(t *testing.T) {
			const name = "library_http_request_duration_seconds"
			require.Equal(t, dto.MetricType_HISTOGRAM, s.families[name].GetType())
			payments := "/accounts/{memberId}/payments"
			s.require(t, 2, name, "method", "POST", "route", payments, "status", "201") // the first and its replay
			s.require(t, 1, name, "method", "POST", "route", payments, "status", "409")
			s.require(t, 1, name, "method", "PUT", "route", "/accounts/{memberId}", "status", "201")
			s.require(t, 1, name, "method", "GET", "route", "/accounts/{memberId}", "status", "200")
			s.require(t, 1, name, "method", "POST", "route", "/books/{bookId}/loans", "status", "201")
			s.require(t, 1, name, "method", "POST", "route", "/books/{bookId}/loans", "status", "200")
			assert.Contains(t, s.text, `route="/accounts/{memberId}/payments"`)
			for _, id := range []string{member, "dune", "loan-1"} {
				assert.NotContains(t, s.text, id, "ids never become label values")
			}
		})

		t.Run("processors", func(t *testing.T) {
			for _, name := range processorNames {
				series := map[string]string{"catalog": caught.Name}[name]
				if series == "" {
					series = name
				}
				s.require(t, 1, "library_processor_lease_held", "processor", series)
				s.require(t, 1, "library_processor_lease_acquired_total", "processor", series)
				// At the loan for those that read it; those that read no event of the loan's
				// append pass it without a write, and show a checkpoint before it until they do.
				checkpoint, _ := s.value("library_processor_checkpoint", "processor", series)
				if readsBookLent := name != "holds" && name != "late-fines" && name != "adoption"; readsBookLent {
					assert.Equal(t, loanEnd, checkpoint, "checkpoint of %s", name)
				} else {
					assert.LessOrEqual(t, checkpoint, loanEnd, "checkpoint of %s", name)
				}
				s.require(t, 0, "library_processor_parked", "processor", series)
				_, ok := s.value("library_processor_failures_total", "processor", name) // there from the start, by the view's name
				assert.True(t, ok, "failures of %s", name)
			}
		})

		t.Run("emails", func(t *testing.T) {
			s.require(t, 1, "library_emails_accepted_total")
			s.require(t, 0, "library_emails_deferred_total")
			s.require(t, 0, "library_emails_parked_total")
			s.require(t, 0, "library_emails_in_flight")
			s.require(t, 1, "library_email_relay_up")
			s.require(t, 0, "library_processor_deferred", "processor", "notifications")
			sendTime := s.families["library_email_send_duration_seconds"].GetMetric()[0].GetHistogram()
			assert.Equal(t, uint64(1), sendTime.GetSampleCount())
		})

		t.Run("the Go runtime and the process", func(t *testing.T) {
			assert.Contains(t, s.families, "go_goroutines")
			assert.Contains(t, s.families, "process_start_time_seconds")
		})
	})
}

// Emails that can't be sent are counted as failed attempts, as deferred, then as parked.
func TestMetricsOfEmailsThatFail(t *testing.T) {
	t.Parallel()
	smtp := smtptest.Start(t)
	smtp.Refuse(451, "try again later")
	// An email waits for its member's address a millisecond, then is parked.
	a := launch(t, fastBackground(app.Config{SMTPURL: smtp.URL(), EmailAddressWait: time.Millisecond})).API("memory")
	setContact(t, a, "noor", "Noor", "noor@example.org")
	addBook(t, a, "emma")
	lend(t, a, "emma", "loan-1", "noor")
	setContact(t, a, "ola", "Ola", "")
	addBook(t, a, "dune")
	lend(t, a, "dune", "loan-2", "ola") // no address: parked once its wait is over, never tried

	var s scraped
	eventually(t, 10*time.Second, func() bool {
		s = scrapeMetrics(t, a)
		return s.is(2, "library_emails_parked_total") && s.is(2, "library_processor_parked", "processor", "notifications")
	}, "both emails to be parked")
	s.require(t, 3, "library_email_failures_total", "class", "temporary", "reason", "4xx") // fastBackground tries three times
	s.require(t, 2, "library_emails_deferred_total")                                       // the third attempt parks
	s.require(t, 0, "library_emails_accepted_total")
	s.require(t, 1, "library_email_relay_up") // it answered, if only to refuse
	failures, _ := s.value("library_processor_failures_total", "processor", "notifications")
	assert.GreaterOrEqual(t, failures, 4.0, "three failed attempts and one email parked")
}

package app_test

// The Grafana dashboard (deploy/grafana/library.json): a valid dashboard on a ${datasource}
// variable, and every series its queries name exposed by a running service on PostgreSQL.

import (
	"encoding/json"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/app"
	"library/internal/testkit/smtptest"
)

const dashboardPath = "../../deploy/grafana/library.json"

// dashboard is the part of a Grafana dashboard's JSON model that the tests read.
type dashboard struct {
	UID           string           `json:"uid"`
	Title         string           `json:"title"`
	SchemaVersion int              `json:"schemaVersion"`
	Panels        []dashboardPanel `json:"panels"`
	Templating    struct {
		List []struct {
			Name       string               `json:"name"`
			Type       string               `json:"type"`
			Query      any                  `json:"query"`
			Datasource *dashboardDatasource `json:"datasource"`
		} `json:"list"`
	} `json:"templating"`
}

type dashboardPanel struct {
	ID          int                  `json:"id"`
	Type        string               `json:"type"`
	Title       string               `json:"title"`
	Description string               `json:"description"`
	Datasource  *dashboardDatasource `json:"datasource"`
	GridPos     dashboardGridPos     `json:"gridPos"`
	Targets     []struct {
		RefID      string               `json:"refId"`
		Expr       string               `json:"expr"`
		Datasource *dashboardDatasource `json:"datasource"`
	} `json:"targets"`
	Panels []dashboardPanel `json:"panels"` // a collapsed row's panels
}

// dashboardGridPos is where a panel is, on a grid 24 columns wide.
type dashboardGridPos struct {
	H int `json:"h"`
	W int `json:"w"`
	X int `json:"x"`
	Y int `json:"y"`
}

type dashboardDatasource struct {
	Type string `json:"type"`
	UID  string `json:"uid"`
}

// readDashboard reads the dashboard and returns it with all its panels, rows and the panels
// of collapsed rows alike, in order.
func readDashboard(t *testing.T) (dashboard, []dashboardPanel) {
	t.Helper()
	b, err := os.ReadFile(dashboardPath)
	require.NoError(t, err)
	var d dashboard
	require.NoError(t, json.Unmarshal(b, &d), "%s is JSON", dashboardPath)
	var all []dashboardPanel
	for _, p := range d.Panels {
		all = append(all, p)
		all = append(all, p.Panels...)
	}
	return d, all
}

// metricNamePattern finds the metric names in PromQL, loosely: identifiers starting library_
// that are not the end of a longer identifier.
var metricNamePattern = regexp.MustCompile(`(?:^|[^A-Za-z0-9_:])(library_[a-z_]+)`)

// dashboardMetrics maps every library_ name the dashboard's queries use to the titles of the
// panels that use it.
func dashboardMetrics(panels []dashboardPanel) map[string][]string {
	names := map[string][]string{}
	for _, p := range panels {
		for _, target := range p.Targets {
			for _, m := range metricNamePattern.FindAllStringSubmatch(target.Expr, -1) {
				if !slices.Contains(names[m[1]], p.Title) {
					names[m[1]] = append(names[m[1]], p.Title)
				}
			}
		}
	}
	return names
}

func TestDashboardIsValid(t *testing.T) {
	t.Parallel()
	d, panels := readDashboard(t)
	assert.Equal(t, "library", d.UID)
	assert.Equal(t, "library", d.Title)
	assert.GreaterOrEqual(t, d.SchemaVersion, 36, "a dashboard for a current Grafana")

	var hasDatasource bool
	for _, v := range d.Templating.List {
		if v.Name == "datasource" {
			hasDatasource = true
			assert.Equal(t, "datasource", v.Type, "the datasource variable's type")
			assert.Equal(t, "prometheus", v.Query, "the datasource variable lists Prometheus data sources")
		}
		if v.Type == "query" {
			require.NotNil(t, v.Datasource, "variable %s has a datasource", v.Name)
			assert.Equal(t, "${datasource}", v.Datasource.UID, "variable %s queries ${datasource}", v.Name)
		}
	}
	assert.True(t, hasDatasource, "a ${datasource} variable")

	require.NotEmpty(t, panels)
	assert.Equal(t, "row", panels[0].Type, "panels are grouped in rows, starting with one")
	ids := map[int]string{}
	queries := 0
	for _, p := range panels {
		if other, dup := ids[p.ID]; dup {
			t.Errorf("panel id %d of %q is also %q's", p.ID, p.Title, other)
		}
		ids[p.ID] = p.Title
		assert.NotEmpty(t, p.Title, "panel %d has a title", p.ID)
		assert.Positive(t, p.GridPos.W, "%q width", p.Title)
		assert.LessOrEqual(t, p.GridPos.X+p.GridPos.W, 24, "%q fits in the 24 columns", p.Title)
		if p.Type == "row" {
			continue
		}
		assert.Positive(t, p.GridPos.H, "%q height", p.Title)
		assert.NotEmpty(t, p.Description, "%q says what to look for", p.Title)
		if assert.NotNil(t, p.Datasource, "%q has a datasource", p.Title) {
			assert.Equal(t, dashboardDatasource{Type: "prometheus", UID: "${datasource}"}, *p.Datasource, "%q datasource", p.Title)
		}
		if !assert.NotEmpty(t, p.Targets, "%q has a query", p.Title) {
			continue
		}
		refIDs := map[string]bool{}
		for _, target := range p.Targets {
			assert.NotEmpty(t, strings.TrimSpace(target.Expr), "%q target %s has an expr", p.Title, target.RefID)
			assert.False(t, refIDs[target.RefID], "%q refId %s is unique", p.Title, target.RefID)
			refIDs[target.RefID] = true
			if target.Datasource != nil {
				assert.Equal(t, "${datasource}", target.Datasource.UID, "%q target %s datasource", p.Title, target.RefID)
			}
			assert.Regexp(t, metricNamePattern, target.Expr, "%q target %s queries a library_ series", p.Title, target.RefID)
			queries++
		}
	}
	assert.Positive(t, queries)
}

// Every series the dashboard queries is on /metrics of a service on PostgreSQL after a little
// traffic: a book added twice with one Idempotency-Key (a replay), a loan emailed, and a loan
// whose email the relay refuses for good (an email failure, which creates that family).
func TestDashboardSeriesExist(t *testing.T) {
	t.Parallel()
	_, panels := readDashboard(t)
	queried := dashboardMetrics(panels)
	require.NotEmpty(t, queried, "the dashboard queries library_ series")

	smtp := smtptest.Start(t)
	smtp.RefuseRecipient("bounce@example.org", 550, "no such mailbox")
	pg := stores[1]
	cfg := fastBackground(app.Config{SMTPURL: smtp.URL(), DatabaseURL: pg.DatabaseURL(t)})
	a := launch(t, cfg).API(pg.Name)

	setContact(t, a, "dana", "Dana", "dana@example.org")
	setContact(t, a, "bo", "Bo", "bounce@example.org")
	book := obj{"id": "dune", "title": "Dune", "author": "Frank Herbert"}
	first := a.Call(t, http.MethodPost, "/books", book, "Idempotency-Key", "add-dune")
	requireResult(t, first, http.StatusCreated, "book-dune")
	requireReplay(t, first, a.Call(t, http.MethodPost, "/books", book, "Idempotency-Key", "add-dune"))
	addBook(t, a, "emma")
	lend(t, a, "dune", "loan-1", "dana")
	lend(t, a, "emma", "loan-2", "bo")

	var s scraped
	eventually(t, 15*time.Second, func() bool {
		s = scrapeMetrics(t, a)
		done := s.is(1, "library_emails_accepted_total") && s.is(1, "library_emails_parked_total") &&
			s.families["library_email_failures_total"] != nil
		for _, name := range processorNames {
			done = done && s.is(0, "library_processor_lag", "processor", seriesName(t, a, name))
		}
		return done
	}, "one email accepted, one parked, and the processors caught up")

	// A family exists when the exposition names it, even with no sample for some labels.
	types := map[string]string{}
	for line := range strings.Lines(s.text) {
		if f := strings.Fields(line); len(f) == 4 && f[0] == "#" && f[1] == "TYPE" {
			types[f[2]] = f[3]
		}
	}
	for name, f := range s.families {
		if _, ok := types[name]; !ok {
			types[name] = strings.ToLower(f.GetType().String())
		}
	}
	family := func(name string) string {
		for _, suffix := range []string{"_bucket", "_sum", "_count"} {
			if base, ok := strings.CutSuffix(name, suffix); ok && types[base] == "histogram" {
				return base
			}
		}
		return name
	}

	names := make([]string, 0, len(queried))
	for name := range queried {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if _, ok := types[family(name)]; !ok {
			t.Errorf("the dashboard queries %s (panels %q), which /metrics does not have", name, queried[name])
		}
	}
}

package web_test

// Elements are found the way people find them, and the way Testing Library's getByRole does:
// by ARIA role and accessible name, as Chrome computes them for assistive technology
// (Accessibility.queryAXTree), never by CSS class or id. A test then acts on the element's DOM
// node through real input events: a click is a mouse press and release at the element's
// centre, typing is key events to the focused field.

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// tab is one browser tab of one test.
type tab struct {
	t   *testing.T
	ctx context.Context
	// goroutines are the test's helpers that watch the tab; they end when it closes.
	goroutines sync.WaitGroup
}

// element is a node of the accessibility tree and the DOM node behind it.
type element struct {
	tab  *tab
	id   cdp.BackendNodeID
	role string
	name string
}

func (e *element) String() string { return fmt.Sprintf("%s %q", e.role, e.name) }

// waitTimeout bounds every wait for the page: it polls, and gives up after this.
const waitTimeout = 20 * time.Second

// pollInterval is how often a wait looks at the page again.
const pollInterval = 50 * time.Millisecond

// open loads url in the tab.
func (tb *tab) open(url string) {
	tb.t.Helper()
	if err := chromedp.Do(tb.ctx, chromedp.Navigate(url)); err != nil {
		tb.t.Fatalf("open %s: %v", url, err)
	}
}

// queryAX returns the elements under root (the document when 0) with role and, when name is
// not "", exactly that accessible name, leaving out what is hidden from assistive technology.
func (tb *tab) queryAX(root cdp.BackendNodeID, role, name string) ([]*element, error) {
	params := accessibility.QueryAXTreeParams{Role: role, AccessibleName: name, BackendNodeID: root}
	if root == 0 {
		doc, err := chromedp.Call(tb.ctx, runtime.Evaluate, runtime.EvaluateParams{Expression: "document", ObjectGroup: "aria"})
		if err != nil {
			return nil, err
		}
		defer func() {
			_, _ = chromedp.Call(tb.ctx, runtime.ReleaseObjectGroup, runtime.ReleaseObjectGroupParams{ObjectGroup: "aria"})
		}()
		params.ObjectID = doc.Result.ObjectID
	}
	res, err := chromedp.Call(tb.ctx, accessibility.QueryAXTree, params)
	if err != nil {
		return nil, err
	}
	var found []*element
	for _, n := range res.Nodes {
		if n.Ignored || n.BackendDOMNodeID == 0 {
			continue
		}
		found = append(found, &element{tab: tb, id: n.BackendDOMNodeID, role: axString(n.Role), name: axString(n.Name)})
	}
	return found, nil
}

func axString(v *accessibility.Value) string {
	if v == nil || len(v.Value) == 0 {
		return ""
	}
	var s string
	if err := json.Unmarshal(v.Value, &s); err != nil {
		return string(v.Value)
	}
	return s
}

// get waits for exactly one element with role and name in the page, as getByRole does.
func (tb *tab) get(role, name string) *element {
	tb.t.Helper()
	return tb.getWithin(0, role, name)
}

// get waits for exactly one element with role and name within e.
func (e *element) get(role, name string) *element {
	e.tab.t.Helper()
	return e.tab.getWithin(e.id, role, name)
}

func (tb *tab) getWithin(root cdp.BackendNodeID, role, name string) *element {
	tb.t.Helper()
	var found []*element
	tb.waitFor(fmt.Sprintf("one %s named %q", role, name), func() bool {
		var err error
		found, err = tb.queryAX(root, role, name)
		return err == nil && len(found) == 1
	})
	return found[0]
}

// waitFor polls cond until it holds, or fails the test with what the page shows.
func (tb *tab) waitFor(what string, cond func() bool) {
	tb.t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for !cond() {
		if time.Now().After(deadline) || tb.ctx.Err() != nil {
			tb.t.Fatalf("waited %s for %s; the page shows:\n%s", waitTimeout, what, tb.pageText())
		}
		time.Sleep(pollInterval) // polling the page, bounded by the deadline
	}
}

// eval runs a JavaScript expression in the page and returns its value as text.
func (tb *tab) eval(expression string) (string, error) {
	return chromedp.Run(tb.ctx, chromedp.Evaluate[string](expression))
}

// pageText is what the page shows, as text.
func (tb *tab) pageText() string {
	text, err := chromedp.Run(tb.ctx, chromedp.Evaluate[string](`document.body ? document.body.innerText : ""`))
	if err != nil {
		return fmt.Sprintf("(unreadable: %v)", err)
	}
	return text
}

// text is what e shows (its rendered text), which for a live region is what is announced.
func (e *element) text() string {
	e.tab.t.Helper()
	s, err := e.call(`function() { return this.innerText ?? this.textContent ?? ""; }`)
	if err != nil {
		e.tab.t.Fatalf("read %s: %v", e, err)
	}
	return s
}

// call runs a function on e's DOM node and returns its result as text.
func (e *element) call(function string) (string, error) {
	ctx := e.tab.ctx
	node, err := chromedp.Call(ctx, dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: e.id, ObjectGroup: "aria-call"})
	if err != nil {
		return "", err
	}
	defer func() {
		_, _ = chromedp.Call(ctx, runtime.ReleaseObjectGroup, runtime.ReleaseObjectGroupParams{ObjectGroup: "aria-call"})
	}()
	res, err := chromedp.Call(ctx, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
		FunctionDeclaration: function, ObjectID: node.Object.ObjectID, ReturnByValue: new(true),
	})
	if err != nil {
		return "", err
	}
	if res.ExceptionDetails != nil {
		return "", fmt.Errorf("%s", res.ExceptionDetails.Text)
	}
	var s string
	if err := json.Unmarshal(res.Result.Value, &s); err != nil {
		return string(res.Result.Value), nil
	}
	return s, nil
}

// waitText waits until e's text contains want, and returns the text.
func (e *element) waitText(want string) string {
	e.tab.t.Helper()
	var text string
	e.tab.waitFor(fmt.Sprintf("%s to say %q", e, want), func() bool {
		s, err := e.call(`function() { return this.innerText ?? ""; }`)
		text = s
		return err == nil && strings.Contains(s, want)
	})
	return text
}

// waitText waits until the one element with role and name in the page says want (contains
// it), finding the element again at every look, since a page may draw it anew; it returns the
// element's text.
func (tb *tab) waitText(role, name, want string) string {
	tb.t.Helper()
	var text string
	tb.waitFor(fmt.Sprintf("%s %q to say %q", role, name, want), func() bool {
		found, err := tb.queryAX(0, role, name)
		if err != nil || len(found) != 1 {
			return false
		}
		text, err = found[0].call(`function() { return this.innerText ?? ""; }`)
		return err == nil && strings.Contains(text, want)
	})
	return text
}

// centre scrolls e into view and returns the middle of its box, in the viewport.
func (e *element) centre() (x, y float64) {
	e.tab.t.Helper()
	ctx := e.tab.ctx
	if _, err := chromedp.Call(ctx, dom.ScrollIntoViewIfNeeded, dom.ScrollIntoViewIfNeededParams{BackendNodeID: e.id}); err != nil {
		e.tab.t.Fatalf("scroll to %s: %v", e, err)
	}
	quads, err := chromedp.Call(ctx, dom.GetContentQuads, dom.GetContentQuadsParams{BackendNodeID: e.id})
	if err != nil || len(quads.Quads) == 0 {
		e.tab.t.Fatalf("find %s on screen: %v", e, err)
	}
	q := quads.Quads[0]
	return (q[0] + q[2] + q[4] + q[6]) / 4, (q[1] + q[3] + q[5] + q[7]) / 4
}

// click presses and releases the mouse on e.
func (e *element) click() {
	e.tab.t.Helper()
	x, y := e.centre()
	if err := chromedp.Do(e.tab.ctx, chromedp.MouseClickXY(x, y)); err != nil {
		e.tab.t.Fatalf("click %s: %v", e, err)
	}
}

// doubleClick is a person's double click on e: two presses and releases, the second with a
// click count of 2, as the operating system reports them.
func (e *element) doubleClick() {
	e.tab.t.Helper()
	x, y := e.centre()
	for _, count := range []int64{1, 2} {
		for _, typ := range []input.DispatchMouseEventType{chromedp.MousePressed, chromedp.MouseReleased} {
			_, err := chromedp.Call(e.tab.ctx, input.DispatchMouseEvent, input.DispatchMouseEventParams{
				Type: typ, X: x, Y: y, Button: input.MouseButtonLeft, ClickCount: count,
			})
			if err != nil {
				e.tab.t.Fatalf("double-click %s: %v", e, err)
			}
		}
	}
}

// fill focuses the field e, selects what it holds, and types text over it.
func (e *element) fill(text string) {
	e.tab.t.Helper()
	ctx := e.tab.ctx
	if _, err := chromedp.Call(ctx, dom.Focus, dom.FocusParams{BackendNodeID: e.id}); err != nil {
		e.tab.t.Fatalf("focus %s: %v", e, err)
	}
	if _, err := e.call(`function() { this.select(); return ""; }`); err != nil {
		e.tab.t.Fatalf("select the text of %s: %v", e, err)
	}
	if text == "" {
		text = kb.Delete
	}
	if err := chromedp.Do(ctx, chromedp.KeyEvent(text)); err != nil {
		e.tab.t.Fatalf("type into %s: %v", e, err)
	}
}

// press sends keys (such as kb.Enter) to whatever has focus.
func (tb *tab) press(keys string) {
	tb.t.Helper()
	if err := chromedp.Do(tb.ctx, chromedp.KeyEvent(keys)); err != nil {
		tb.t.Fatalf("press %q: %v", keys, err)
	}
}

// disabled reports whether e is disabled, as assistive technology is told.
func (e *element) disabled() bool {
	e.tab.t.Helper()
	s, err := e.call(`function() { return String(this.matches(":disabled")); }`)
	if err != nil {
		e.tab.t.Fatalf("read %s: %v", e, err)
	}
	return s == "true"
}

// table reads a table as people see it: its column headers, and its rows, each a map from
// column header to what the row's cell (or row header) says. It fails when the page redraws
// the table meanwhile; callers look again.
func (e *element) table() (headers []string, rows []map[string]string, err error) {
	tb := e.tab
	columns, err := tb.queryAX(e.id, "columnheader", "")
	if err != nil {
		return nil, nil, err
	}
	for _, h := range columns {
		headers = append(headers, h.name)
	}
	all, err := tb.queryAX(e.id, "row", "")
	if err != nil {
		return nil, nil, err
	}
	for _, r := range all {
		rowHeaders, err := tb.queryAX(r.id, "rowheader", "")
		if err != nil {
			return nil, nil, err
		}
		cells, err := tb.queryAX(r.id, "cell", "")
		if err != nil {
			return nil, nil, err
		}
		cells = append(rowHeaders, cells...)
		if len(cells) == 0 {
			continue // the header row
		}
		row := map[string]string{}
		for i, c := range cells {
			text, err := c.call(`function() { return this.innerText ?? ""; }`)
			if err != nil {
				return nil, nil, err
			}
			if i < len(headers) {
				row[headers[i]] = strings.Join(strings.Fields(text), " ")
			}
		}
		rows = append(rows, row)
	}
	return headers, rows, nil
}

// row waits until the table named tableName has a row whose first column says key and whose
// column says want (contains it), and returns that row. The table is found again at every look,
// since a page may draw it anew.
func (tb *tab) row(tableName, key, column, want string) map[string]string {
	tb.t.Helper()
	var found map[string]string
	tb.waitFor(fmt.Sprintf("table %q to have a row %q whose %q says %q", tableName, key, column, want), func() bool {
		tables, err := tb.queryAX(0, "table", tableName)
		if err != nil || len(tables) != 1 {
			return false
		}
		headers, rows, err := tables[0].table()
		if err != nil {
			return false
		}
		for _, r := range rows {
			if len(headers) > 0 && r[headers[0]] == key && strings.Contains(r[column], want) {
				found = r
				return true
			}
		}
		return false
	})
	return found
}

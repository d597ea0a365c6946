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
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
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

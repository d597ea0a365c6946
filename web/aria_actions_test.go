package web_test

import (
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

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

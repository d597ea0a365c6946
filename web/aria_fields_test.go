package web_test

import (
	"fmt"
	"strings"

	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/chromedp"
)

// value is what the field e holds, as a person sees it: an input's text, or the text of the
// option a select shows.
func (e *element) value() string {
	e.tab.t.Helper()
	s, err := e.call(`function() { return this instanceof HTMLSelectElement ? (this.selectedOptions[0]?.text ?? "") : this.value; }`)
	if err != nil {
		e.tab.t.Fatalf("read the value of %s: %v", e, err)
	}
	return s
}

// describedBy is a function on an element that returns the text of the elements its
// aria-describedby names, in one line.
const describedBy = `function() {
  return (this.getAttribute("aria-describedby") ?? "").split(/\s+/)
    .map((id) => document.getElementById(id)?.textContent ?? "").join(" ").replace(/\s+/g, " ").trim();
}`

// waitDescription waits until e's accessible description (the text of the elements its
// aria-describedby names, as assistive technology reads it after e's name) says want (contains
// it), and returns it.
func (e *element) waitDescription(want string) string {
	e.tab.t.Helper()
	var text string
	e.tab.waitFor(fmt.Sprintf("%s to be described as %q", e, want), func() bool {
		s, err := e.call(describedBy)
		text = s
		return err == nil && strings.Contains(s, want)
	})
	return text
}

// focus puts the keyboard's focus on e, as a person's Tab to it would.
func (e *element) focus() {
	e.tab.t.Helper()
	if _, err := chromedp.Call(e.tab.ctx, dom.Focus, dom.FocusParams{BackendNodeID: e.id}); err != nil {
		e.tab.t.Fatalf("focus %s: %v", e, err)
	}
}

// focused is the accessible name of the element that has the keyboard's focus: its
// aria-label, or its text.
func (tb *tab) focused() string {
	tb.t.Helper()
	s, err := tb.eval(`(() => { const el = document.activeElement; return el ? (el.getAttribute("aria-label") ?? el.innerText ?? "") : ""; })()`)
	if err != nil {
		tb.t.Fatalf("read which element has focus: %v", err)
	}
	return s
}

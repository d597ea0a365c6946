package pgstore

import (
	"slices"
	"sync/atomic"
)

// toldTypes are the event types whose appends other processes are told of (TellOnly); nil
// until it is called: every type.
type toldTypes struct {
	set atomic.Pointer[map[string]bool]
}

// TellOnly limits the notifications other processes get to appends of types: what their
// readers (processor.Processor.Types) read. An append of no such type, such as a payment,
// which no processor reads, sends no pg_notify: it would only wake the listening connection of
// every replica, and their PostgreSQL backends, to tell them of nothing they read. Readers in
// this process are woken as before, and a reader elsewhere that reads a type not in types
// still finds its events by polling (processor.Options.PollInterval), a little later.
//
// Every replica runs the same processors, so the types this process reads are the types any
// reads. A processor that reads every type (no Types) needs every append told: pass nil, which
// is also the default.
func (p *Postgres) TellOnly(types []string) {
	if types == nil {
		p.told.set.Store(nil)
		return
	}
	set := make(map[string]bool, len(types))
	for _, t := range types {
		set[t] = true
	}
	p.told.set.Store(&set)
}

// of keeps those of types that other processes are told of: types itself when all are. A nil
// t (an append written for AppendAll, which tells through appendedNow) tells every type.
func (t *toldTypes) of(types []string) []string {
	if t == nil {
		return types
	}
	set := t.set.Load()
	if set == nil {
		return types
	}
	return slices.DeleteFunc(types, func(typ string) bool { return !(*set)[typ] })
}

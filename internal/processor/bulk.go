package processor

import "context"

// BulkWriter is a view model that writes a long catch-up in bulk: what keeps its reads quick (a
// search index) is put off while it is far behind the log and made whole once it has caught
// up, when making it once costs less than keeping it up to date event by event (after an
// import, or on a rebuild from the start of the log). Meanwhile the build answers as usual,
// only more slowly where it put something off.
//
// The engine asks BulkFrom when a read of the build finds as many events as it asked for
// (the build is behind), once a catch-up, and counts, up to that many, the events of the
// view's types after the build's checkpoint; when there are that many, it calls StartBulk.
// When a read finds fewer (the build has caught up) it calls EndBulk, and also the first time
// it catches up after taking the lease, or after a failure, so that what a holder that died in
// bulk put off is done by the next. StartBulk and EndBulk must therefore be idempotent, and
// neither may change what the build's rows say.
type BulkWriter interface {
	ViewModel
	// BulkFrom is how many events of the view's types must wait after the build's checkpoint
	// for writing them in bulk to pay; 0 or less: never.
	BulkFrom(ctx context.Context) (int64, error)
	// StartBulk puts off what a catch-up need not keep up to date, if the build's checkpoint
	// is still at: ErrFenced when it moved (another holder runs the build), ErrBuildGone when
	// the build was dropped.
	StartBulk(ctx context.Context, at Position) error
	// EndBulk makes whole what StartBulk put off, if the build's checkpoint is still at; a
	// no-op when nothing was put off. It may take as long as making it takes: it is bounded
	// by the lease, not by Options.StepTimeout.
	EndBulk(ctx context.Context, at Position) error
}

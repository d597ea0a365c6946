// Package core runs commands against event-sourced aggregates, as Repository.Execute: load the
// stream, fold it into state, decide, append at the version that was loaded. It reads and
// appends through an aggregate.Store (package stack builds the one the options ask for), and
// keeps the promises of package aggregate's comment: a command id answered from the log,
// refused when reused for another command; commands on one stream queued and decided in
// groups; conflicts between processes decided again, up to MaxAttempts.
package core

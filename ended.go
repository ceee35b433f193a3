package agenttool

import (
	"context"
	"errors"
)

// contextEnded says why a context ended: its error and, when it says more,
// its cause. The errors of a cancelled sleep and of an ended turn wrap it;
// it is built without fmt because it is on the path of every call of a
// cancellation storm.
type contextEnded struct{ err, cause error }

// endedOf reads why ctx ended; ctx must be done.
func endedOf(ctx context.Context) contextEnded {
	return contextEnded{err: ctx.Err(), cause: context.Cause(ctx)}
}

// causeAddsNothing reports whether the cause is the context's error itself
// (or wraps it), so that naming both would repeat it.
func (e contextEnded) causeAddsNothing() bool { return errors.Is(e.cause, e.err) }

func (e contextEnded) Error() string {
	if e.causeAddsNothing() {
		return e.cause.Error()
	}
	return e.err.Error() + ": " + e.cause.Error()
}

func (e contextEnded) Unwrap() []error {
	if e.causeAddsNothing() {
		return []error{e.cause}
	}
	return []error{e.err, e.cause}
}

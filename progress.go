package agenttool

import (
	"context"
	"encoding/json"
	"time"
)

// Progress is how far a running call has come.
type Progress struct {
	// Done is the units finished so far.
	Done float64 `json:"done"`
	// Total is the units in all; 0 when unknown.
	Total float64 `json:"total,omitempty"`
	// Message says in words what the call is doing.
	Message string `json:"message,omitempty"`
}

// Estimator is implemented by tools that can tell, from a call's arguments
// alone, how long the call will take, so that a progress bar or a progress
// notification can show a total. Estimate returns false when it cannot tell
// (for example because the arguments are invalid). A tool that does not
// implement Estimator gives no estimate: that is the default. Estimate must
// not block, and may be called concurrently.
type Estimator interface {
	Estimate(args json.RawMessage) (time.Duration, bool)
}

// EstimateOf returns t's estimate for args when t implements [Estimator],
// and false otherwise. A panic in Estimate counts as no estimate.
func EstimateOf(t Tool, args json.RawMessage) (d time.Duration, ok bool) {
	e, is := t.(Estimator)
	if !is {
		return 0, false
	}
	defer func() {
		if recover() != nil {
			d, ok = 0, false
		}
	}()
	return e.Estimate(args)
}

// progressKey is the context key under which a call's progress listener lives.
type progressKey struct{}

// progressReporter receives the reports made on a context.
type progressReporter interface{ reportProgress(Progress) }

type progressFunc func(Progress)

func (f progressFunc) reportProgress(p Progress) { f(p) }

// WithProgress returns a context on which [ReportProgress] calls report.
// A [Turn] gives every call such a context; use WithProgress to listen to a
// tool called some other way. report may be called from any goroutine, and
// concurrently when the tool reports from several. A nil report makes
// ReportProgress a no-op on the returned context.
func WithProgress(ctx context.Context, report func(Progress)) context.Context {
	if report == nil {
		return context.WithValue(ctx, progressKey{}, nil)
	}
	return context.WithValue(ctx, progressKey{}, progressReporter(progressFunc(report)))
}

// ReportProgress tells whoever listens on ctx how far the call has come. It
// is a no-op when nothing listens, and safe from any goroutine. In a [Turn]
// it records p on the call's block ([ToolBlock].Progress) and publishes a
// snapshot before it returns, while the call runs; a report after the call
// or the turn ended changes nothing.
func ReportProgress(ctx context.Context, p Progress) {
	if ctx == nil {
		return
	}
	if r, ok := ctx.Value(progressKey{}).(progressReporter); ok {
		r.reportProgress(p)
	}
}

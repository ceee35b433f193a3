package temporaltool

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/agenttool/agenttool"
)

const (
	// TurnWorkflow is the name under which [Turns.Register] registers the
	// workflow that runs one batch as a turn. Its input is the batch, a
	// []agenttool.ToolCall, and its result the final [agenttool.Snapshot].
	// The input travels as JSON, so arguments that are not JSON reach the
	// tools as the JSON string that [agenttool.ToolCall.MarshalJSON] makes of
	// them; a runtime that must pass them as they are calls [Turns.RunBatch]
	// from its own workflow. Cancelled, the workflow ends as cancelled, and
	// its final snapshot stays answerable through QuerySnapshot.
	TurnWorkflow = "agenttool.Turn"
	// QuerySnapshot is the query that every workflow calling
	// [Turns.RunBatch], TurnWorkflow included, answers with its current
	// [agenttool.Snapshot]: every block of every batch it ran so far, in
	// call order. Final is true only once TurnWorkflow has ended.
	QuerySnapshot = "agenttool.snapshot"
)

// executeActivity is the name of the activity that runs one call.
const executeActivity = "agenttool.Execute"

// Defaults for the zero fields of [Options].Activity.
const (
	defaultStartToClose  = 10 * time.Minute
	defaultHeartbeat     = 10 * time.Second
	defaultMaxAttempts   = 3
	heartbeatsPerTimeout = 4
)

var (
	// ErrInvalidOptions is returned (wrapped) by [New] when [Options] hold a
	// value the SDK would reject or that would break a turn.
	ErrInvalidOptions = errors.New("temporaltool: invalid options")
	// ErrAlreadyRegistered is returned (wrapped) by [Turns.Register] and
	// [Turns.RegisterWorkflow] when the worker already holds the workflow or
	// the activity they register, where the SDK itself panics.
	ErrAlreadyRegistered = errors.New("temporaltool: already registered")
)

// Options configures [Turns]. A nil *Options, like the zero value, means the
// defaults.
type Options struct {
	// Activity are the options of the activity that runs each call; zero
	// fields get working defaults. Summary, when empty, becomes the tool's
	// name. When both StartToCloseTimeout and ScheduleToCloseTimeout are zero,
	// StartToCloseTimeout is 10 minutes. A zero HeartbeatTimeout is 10
	// seconds: the activity heartbeats four times per HeartbeatTimeout, and
	// the SDK sends a heartbeat at most every 80% of it, so a cancelled
	// workflow cancels the tool's context within HeartbeatTimeout. A nil
	// RetryPolicy, or one whose MaximumAttempts is zero (which the SDK reads
	// as unlimited), gets at most 3 attempts. ActivityID must be empty: each
	// call is an activity of its own. TaskQueue, when set, sends the calls
	// to the workers of another task queue, which must register the same
	// tools. With WaitForCancellation, a cancelled batch waits until each
	// running call's activity has acknowledged the cancellation.
	Activity workflow.ActivityOptions
}

// Turns runs agent turns on Temporal: each tool call of a batch is an
// activity, or, for a tool that implements [agenttool.Waiter], a durable
// workflow timer, so that a turn survives the restart of any process and its
// calls spread over every worker of a task queue.
//
// Every worker registers Turns built over the same registry (the same tools
// under the same names): the workflow decides the batch rule from the
// registry of whichever worker runs it, and a call runs on whichever worker
// takes its activity. A Turns is immutable and safe for concurrent use.
type Turns struct {
	tools    map[string]tool
	names    []string
	activity workflow.ActivityOptions
}

// tool is a registered tool with the metadata that the workflow reads.
type tool struct {
	agenttool.Tool
	safe   bool
	waiter agenttool.Waiter // nil unless the tool implements it
}

// New returns durable turns over reg. Every worker registers the same
// registry. A nil reg is an empty registry: every call fails as unknown.
// opts may be nil; an error wraps [ErrInvalidOptions].
func New(reg *agenttool.Registry, opts *Options) (*Turns, error) {
	var ao workflow.ActivityOptions
	if opts != nil {
		ao = opts.Activity
	}
	ao, err := withDefaults(ao)
	if err != nil {
		return nil, err
	}
	t := &Turns{
		tools:    make(map[string]tool, reg.Len()),
		names:    reg.Names(),
		activity: ao,
	}
	for _, tl := range reg.Tools() {
		w, _ := tl.(agenttool.Waiter)
		t.tools[tl.Name()] = tool{Tool: tl, safe: agenttool.IsConcurrencySafe(tl), waiter: w}
	}
	return t, nil
}

// withDefaults checks ao and fills its zero fields.
func withDefaults(ao workflow.ActivityOptions) (workflow.ActivityOptions, error) {
	for _, timeout := range []struct {
		name string
		d    time.Duration
	}{
		{"StartToCloseTimeout", ao.StartToCloseTimeout},
		{"ScheduleToCloseTimeout", ao.ScheduleToCloseTimeout},
		{"ScheduleToStartTimeout", ao.ScheduleToStartTimeout},
		{"HeartbeatTimeout", ao.HeartbeatTimeout},
	} {
		if timeout.d < 0 {
			return ao, fmt.Errorf("%w: Activity.%s is %v; want 0 (the default) or more", ErrInvalidOptions, timeout.name, timeout.d)
		}
	}
	if ao.ActivityID != "" {
		return ao, fmt.Errorf("%w: Activity.ActivityID is %q; want it empty, since each call is an activity of its own", ErrInvalidOptions, ao.ActivityID)
	}
	if ao.StartToCloseTimeout == 0 && ao.ScheduleToCloseTimeout == 0 {
		ao.StartToCloseTimeout = defaultStartToClose
	}
	if ao.HeartbeatTimeout == 0 {
		ao.HeartbeatTimeout = defaultHeartbeat
	}
	rp := temporal.RetryPolicy{}
	if ao.RetryPolicy != nil {
		rp = *ao.RetryPolicy
	}
	switch {
	case rp.MaximumAttempts < 0:
		return ao, fmt.Errorf("%w: Activity.RetryPolicy.MaximumAttempts is %d; want 0 (the default, %d) or more", ErrInvalidOptions, rp.MaximumAttempts, defaultMaxAttempts)
	case rp.InitialInterval < 0 || rp.MaximumInterval < 0:
		return ao, fmt.Errorf("%w: Activity.RetryPolicy has a negative interval", ErrInvalidOptions)
	case rp.BackoffCoefficient != 0 && rp.BackoffCoefficient < 1:
		return ao, fmt.Errorf("%w: Activity.RetryPolicy.BackoffCoefficient is %v; want 0 (the default) or at least 1", ErrInvalidOptions, rp.BackoffCoefficient)
	}
	if rp.MaximumAttempts == 0 {
		rp.MaximumAttempts = defaultMaxAttempts
	}
	ao.RetryPolicy = &rp
	return ao, nil
}

// Register registers, on a worker (or the SDK's test environment), the
// activity that runs the tools' calls ("agenttool.Execute") and
// [TurnWorkflow]. Register it on every
// worker of the task queue. Registering on a worker that already holds
// either (this Turns or another) returns an error wrapping
// [ErrAlreadyRegistered], and any other refusal of the SDK (which panics)
// an error too; the workflow is registered first, so when only the activity
// is refused the worker keeps the workflow.
func (t *Turns) Register(w worker.Registry) error {
	if err := t.RegisterWorkflow(w); err != nil {
		return err
	}
	return guard("activity "+executeActivity, func() {
		w.RegisterActivityWithOptions(t.execute, activity.RegisterOptions{Name: executeActivity})
	})
}

// RegisterWorkflow registers [TurnWorkflow] alone, for a replayer
// ([worker.WorkflowReplayer] is no [worker.Registry]) or a worker that runs
// workflows only. Registering it twice returns an error wrapping
// [ErrAlreadyRegistered].
func (t *Turns) RegisterWorkflow(w worker.WorkflowRegistry) error {
	return guard("workflow "+TurnWorkflow, func() {
		w.RegisterWorkflowWithOptions(t.turn, workflow.RegisterOptions{Name: TurnWorkflow})
	})
}

// guard turns the SDK's registration panic into an error.
func guard(what string, register func()) (err error) {
	defer func() {
		p := recover()
		switch {
		case p == nil:
		case strings.Contains(fmt.Sprint(p), "already registered"):
			err = fmt.Errorf("%w: registering %s: %v", ErrAlreadyRegistered, what, p)
		default:
			err = fmt.Errorf("temporaltool: registering %s: %v", what, p)
		}
	}()
	register()
	return nil
}

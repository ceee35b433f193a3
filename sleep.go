package agenttool

import (
	"context"
	"encoding/json"
	"strconv"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/agenttool/agenttool/internal/sleeparg"
)

// MaxSleepSeconds is the longest pause [SleepTool] accepts: 24 hours.
//
// The cap bounds how long one call can hold a foreground turn, its goroutine
// and its timer. Waits that are longer, or that must survive a restart of the
// process, belong to a scheduler that persists them, not to a tool call.
const MaxSleepSeconds = 86400

// SleepTool is the native "sleep" tool: a model-callable pause of 0 to
// [MaxSleepSeconds] whole seconds.
//
// Its arguments are an object with one required member "seconds", a plain
// JSON integer literal from 0 through 86400 (`0`, `7`, `86400`). Anything
// else — a missing or null value, `-0` or another negative, a fraction or an
// exponent (`1.5`, `1.0`, `1e3`), a string, boolean, array or object, a value
// above the cap, arguments that are not a JSON object or not valid JSON — is
// an unsuccessful [ToolResult] naming "seconds" and the allowed range, with a
// nil Go error. Keys match case-sensitively ("Seconds" is an unknown member),
// and unknown members are ignored.
//
// A pause of 0 succeeds at once without arming a timer. A longer one waits on
// a single timer of Clock, which it stops before returning; when ctx ends
// first it returns at once with an error wrapping ctx.Err() (and
// [context.Cause] when that differs). On success Output is exactly
// "Slept for N second(s)." with N the requested seconds.
//
// The zero value is ready to use. SleepTool keeps no state, starts no
// goroutine and sends no messages; it may be called concurrently, but it is
// not [ConcurrencySafe]: a pause is meant to hold its turn, so a [Turn] runs
// a batch holding a sleep one call at a time.
type SleepTool struct {
	// Clock is what the pause waits on; nil means the real clock.
	Clock clock.Clock
}

var _ Tool = SleepTool{}

// returnsPromptlyOnCancel marks SleepTool as returning at once when its
// context ends, whatever its Clock: a Turn may run it on the caller's goroutine.
func (SleepTool) returnsPromptlyOnCancel() {}

const sleepSchema = `{"type":"object","properties":{"seconds":{"type":"integer","minimum":0,"maximum":86400,` +
	`"description":"How many whole seconds to pause, from 0 to 86400 (24 hours)."}},"required":["seconds"]}`

// Name returns "sleep".
func (SleepTool) Name() string { return "sleep" }

// Description tells the model what the tool does and when to use something else.
func (SleepTool) Description() string {
	return "Pause for a whole number of seconds, from 0 to 86400 (24 hours), then report how long it paused. " +
		"Use it to wait before checking on something again. It stops early if the turn is cancelled. " +
		"Longer waits, or waits that must survive a restart, need a scheduler instead."
}

// Parameters returns the JSON Schema of the arguments: an object with one
// required integer "seconds", minimum 0, maximum 86400.
func (SleepTool) Parameters() json.RawMessage { return json.RawMessage(sleepSchema) }

// Execute validates args and pauses; see [SleepTool] for the contract.
func (s SleepTool) Execute(ctx context.Context, args json.RawMessage) (ToolResult, error) {
	n, problem := sleeparg.Seconds(args)
	if problem != "" {
		return ToolResult{Error: problem}, nil
	}
	if n > 0 {
		clk := s.Clock
		if clk == nil {
			clk = clock.New()
		}
		t := clk.Timer(time.Duration(n) * time.Second)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return ToolResult{}, &interruptedError{seconds: n, why: endedOf(ctx)}
		}
	}
	return ToolResult{Success: true, Output: sleptFor(n)}, nil
}

func sleptFor(n int) string {
	return "Slept for " + strconv.Itoa(n) + " second(s)."
}

// interruptedError is the error of a sleep whose context ended.
type interruptedError struct {
	seconds int
	why     contextEnded
}

func (e *interruptedError) Error() string {
	return "sleep of " + strconv.Itoa(e.seconds) + " second(s) interrupted: " + e.why.Error()
}

func (e *interruptedError) Unwrap() error { return e.why }

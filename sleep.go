package agenttool

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/agenttool/agenttool/internal/jsonarg"
)

// MaxSleepSeconds is the longest pause [SleepTool] accepts: 24 hours.
//
// The cap bounds how long one call can hold a foreground turn, its goroutine
// and its timer. Waits that are longer, or that must survive a restart of the
// process, belong to a scheduler that persists them (see [Waiter]), not to a
// tool call.
const MaxSleepSeconds = 86400

// Waiter is implemented by tools whose whole call is a wait, so that an
// engine with durable timers can replace the wait with a timer of its own
// that survives restarts.
//
// Wait judges args exactly as Execute would, without waiting. With ok false,
// res is exactly the unsuccessful result Execute gives for these args. With
// ok true, Execute would wait d on its clock and then return res. Wait must
// not block, and may be called concurrently.
type Waiter interface {
	Wait(args json.RawMessage) (d time.Duration, res ToolResult, ok bool)
}

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
// SleepTool implements [Waiter] (the judged arguments and the pause, without
// pausing) and [Estimator] (the pause). The zero value is ready to use.
// SleepTool keeps no state, starts no goroutine, sends no messages and does
// not report progress; it may be called concurrently, but it is not
// [ConcurrencySafe]: a pause is meant to hold its turn, so a [Turn] runs a
// batch holding a sleep one call at a time.
type SleepTool struct {
	// Clock is what the pause waits on; nil means the real clock.
	Clock clock.Clock
}

var (
	_ Tool      = SleepTool{}
	_ Waiter    = SleepTool{}
	_ Estimator = SleepTool{}
)

var (
	maxSleep     = strconv.Itoa(MaxSleepSeconds)
	secondsRange = "an integer from 0 to " + maxSleep
	sleepSchema  = `{"type":"object","properties":{"seconds":{"type":"integer","minimum":0,"maximum":` + maxSleep +
		`,"description":"How many whole seconds to pause, from 0 to ` + maxSleep + ` (24 hours)."}},"required":["seconds"]}`
	sleepDescription = "Pause for a whole number of seconds, from 0 to " + maxSleep + " (24 hours), then report how long it paused. " +
		"Use it to wait before checking on something again. It stops early if the turn is cancelled. " +
		"Longer waits, or waits that must survive a restart, need a scheduler instead."
)

// Name returns "sleep".
func (SleepTool) Name() string { return "sleep" }

// Description tells the model what the tool does and when to use something else.
func (SleepTool) Description() string { return sleepDescription }

// Parameters returns the JSON Schema of the arguments: an object with one
// required integer "seconds", minimum 0, maximum [MaxSleepSeconds].
func (SleepTool) Parameters() json.RawMessage { return json.RawMessage(sleepSchema) }

// Wait judges args as Execute does and returns the pause they ask for and
// the result Execute gives after it; see [Waiter].
func (SleepTool) Wait(args json.RawMessage) (time.Duration, ToolResult, bool) {
	n, problem := sleepSeconds(args)
	if problem != "" {
		return 0, ToolResult{Error: problem}, false
	}
	return time.Duration(n) * time.Second, ToolResult{Success: true, Output: sleptFor(n)}, true
}

// Estimate returns the pause that args ask for, or false when they are not
// valid; see [Estimator].
func (s SleepTool) Estimate(args json.RawMessage) (time.Duration, bool) {
	d, _, ok := s.Wait(args)
	return d, ok
}

// Execute validates args and pauses; see [SleepTool] for the contract.
func (s SleepTool) Execute(ctx context.Context, args json.RawMessage) (ToolResult, error) {
	d, res, ok := s.Wait(args)
	if !ok || d == 0 {
		return res, nil
	}
	clk := s.Clock
	if clk == nil {
		clk = clock.New()
	}
	t := clk.Timer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return res, nil
	case <-ctx.Done():
		return ToolResult{}, &interruptedError{seconds: int(d / time.Second), why: endedOf(ctx)}
	}
}

// sleepSeconds returns the seconds that sleep arguments ask for, or, when
// they are not valid, a problem in words the model can act on, naming
// "seconds" and the allowed range.
func sleepSeconds(args []byte) (int, string) {
	raw, found, err := jsonarg.Member(args, "seconds")
	switch {
	case errors.Is(err, jsonarg.ErrNotJSON):
		return 0, `arguments are not valid JSON; send an object like {"seconds": 5}, where "seconds" is ` + secondsRange
	case err != nil:
		return 0, `arguments must be a JSON object like {"seconds": 5}, where "seconds" is ` + secondsRange
	case !found || jsonarg.IsNull(raw):
		return 0, `"seconds" is required: ` + secondsRange
	}
	if n, ok := plainSeconds(raw); ok {
		return n, ""
	}
	return 0, `"seconds" must be ` + secondsRange + ", got " + jsonarg.Excerpt(string(raw))
}

// plainSeconds accepts only the lexemes 0 and [1-9][0-9]* up to the cap, so
// that 1.0, 1e3 and -0 are refused even though they denote integers.
func plainSeconds(raw []byte) (int, bool) {
	if len(raw) == 0 || len(raw) > len(maxSleep) || (raw[0] == '0' && len(raw) > 1) {
		return 0, false
	}
	n := 0
	for _, c := range raw {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, n <= MaxSleepSeconds
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

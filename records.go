package agenttool

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
)

// ToolStatus is where a call stands. A call starts [StatusPending], becomes
// [StatusRunning], and ends [StatusSucceeded], [StatusFailed] or
// [StatusCancelled]; once ended it never changes.
type ToolStatus int

// The statuses of a call.
const (
	StatusPending   ToolStatus = iota // added to the turn, not started
	StatusRunning                     // its tool is executing
	StatusSucceeded                   // the tool returned a successful result
	StatusFailed                      // unknown tool, unsuccessful result, Go error or panic
	StatusCancelled                   // the turn ended before the call finished
)

var statusNames = [...]string{"pending", "running", "succeeded", "failed", "cancelled"}

// String returns the lower-case name of s, or "ToolStatus(N)" for a value
// out of range.
func (s ToolStatus) String() string {
	if s >= 0 && int(s) < len(statusNames) {
		return statusNames[s]
	}
	return fmt.Sprintf("ToolStatus(%d)", int(s))
}

// Finished reports whether s is a final status: succeeded, failed or cancelled.
func (s ToolStatus) Finished() bool {
	return s == StatusSucceeded || s == StatusFailed || s == StatusCancelled
}

// MarshalText encodes s as its lower-case name; a value out of range is an error.
func (s ToolStatus) MarshalText() ([]byte, error) {
	if s < 0 || int(s) >= len(statusNames) {
		return nil, fmt.Errorf("agenttool: invalid ToolStatus %d", int(s))
	}
	return []byte(statusNames[s]), nil
}

// UnmarshalText decodes a lower-case status name.
func (s *ToolStatus) UnmarshalText(text []byte) error {
	for i, name := range statusNames {
		if string(text) == name {
			*s = ToolStatus(i)
			return nil
		}
	}
	return fmt.Errorf("agenttool: unknown ToolStatus %q", text)
}

// ToolCall is one call a model asked for.
type ToolCall struct {
	ID   string          `json:"id"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"arguments"`
}

// MarshalJSON encodes the call with its arguments as they are when they are
// valid JSON, as a JSON string holding them when they are not (a model can
// send broken arguments, and the record of the call must still encode), and
// as null when there are none.
func (c ToolCall) MarshalJSON() ([]byte, error) {
	type plain ToolCall
	p := plain(c)
	switch {
	case len(bytes.TrimSpace(p.Args)) == 0:
		p.Args = nil
	case !json.Valid(p.Args):
		quoted, err := json.Marshal(string(p.Args))
		if err != nil {
			return nil, err
		}
		p.Args = quoted
	}
	return json.Marshal(p)
}

// ToolBlock is the record of one call within a turn. StartedAt is zero for a
// call cancelled before it started; EndedAt is zero until the call ends.
// Both come from [TurnOptions].Clock. Progress is the latest report the
// tool made with [ReportProgress] while it ran; it is kept once the call
// has ended, and zero when the tool reported nothing.
type ToolBlock struct {
	Call      ToolCall   `json:"call"`
	Status    ToolStatus `json:"status"`
	Result    ToolResult `json:"result"`
	StartedAt time.Time  `json:"started_at"`
	EndedAt   time.Time  `json:"ended_at"`
	Progress  Progress   `json:"progress,omitzero"`
}

// Snapshot is the state of every call of a turn at one moment. It is a deep
// copy: changing it changes nothing in the turn.
type Snapshot struct {
	// Seq numbers the turn's changes; it strictly increases within a turn.
	Seq uint64 `json:"seq"`
	// Blocks holds every block of the turn, across batches, in call order.
	Blocks []ToolBlock `json:"blocks"`
	// Final marks the terminal snapshot, in which no block is pending or running.
	Final bool `json:"final"`
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttool/agenttool"
)

// runOnTerminal runs the command in-process with stderr taken for a
// terminal and the given tools.
func runOnTerminal(t *testing.T, tools []agenttool.Tool, args ...string) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, env{
		stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr,
		terminal: func(io.Writer) bool { return true },
		tools:    func() []agenttool.Tool { return tools },
	})
	return result{code, stdout.String(), stderr.String()}
}

func TestFeedbackShowsReportedProgress(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		steps := &agenttool.FuncTool{ToolName: "steps", ToolDescription: "three steps", Schema: json.RawMessage(`{"type":"object"}`),
			Fn: func(ctx context.Context, _ json.RawMessage) (agenttool.ToolResult, error) {
				agenttool.ReportProgress(ctx, agenttool.Progress{Done: 1, Total: 3, Message: "one"})
				time.Sleep(time.Second)
				agenttool.ReportProgress(ctx, agenttool.Progress{Done: 2, Total: 3, Message: "two"})
				time.Sleep(time.Second)
				return agenttool.OK("three"), nil
			}}
		r := runOnTerminal(t, []agenttool.Tool{steps}, "call", "steps")
		require.Equal(t, 0, r.code, r.stderr)
		assert.Equal(t, "three\n", r.stdout)
		assert.Contains(t, r.stderr, "steps: one")
		assert.Contains(t, r.stderr, " 33%")
		assert.Contains(t, r.stderr, "steps: two")
		assert.Contains(t, r.stderr, " 66%")
	})
}

func TestFeedbackSpinnerWithoutEstimateOrReports(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		quiet := &agenttool.FuncTool{ToolName: "quiet", ToolDescription: "says nothing", Schema: json.RawMessage(`{"type":"object"}`),
			Fn: func(context.Context, json.RawMessage) (agenttool.ToolResult, error) {
				time.Sleep(2 * time.Second)
				return agenttool.OK("done"), nil
			}}
		r := runOnTerminal(t, []agenttool.Tool{quiet}, "call", "quiet")
		require.Equal(t, 0, r.code, r.stderr)
		assert.Contains(t, r.stderr, "quiet 1s")
		assert.NotContains(t, r.stderr, "%", "a spinner, not a bar")
	})
}

func TestFeedbackTimeBarAddsUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := runOnTerminal(t, agenttool.DefaultTools(), "call", "sleep", `{"seconds":5}`)
		require.Equal(t, 0, r.code, r.stderr)
		for _, want := range []string{"sleep 0s elapsed, 5s left", "sleep 2s elapsed, 3s left", "sleep 4s elapsed, 1s left"} {
			assert.Contains(t, r.stderr, want)
		}
		assert.Contains(t, r.stderr, " 40%", "the bar agrees with the times: 2 of 5 seconds")
		assert.NotRegexp(t, `\[\d+s:\d+s\]`, r.stderr)
	})
}

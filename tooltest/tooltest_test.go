package tooltest_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/agenttool/agenttool"
	"github.com/agenttool/agenttool/functool"
	"github.com/agenttool/agenttool/tooltest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestSleepToolConforms(t *testing.T) {
	tooltest.Run(t, func(*testing.T) agenttool.Tool { return agenttool.SleepTool{} })
}

type lookupArgs struct {
	Query string `json:"query" jsonschema:"what to look up"`
	Limit int    `json:"limit,omitempty" jsonschema:"how many results"`
}

func TestFunctoolConforms(t *testing.T) {
	for _, reject := range []bool{false, true} {
		tooltest.Run(t, func(t *testing.T) agenttool.Tool {
			tool, err := functool.New("lookup", "Look something up.",
				func(ctx context.Context, in lookupArgs) (agenttool.ToolResult, error) {
					select {
					case <-time.After(10 * time.Millisecond):
						return agenttool.OK(in.Query), nil
					case <-ctx.Done():
						return agenttool.ToolResult{}, ctx.Err()
					}
				}, &functool.Options{ConcurrencySafe: true, RejectUnknown: reject})
			require.NoError(t, err)
			return tool
		})
	}
}

// broken tools, each breaking one rule; TestBrokenToolsFail checks that Run
// reports each one.
func brokenTool(kind string) agenttool.Tool {
	tool := &agenttool.FuncTool{
		ToolName:        "broken",
		ToolDescription: "A tool that breaks a rule.",
		Schema:          json.RawMessage(`{"type":"object"}`),
	}
	validate := func(args json.RawMessage) bool {
		var m map[string]any
		return len(args) == 0 || string(args) == "null" || json.Unmarshal(args, &m) == nil
	}
	calls := 0
	switch kind {
	case "panics":
		tool.Fn = func(context.Context, json.RawMessage) (agenttool.ToolResult, error) { panic("oops") }
	case "goerror":
		tool.Fn = func(_ context.Context, args json.RawMessage) (agenttool.ToolResult, error) {
			if !validate(args) {
				return agenttool.ToolResult{}, errors.New("bad json")
			}
			return agenttool.OK("ok"), nil
		}
	case "acceptsanything":
		tool.Fn = func(context.Context, json.RawMessage) (agenttool.ToolResult, error) { return agenttool.OK("ok"), nil }
	case "silentfailure":
		tool.Fn = func(context.Context, json.RawMessage) (agenttool.ToolResult, error) {
			return agenttool.ToolResult{}, nil
		}
	case "ignorescancel":
		// Only a call with "x" gets past validation, so that the checks
		// which are not about cancellation do not wait for it.
		tool.Schema = json.RawMessage(`{"type":"object","properties":{"x":{"type":"string"}},"required":["x"]}`)
		tool.Fn = func(_ context.Context, args json.RawMessage) (agenttool.ToolResult, error) {
			if !validate(args) || !strings.Contains(string(args), `"x"`) {
				return agenttool.Failf("bad"), nil
			}
			time.Sleep(time.Hour)
			return agenttool.OK("slept"), nil
		}
	case "wrongcancelerror":
		tool.Schema = json.RawMessage(`{"type":"object","properties":{"x":{"type":"string"}},"required":["x"]}`)
		tool.Fn = func(ctx context.Context, args json.RawMessage) (agenttool.ToolResult, error) {
			if !validate(args) || !strings.Contains(string(args), `"x"`) {
				return agenttool.Failf("bad"), nil
			}
			<-ctx.Done()
			return agenttool.ToolResult{}, errors.New("stopped")
		}
	case "nullisnotempty":
		tool.Fn = func(_ context.Context, args json.RawMessage) (agenttool.ToolResult, error) {
			if len(args) == 0 || string(args) == "null" || !validate(args) {
				return agenttool.Failf("want an object"), nil
			}
			return agenttool.OK("ok"), nil
		}
	case "exits":
		tool.Fn = func(context.Context, json.RawMessage) (agenttool.ToolResult, error) {
			runtime.Goexit()
			return agenttool.OK("unreachable"), nil
		}
	case "badname":
		tool.ToolName = "bad name"
	case "nodescription":
		tool.ToolDescription = " "
	case "badschema":
		tool.Schema = json.RawMessage(`{"type":"string"}`)
	case "racy":
		tool.Safe = true
		tool.Fn = func(context.Context, json.RawMessage) (agenttool.ToolResult, error) {
			calls++ // unguarded: a data race when called concurrently
			return agenttool.Failf("bad"), nil
		}
	}
	if tool.Fn == nil {
		tool.Fn = func(_ context.Context, args json.RawMessage) (agenttool.ToolResult, error) {
			if !validate(args) {
				return agenttool.Failf("bad"), nil
			}
			return agenttool.OK("ok"), nil
		}
	}
	return tool
}

// TestBrokenToolHelper runs tooltest.Run on one broken tool; it only runs as
// the child process of TestBrokenToolsFail.
func TestBrokenToolHelper(t *testing.T) {
	kind := os.Getenv("TOOLTEST_BROKEN")
	if kind == "" {
		t.Skip("runs only as the child of TestBrokenToolsFail")
	}
	tooltest.Run(t, func(*testing.T) agenttool.Tool { return brokenTool(kind) })
}

func TestBrokenToolsFail(t *testing.T) {
	cases := map[string]string{
		"panics":           `panicked: oops`,
		"goerror":          `returned Go error bad json; a bad call must be an unsuccessful result`,
		"acceptsanything":  `succeeded; arguments that are not a JSON object must be refused`,
		"silentfailure":    `failed with an empty Error`,
		"ignorescancel":    `is still running 2s with a cancelled context`,
		"exits":            `ended its goroutine without returning`,
		"wrongcancelerror": `after cancel returned stopped; want a result or an error satisfying errors.Is(err, context.Canceled)`,
		"nullisnotempty":   `treat it as {}`,
		"badname":          `Name() = "bad name"`,
		"nodescription":    `Description() is empty`,
		"badschema":        `NewRegistry rejects the tool`,
	}
	if raceEnabled {
		cases["racy"] = "WARNING: DATA RACE"
	}
	for kind, want := range cases {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(os.Args[0], "-test.run=^TestBrokenToolHelper$", "-test.count=1")
			cmd.Env = append(os.Environ(), "TOOLTEST_BROKEN="+kind)
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			require.ErrorAs(t, err, &exit, "tooltest.Run passed a tool that is %s:\n%s", kind, out)
			assert.Contains(t, string(out), want)
		})
	}
}

func TestHealthyFuncToolPasses(t *testing.T) {
	tooltest.Run(t, func(*testing.T) agenttool.Tool { return brokenTool("healthy") })
}

package einotool_test

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttool/agenttool"
	"github.com/agenttool/agenttool/adapters/einotool"
	"github.com/agenttool/agenttool/functool"
)

type addArgs struct {
	A int `json:"a" jsonschema:"the first addend"`
	B int `json:"b" jsonschema:"the second addend"`
}

// newAdd returns a functool tool that adds two integers.
func newAdd(t *testing.T) agenttool.Tool {
	t.Helper()
	add, err := functool.New("add", "Add two integers.",
		func(_ context.Context, in addArgs) (agenttool.ToolResult, error) {
			return agenttool.OK(strconv.Itoa(in.A + in.B)), nil
		}, &functool.Options{ConcurrencySafe: true})
	require.NoError(t, err)
	return add
}

// newAgent builds Eino's ReAct agent over the tools of reg, driven by m.
func newAgent(t *testing.T, reg *agenttool.Registry, m *scriptedModel) *react.Agent {
	t.Helper()
	tools, err := einotool.Tools(reg)
	require.NoError(t, err)
	agent, err := react.NewAgent(context.Background(), &react.AgentConfig{
		ToolCallingModel: m,
		ToolsConfig:      compose.ToolsNodeConfig{Tools: tools},
	})
	require.NoError(t, err)
	return agent
}

func TestReActAgentRunsSleepAndFunctoolOnMockClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mock := clock.NewMock()
		add := newAdd(t)
		reg, err := agenttool.NewRegistry(append(agenttool.DefaultToolsWithClock(mock), add)...)
		require.NoError(t, err)
		badArgs := `{"a":"two","b":3}`
		m := newScriptedModel(
			askFor(
				[3]string{"call-sleep", "sleep", `{"seconds":5}`},
				[3]string{"call-add", "add", `{"a":2,"b":3}`},
				[3]string{"call-bad", "add", badArgs},
			),
			schema.AssistantMessage("All done.", nil),
		)
		agent := newAgent(t, reg, m)

		type outcome struct {
			msg *schema.Message
			err error
		}
		done := make(chan outcome, 1)
		go func() {
			msg, err := agent.Generate(context.Background(), []*schema.Message{schema.UserMessage("wait, then add")})
			done <- outcome{msg, err}
		}()
		synctest.Wait()
		select {
		case o := <-done:
			t.Fatalf("the run ended before the mock clock moved: %v, %v", o.msg, o.err)
		default:
		}
		mock.Add(5 * time.Second)
		synctest.Wait()
		o := <-done

		require.NoError(t, o.err)
		assert.Equal(t, "All done.", o.msg.Content)
		calls := m.calls()
		require.Len(t, calls, 2, "the model is asked once for the calls and once with their results")
		bad, err := add.Execute(context.Background(), json.RawMessage(badArgs))
		require.NoError(t, err)
		require.False(t, bad.Success, "the bad arguments must fail the functool tool itself")
		assert.Equal(t, map[string]string{
			"call-sleep": "Slept for 5 second(s).",
			"call-add":   "5",
			"call-bad":   einotool.FailurePrefix + bad.Error,
		}, toolAnswers(calls[1]))
		assert.Contains(t, bad.Error, `"a"`, "the failure names the bad member")
		var ids []string
		for _, msg := range calls[1] {
			if msg.Role == schema.Tool {
				ids = append(ids, msg.ToolCallID)
			}
		}
		assert.Equal(t, []string{"call-sleep", "call-add", "call-bad"}, ids, "tool messages in call order")
	})
}

func TestReActAgentSleepZeroOnRealClock(t *testing.T) {
	reg, err := agenttool.NewRegistry(agenttool.DefaultTools()...)
	require.NoError(t, err)
	m := newScriptedModel(
		askFor([3]string{"s0", "sleep", `{"seconds":0}`}),
		schema.AssistantMessage("Rested.", nil),
	)
	msg, err := newAgent(t, reg, m).Generate(context.Background(), []*schema.Message{schema.UserMessage("rest")})
	require.NoError(t, err)
	assert.Equal(t, "Rested.", msg.Content)
	calls := m.calls()
	require.Len(t, calls, 2)
	assert.Equal(t, map[string]string{"s0": "Slept for 0 second(s)."}, toolAnswers(calls[1]))
}

func TestModelSeesNamesDescriptionsAndSchemas(t *testing.T) {
	reg, err := agenttool.NewRegistry(append(agenttool.DefaultTools(), newAdd(t))...)
	require.NoError(t, err)
	m := newScriptedModel(schema.AssistantMessage("Nothing to do.", nil))
	_, err = newAgent(t, reg, m).Generate(context.Background(), []*schema.Message{schema.UserMessage("hi")})
	require.NoError(t, err)

	seen := m.toolsSeen(t)
	defs := reg.Definitions()
	require.Len(t, seen, len(defs))
	for i, def := range defs {
		assert.Equal(t, def.Name, seen[i].Name)
		assert.Equal(t, def.Description, seen[i].Desc)
		requireSameJSON(t, def.Parameters, infoParamsJSON(t, seen[i]))
	}
}

func TestArgumentsReachExecuteByteForByte(t *testing.T) {
	var got atomic.Value
	echo := &agenttool.FuncTool{
		ToolName: "echo", Schema: json.RawMessage(`{"type":"object"}`),
		Fn: func(_ context.Context, args json.RawMessage) (agenttool.ToolResult, error) {
			got.Store(string(args))
			return agenttool.OK("ok"), nil
		},
	}
	reg, err := agenttool.NewRegistry(echo)
	require.NoError(t, err)
	tools, err := einotool.Tools(reg)
	require.NoError(t, err)
	for _, args := range []string{
		` { "b" : 1.0 , "a":[1e3, -0], "B":"\u00e9" } `,
		`{"a":1,"a":2}`,
		`not json`,
		``,
		`null`,
	} {
		out, err := tools[0].(tool.InvokableTool).InvokableRun(context.Background(), args)
		require.NoError(t, err)
		assert.Equal(t, "ok", out)
		assert.Equal(t, args, got.Load())
	}
}

func TestFailuresAreTextForTheModel(t *testing.T) {
	reg, err := agenttool.NewRegistry(
		&agenttool.FuncTool{ToolName: "boom", Schema: json.RawMessage(`{}`),
			Fn: func(context.Context, json.RawMessage) (agenttool.ToolResult, error) { panic("kaboom") }},
		&agenttool.FuncTool{ToolName: "refuse", Schema: json.RawMessage(`{}`),
			Fn: func(context.Context, json.RawMessage) (agenttool.ToolResult, error) {
				return agenttool.Failf("no %s today", "refunds"), nil
			}},
		&agenttool.FuncTool{ToolName: "broken", Schema: json.RawMessage(`{}`),
			Fn: func(context.Context, json.RawMessage) (agenttool.ToolResult, error) {
				return agenttool.ToolResult{}, errors.New("disk full")
			}},
	)
	require.NoError(t, err)
	// The panicking call comes first: Eino runs the first call of a
	// message on its own goroutine without recovering panics.
	m := newScriptedModel(
		askFor(
			[3]string{"1", "boom", `{}`},
			[3]string{"2", "refuse", `{}`},
			[3]string{"3", "broken", `{}`},
		),
		schema.AssistantMessage("Sorry.", nil),
	)
	msg, err := newAgent(t, reg, m).Generate(context.Background(), []*schema.Message{schema.UserMessage("go")})
	require.NoError(t, err)
	assert.Equal(t, "Sorry.", msg.Content)
	calls := m.calls()
	require.Len(t, calls, 2)
	assert.Equal(t, map[string]string{
		"1": "error: tool panicked: kaboom",
		"2": "error: no refunds today",
		"3": "error: tool error: disk full",
	}, toolAnswers(calls[1]))
}

func TestToolsFollowTheRegistry(t *testing.T) {
	reg, err := agenttool.NewRegistry(append(agenttool.DefaultTools(), newAdd(t))...)
	require.NoError(t, err)
	for _, tc := range []struct {
		name string
		reg  *agenttool.Registry
		want []string
	}{
		{"all, in registration order", reg, []string{"sleep", "add"}},
		{"filtered", reg.Without("sleep"), []string{"add"}},
		{"nil registry", nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tools, err := einotool.Tools(tc.reg)
			require.NoError(t, err)
			var names []string
			for _, bt := range tools {
				_, ok := bt.(tool.InvokableTool)
				require.True(t, ok, "%T is not an InvokableTool", bt)
				info, err := bt.Info(context.Background())
				require.NoError(t, err)
				names = append(names, info.Name)
			}
			assert.Equal(t, tc.want, names)
		})
	}
}

func TestInfoIsFreshOnEachCall(t *testing.T) {
	reg, err := agenttool.NewRegistry(newAdd(t))
	require.NoError(t, err)
	tools, err := einotool.Tools(reg)
	require.NoError(t, err)
	first, err := tools[0].Info(context.Background())
	require.NoError(t, err)
	js, err := first.ToJSONSchema()
	require.NoError(t, err)
	js.Properties.Delete("a")
	first.Desc = "changed"
	second, err := tools[0].Info(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "Add two integers.", second.Desc)
	requireSameJSON(t, reg.Definitions()[0].Parameters, infoParamsJSON(t, second))
}

package adktool_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/genai"

	"google.golang.org/adk/v2/agent"
	"google.golang.org/adk/v2/agent/llmagent"
	"google.golang.org/adk/v2/model"
	"google.golang.org/adk/v2/runner"
	"google.golang.org/adk/v2/session"
	"google.golang.org/adk/v2/tool"

	"github.com/agenttool/agenttool"
	"github.com/agenttool/agenttool/adapters/adktool"
	"github.com/agenttool/agenttool/functool"
)

// scriptedModel is a model.LLM that answers each request with the next
// content of its script and records the requests it got.
type scriptedModel struct {
	mu     sync.Mutex
	script []*genai.Content
	reqs   []*model.LLMRequest
}

func (m *scriptedModel) Name() string { return "scripted" }

func (m *scriptedModel) GenerateContent(ctx context.Context, req *model.LLMRequest, _ bool) iter.Seq2[*model.LLMResponse, error] {
	return func(yield func(*model.LLMResponse, error) bool) {
		m.mu.Lock()
		m.reqs = append(m.reqs, req)
		if len(m.script) == 0 {
			m.mu.Unlock()
			yield(nil, errors.New("scripted model: no answer left"))
			return
		}
		answer := m.script[0]
		m.script = m.script[1:]
		m.mu.Unlock()
		if err := ctx.Err(); err != nil {
			yield(nil, err)
			return
		}
		yield(&model.LLMResponse{Content: answer, FinishReason: genai.FinishReasonStop}, nil)
	}
}

func (m *scriptedModel) requests() []*model.LLMRequest {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]*model.LLMRequest(nil), m.reqs...)
}

// fc is a function call a scripted model asks for; args is the JSON the
// model wrote.
type fc struct{ id, name, args string }

// ask returns a model answer holding the calls, their arguments parsed as
// ADK's model clients parse them (numbers become float64).
func ask(t *testing.T, calls ...fc) *genai.Content {
	t.Helper()
	c := &genai.Content{Role: genai.RoleModel}
	for _, call := range calls {
		var args map[string]any
		require.NoError(t, json.Unmarshal([]byte(call.args), &args))
		c.Parts = append(c.Parts, &genai.Part{FunctionCall: &genai.FunctionCall{ID: call.id, Name: call.name, Args: args}})
	}
	return c
}

func say(text string) *genai.Content { return genai.NewContentFromText(text, genai.RoleModel) }

// runAgent runs an llmagent over tools and m through ADK's runner with an
// in-memory session service, and returns the last text of the run.
func runAgent(ctx context.Context, tools []tool.Tool, m model.LLM) (string, error) {
	a, err := llmagent.New(llmagent.Config{Name: "assistant", Model: m, Tools: tools})
	if err != nil {
		return "", err
	}
	r, err := runner.New(runner.Config{AppName: "test", Agent: a, SessionService: session.InMemoryService(), AutoCreateSession: true})
	if err != nil {
		return "", err
	}
	var last string
	for ev, err := range r.Run(ctx, "user", "session", genai.NewContentFromText("go", genai.RoleUser), agent.RunConfig{}) {
		if err != nil {
			return last, err
		}
		if ev.Content == nil {
			continue
		}
		for _, p := range ev.Content.Parts {
			if p.Text != "" {
				last = p.Text
			}
		}
	}
	return last, nil
}

// responses returns the function responses the model got in req, by call ID.
func responses(req *model.LLMRequest) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, c := range req.Contents {
		for _, p := range c.Parts {
			if p.FunctionResponse != nil {
				out[p.FunctionResponse.ID] = p.FunctionResponse.Response
			}
		}
	}
	return out
}

// declarations returns the function declarations the model got in req.
func declarations(req *model.LLMRequest) []*genai.FunctionDeclaration {
	var out []*genai.FunctionDeclaration
	if req.Config == nil {
		return nil
	}
	for _, tl := range req.Config.Tools {
		out = append(out, tl.FunctionDeclarations...)
	}
	return out
}

type addArgs struct {
	A int `json:"a"`
	B int `json:"b"`
}

func newAdd(t testing.TB) agenttool.Tool {
	t.Helper()
	add, err := functool.New("add", "Add two integers.", func(_ context.Context, in addArgs) (agenttool.ToolResult, error) {
		return agenttool.OK(strconv.Itoa(in.A + in.B)), nil
	}, nil)
	require.NoError(t, err)
	return add
}

func newRegistry(t testing.TB, tools ...agenttool.Tool) *agenttool.Registry {
	t.Helper()
	reg, err := agenttool.NewRegistry(tools...)
	require.NoError(t, err)
	return reg
}

func newTools(t testing.TB, tools ...agenttool.Tool) []tool.Tool {
	t.Helper()
	out, err := adktool.Tools(newRegistry(t, tools...))
	require.NoError(t, err)
	return out
}

// The model asks for a sleep on a mock clock, a good call and a bad one in
// one answer; ADK's runner runs them, and the model's next request holds
// each answer: the outputs and the tool's own failure text.
func TestRunnerLoop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mock := clock.NewMock()
		add := newAdd(t)
		reg := newRegistry(t, agenttool.SleepTool{Clock: mock}, add)
		tools, err := adktool.Tools(reg)
		require.NoError(t, err)
		m := &scriptedModel{script: []*genai.Content{
			ask(t, fc{"c1", "sleep", `{"seconds":2}`}, fc{"c2", "add", `{"a":2,"b":3}`}, fc{"c3", "add", `{"a":"two","b":3}`}),
			say("done"),
		}}

		var final string
		var runErr error
		done := make(chan struct{})
		go func() {
			defer close(done)
			final, runErr = runAgent(t.Context(), tools, m)
		}()
		synctest.Wait()
		select {
		case <-done:
			require.FailNow(t, "the run ended before the sleep's time passed", "run error: %v", runErr)
		default:
		}
		mock.Add(2 * time.Second)
		<-done

		require.NoError(t, runErr)
		assert.Equal(t, "done", final)
		reqs := m.requests()
		require.Len(t, reqs, 2)

		decls := declarations(reqs[0])
		require.Len(t, decls, 2)
		for i, def := range reg.Definitions() {
			assert.Equal(t, def.Name, decls[i].Name)
			assert.Equal(t, def.Description, decls[i].Description)
			schema, err := json.Marshal(decls[i].ParametersJsonSchema)
			require.NoError(t, err)
			assert.JSONEq(t, string(def.Parameters), string(schema))
			assert.Nil(t, decls[i].Parameters, "the lossy genai.Schema is not used")
		}

		bad, err := add.Execute(t.Context(), json.RawMessage(`{"a":"two","b":3}`))
		require.NoError(t, err)
		require.False(t, bad.Success)
		assert.Equal(t, map[string]map[string]any{
			"c1": {"result": "Slept for 2 second(s)."},
			"c2": {"result": "5"},
			"c3": {"error": bad.Error},
		}, responses(reqs[1]))
	})
}

// A schema with keywords genai.Schema cannot hold reaches the model whole,
// and arguments that break it still reach the tool: ADK judges nothing.
func TestSchemaAndArgumentsReachUnjudged(t *testing.T) {
	const schema = `{"type":"object","$defs":{"pos":{"type":"integer","exclusiveMinimum":0}},` +
		`"properties":{"n":{"$ref":"#/$defs/pos"},"tags":{"type":"array","items":{"type":"string","pattern":"^[a-z]+$"},"uniqueItems":true}},` +
		`"required":["n"],"additionalProperties":false,"dependentRequired":{"tags":["n"]}}`
	var got []json.RawMessage
	var mu sync.Mutex
	record := &agenttool.FuncTool{
		ToolName: "record", ToolDescription: "Record the arguments.", Schema: json.RawMessage(schema),
		Fn: func(_ context.Context, args json.RawMessage) (agenttool.ToolResult, error) {
			mu.Lock()
			defer mu.Unlock()
			got = append(got, args)
			return agenttool.OK("recorded"), nil
		},
	}
	m := &scriptedModel{script: []*genai.Content{
		ask(t, fc{"c1", "record", `{"n":"not a number","extra":{"k":[1.5,null,true]},"s":"<&>"}`}),
		ask(t, fc{"c2", "record", `{"n":1.0,"big":1e3}`}),
		say("done"),
	}}
	final, err := runAgent(t.Context(), newTools(t, record), m)
	require.NoError(t, err)
	assert.Equal(t, "done", final)

	reqs := m.requests()
	require.Len(t, reqs, 3)
	decls := declarations(reqs[0])
	require.Len(t, decls, 1)
	sent, err := json.Marshal(decls[0].ParametersJsonSchema)
	require.NoError(t, err)
	assert.JSONEq(t, schema, string(sent))

	require.Len(t, got, 2)
	assert.JSONEq(t, `{"n":"not a number","extra":{"k":[1.5,null,true]},"s":"<&>"}`, string(got[0]))
	assert.Equal(t, `{"big":1000,"n":1}`, string(got[1]), "ADK's parsing loses number spellings, as the package doc says")
	assert.Equal(t, map[string]any{"result": "recorded"}, responses(reqs[2])["c2"])
}

// A tool that panics is a failed call the model reads about; the run goes
// on to the model's next answer.
func TestPanicIsAFailedCall(t *testing.T) {
	boom := &agenttool.FuncTool{
		ToolName: "boom", ToolDescription: "Panic.", Schema: json.RawMessage(`{"type":"object"}`),
		Fn: func(context.Context, json.RawMessage) (agenttool.ToolResult, error) { panic("kaboom") },
	}
	m := &scriptedModel{script: []*genai.Content{ask(t, fc{"c1", "boom", `{}`}), say("done")}}
	final, err := runAgent(t.Context(), newTools(t, boom), m)
	require.NoError(t, err)
	assert.Equal(t, "done", final)
	reqs := m.requests()
	require.Len(t, reqs, 2)
	resp := responses(reqs[1])["c1"]
	require.Contains(t, resp, "error")
	assert.NotContains(t, resp, "result")
	assert.Contains(t, resp["error"], "tool panicked: kaboom")
}

// The batch rule inside ADK's runner, which runs the calls of one answer in
// parallel: each tool waits inside its call until the test lets it go, so
// calls that may overlap are all inside at once, and calls that may not
// overlap come in one at a time.
func TestBatchRuleInRunner(t *testing.T) {
	tests := []struct {
		name string
		safe []bool
		want int32 // calls inside at once
	}{
		{"two unsafe", []bool{false, false}, 1},
		{"unsafe and safe", []bool{false, true}, 1},
		{"three safe", []bool{true, true, true}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var inside, most atomic.Int32
				release := make(chan struct{})
				var tools []agenttool.Tool
				var calls []fc
				for i, safe := range tt.safe {
					name := fmt.Sprintf("t%d", i)
					tools = append(tools, &agenttool.FuncTool{
						ToolName: name, ToolDescription: "Wait to be released.", Schema: json.RawMessage(`{"type":"object"}`), Safe: safe,
						Fn: func(ctx context.Context, _ json.RawMessage) (agenttool.ToolResult, error) {
							n := inside.Add(1)
							defer inside.Add(-1)
							for cur := most.Load(); n > cur && !most.CompareAndSwap(cur, n); cur = most.Load() {
							}
							select {
							case <-release:
								return agenttool.OK(name + " ran"), nil
							case <-ctx.Done():
								return agenttool.ToolResult{}, ctx.Err()
							}
						},
					})
					calls = append(calls, fc{"c" + name, name, `{}`})
				}
				m := &scriptedModel{script: []*genai.Content{ask(t, calls...), say("done")}}
				adkTools := newTools(t, tools...)

				var final string
				var runErr error
				done := make(chan struct{})
				go func() {
					defer close(done)
					final, runErr = runAgent(t.Context(), adkTools, m)
				}()
				synctest.Wait()
				assert.Equal(t, tt.want, inside.Load(), "calls inside at once")
				close(release)
				<-done

				require.NoError(t, runErr)
				assert.Equal(t, "done", final)
				assert.Equal(t, tt.want, most.Load(), "most calls ever inside at once")
				reqs := m.requests()
				require.Len(t, reqs, 2)
				resps := responses(reqs[1])
				for _, c := range calls {
					assert.Equal(t, map[string]any{"result": c.name + " ran"}, resps[c.id])
				}
			})
		})
	}
}

// callCtx is the agent.Context of a direct call: the embedded nil interface
// stands for every method a tool must not need.
type callCtx struct {
	agent.Context
	ctx context.Context
	id  string
}

func (c callCtx) Deadline() (time.Time, bool) { return c.ctx.Deadline() }
func (c callCtx) Done() <-chan struct{}       { return c.ctx.Done() }
func (c callCtx) Err() error                  { return c.ctx.Err() }
func (c callCtx) Value(key any) any           { return c.ctx.Value(key) }
func (c callCtx) FunctionCallID() string      { return c.id }

type functionRunner interface {
	Run(ctx agent.Context, args any) (map[string]any, error)
}

func runnable(t testing.TB, tl tool.Tool) functionRunner {
	t.Helper()
	r, ok := tl.(functionRunner)
	require.True(t, ok, "%T has no Run method for ADK's flow", tl)
	return r
}

// When the context ends, a running call and a call waiting for its turn
// both return at once with a Go error, as ADK expects.
func TestCancelledContextIsAGoError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mock := clock.NewMock()
		tools := newTools(t, agenttool.SleepTool{Clock: mock})
		sleep := runnable(t, tools[0])
		ctx, cancel := context.WithCancel(t.Context())
		type answer struct {
			res map[string]any
			err error
		}
		answers := make(chan answer, 2)
		for _, id := range []string{"first", "second"} {
			go func() {
				res, err := sleep.Run(callCtx{ctx: ctx, id: id}, map[string]any{"seconds": 60.0})
				answers <- answer{res, err}
			}()
		}
		synctest.Wait()
		require.Empty(t, answers, "one sleep runs, the other waits for its turn")
		cancel()
		for range 2 {
			a := <-answers
			assert.Nil(t, a.res)
			require.ErrorIs(t, a.err, context.Canceled)
			require.ErrorIs(t, a.err, agenttool.ErrTurnEnded)
		}
	})
}

// A direct call answers as the runner's calls do, including with a nil
// context and arguments (treated as {}), and an argument value JSON cannot
// hold is a Go error naming the tool.
func TestDirectRun(t *testing.T) {
	tools := newTools(t, agenttool.SleepTool{}, newAdd(t))
	sleep, add := runnable(t, tools[0]), runnable(t, tools[1])

	res, err := sleep.Run(callCtx{ctx: t.Context(), id: "x"}, map[string]any{"seconds": 0.0})
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"result": "Slept for 0 second(s)."}, res)

	res, err = add.Run(nil, nil)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"error": `"a" is required; "b" is required`}, res)

	_, err = add.Run(callCtx{ctx: t.Context()}, map[string]any{"a": func() {}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"add"`)
}

func TestTools(t *testing.T) {
	t.Run("nil registry", func(t *testing.T) {
		tools, err := adktool.Tools(nil)
		require.NoError(t, err)
		assert.Empty(t, tools)
	})
	t.Run("reserved name", func(t *testing.T) {
		stop := &agenttool.FuncTool{ToolName: "stop_streaming", Schema: json.RawMessage(`{"type":"object"}`)}
		_, err := adktool.Tools(newRegistry(t, stop))
		require.ErrorIs(t, err, adktool.ErrReservedName)
		assert.Contains(t, err.Error(), "stop_streaming")
	})
	t.Run("metadata", func(t *testing.T) {
		reg := newRegistry(t, agenttool.SleepTool{})
		tools, err := adktool.Tools(reg)
		require.NoError(t, err)
		require.Len(t, tools, 1)
		def := reg.Definitions()[0]
		assert.Equal(t, def.Name, tools[0].Name())
		assert.Equal(t, def.Description, tools[0].Description())
		assert.False(t, tools[0].IsLongRunning())
	})
	t.Run("declaration is a copy", func(t *testing.T) {
		reg := newRegistry(t, agenttool.SleepTool{})
		tools, err := adktool.Tools(reg)
		require.NoError(t, err)
		d, ok := tools[0].(interface {
			Declaration() *genai.FunctionDeclaration
		})
		require.True(t, ok)
		first, ok := d.Declaration().ParametersJsonSchema.(json.RawMessage)
		require.True(t, ok)
		clear(first)
		again, err := json.Marshal(d.Declaration().ParametersJsonSchema)
		require.NoError(t, err)
		assert.JSONEq(t, string(reg.Definitions()[0].Parameters), string(again))
	})
}

// When the run's context ends during a call, the call returns at once and
// ADK's runner ends the run with the context's error.
func TestCancelledRunEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tools := newTools(t, agenttool.SleepTool{Clock: clock.NewMock()})
		m := &scriptedModel{script: []*genai.Content{ask(t, fc{"c1", "sleep", `{"seconds":60}`}), say("never read")}}
		ctx, cancel := context.WithCancel(t.Context())
		errs := make(chan error, 1)
		go func() {
			_, err := runAgent(ctx, tools, m)
			errs <- err
		}()
		synctest.Wait()
		require.Empty(t, errs, "the run waits for the sleep")
		cancel()
		require.ErrorIs(t, <-errs, context.Canceled)
		assert.Len(t, m.requests(), 1, "the model is not asked again")
	})
}

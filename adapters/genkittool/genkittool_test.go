package genkittool_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttool/agenttool"
	"github.com/agenttool/agenttool/adapters/genkittool"
	"github.com/agenttool/agenttool/functool"
)

// scriptedModel is a Genkit model that answers each request with the next
// message of its script and records the requests it got.
type scriptedModel struct {
	mu     sync.Mutex
	script []*ai.Message
	reqs   []*ai.ModelRequest
}

func (m *scriptedModel) generate(ctx context.Context, req *ai.ModelRequest, _ struct{}, _ ai.ModelStreamCallback) (*ai.ModelResponse, error) {
	m.mu.Lock()
	m.reqs = append(m.reqs, req)
	if len(m.script) == 0 {
		m.mu.Unlock()
		return nil, errors.New("scripted model: no answer left")
	}
	answer := m.script[0]
	m.script = m.script[1:]
	m.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return &ai.ModelResponse{Message: answer, FinishReason: ai.FinishReasonStop}, nil
}

func (m *scriptedModel) requests() []*ai.ModelRequest {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]*ai.ModelRequest(nil), m.reqs...)
}

// tr is a tool request a scripted model makes; args is the JSON the model
// wrote.
type tr struct{ ref, name, args string }

// ask returns a model message holding the requests, their inputs parsed as
// Genkit's model plugins parse them (numbers become float64).
func ask(t *testing.T, reqs ...tr) *ai.Message {
	t.Helper()
	msg := &ai.Message{Role: ai.RoleModel}
	for _, r := range reqs {
		var input any
		require.NoError(t, json.Unmarshal([]byte(r.args), &input))
		msg.Content = append(msg.Content, ai.NewToolRequestPart(&ai.ToolRequest{Ref: r.ref, Name: r.name, Input: input}))
	}
	return msg
}

// newGenkit returns a Genkit with no plugins and m defined as the model
// "test/scripted", living as long as t.
//
// genkit.Init calls signal.NotifyContext, and the first use of os/signal
// starts the runtime's signal goroutines, which block a synctest bubble
// forever when they start inside it; so tests call newGenkit outside their
// bubble and run Generate inside it.
func newGenkit(t *testing.T, m *scriptedModel) *genkit.Genkit {
	t.Helper()
	g := genkit.Init(t.Context())
	genkit.DefineModelAction(g, "test/scripted", &ai.ModelOptions{Supports: &ai.ModelSupports{Tools: true, Multiturn: true}}, m.generate)
	return g
}

func refs(tools []ai.Tool) []ai.ToolRef {
	out := make([]ai.ToolRef, len(tools))
	for i, t := range tools {
		out[i] = t
	}
	return out
}

// generate runs Genkit's Generate with tools and the scripted model of g,
// and returns the final text.
func generate(ctx context.Context, g *genkit.Genkit, tools ...ai.ToolRef) (string, error) {
	resp, err := genkit.Generate(ctx, g, ai.WithModelName("test/scripted"), ai.WithPrompt("go"), ai.WithTools(tools...))
	if err != nil {
		return "", err
	}
	return resp.Text(), nil
}

// outputs returns the tool outputs the model got in req, by request ref.
func outputs(req *ai.ModelRequest) map[string]any {
	out := map[string]any{}
	for _, msg := range req.Messages {
		for _, p := range msg.Content {
			if p.IsToolResponse() {
				out[p.ToolResponse.Ref] = p.ToolResponse.Output
			}
		}
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

func newTools(t testing.TB, tools ...agenttool.Tool) []ai.Tool {
	t.Helper()
	out, err := genkittool.Tools(newRegistry(t, tools...))
	require.NoError(t, err)
	return out
}

// The model asks for a sleep on a mock clock, a good call and a bad one in
// one answer; Generate runs them, and the model's next request holds each
// answer: the outputs and the tool's own failure text.
func TestGenerateLoop(t *testing.T) {
	m := &scriptedModel{script: []*ai.Message{
		ask(t, tr{"c1", "sleep", `{"seconds":2}`}, tr{"c2", "add", `{"a":2,"b":3}`}, tr{"c3", "add", `{"a":"two","b":3}`}),
		ai.NewModelTextMessage("done"),
	}}
	g := newGenkit(t, m)
	synctest.Test(t, func(t *testing.T) {
		mock := clock.NewMock()
		add := newAdd(t)
		reg := newRegistry(t, agenttool.SleepTool{Clock: mock}, add)
		tools, err := genkittool.Tools(reg)
		require.NoError(t, err)

		var final string
		var genErr error
		done := make(chan struct{})
		go func() {
			defer close(done)
			final, genErr = generate(t.Context(), g, refs(tools)...)
		}()
		synctest.Wait()
		select {
		case <-done:
			require.FailNow(t, "Generate ended before the sleep's time passed", "error: %v", genErr)
		default:
		}
		mock.Add(2 * time.Second)
		<-done

		require.NoError(t, genErr)
		assert.Equal(t, "done", final)
		reqs := m.requests()
		require.Len(t, reqs, 2)

		defs := map[string]*ai.ToolDefinition{}
		for _, d := range reqs[0].Tools {
			defs[d.Name] = d
		}
		require.Len(t, defs, 2)
		for _, def := range reg.Definitions() {
			got := defs[def.Name]
			require.NotNil(t, got, def.Name)
			assert.Equal(t, def.Description, got.Description)
			schema, err := json.Marshal(got.InputSchema)
			require.NoError(t, err)
			assert.JSONEq(t, string(def.Parameters), string(schema))
		}

		bad, err := add.Execute(t.Context(), json.RawMessage(`{"a":"two","b":3}`))
		require.NoError(t, err)
		require.False(t, bad.Success)
		assert.Equal(t, map[string]any{
			"c1": "Slept for 2 second(s).",
			"c2": "5",
			"c3": genkittool.FailurePrefix + bad.Error,
		}, outputs(reqs[1]))
	})
}

// A schema with keywords beyond what Genkit infers reaches the model whole,
// and arguments that break it still reach the tool: Genkit judges nothing,
// and the generation goes on.
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
	m := &scriptedModel{script: []*ai.Message{
		ask(t, tr{"c1", "record", `{"n":"not a number","extra":{"k":[1.5,null,true]},"s":"<&>"}`}),
		ask(t, tr{"c2", "record", `{"n":1.0,"big":1e3}`}),
		ai.NewModelTextMessage("done"),
	}}
	final, err := generate(t.Context(), newGenkit(t, m), refs(newTools(t, record))...)
	require.NoError(t, err)
	assert.Equal(t, "done", final)

	reqs := m.requests()
	require.Len(t, reqs, 3)
	require.Len(t, reqs[0].Tools, 1)
	sent, err := json.Marshal(reqs[0].Tools[0].InputSchema)
	require.NoError(t, err)
	assert.JSONEq(t, schema, string(sent))

	require.Len(t, got, 2)
	assert.JSONEq(t, `{"n":"not a number","extra":{"k":[1.5,null,true]},"s":"<&>"}`, string(got[0]))
	assert.Equal(t, `{"big":1000,"n":1}`, string(got[1]), "Genkit's parsing loses number spellings, as the package doc says")
	assert.Equal(t, "recorded", outputs(reqs[2])["c2"])
}

// A tool that panics, and a tool the registry does not hold, are failed
// calls the model reads about; Generate goes on to the model's next answer.
func TestFailuresDoNotAbortGenerate(t *testing.T) {
	boom := &agenttool.FuncTool{
		ToolName: "boom", ToolDescription: "Panic.", Schema: json.RawMessage(`{"type":"object"}`),
		Fn: func(context.Context, json.RawMessage) (agenttool.ToolResult, error) { panic("kaboom") },
	}
	empty := &agenttool.FuncTool{
		ToolName: "empty", ToolDescription: "Answer nothing.", Schema: json.RawMessage(`{"type":"object"}`),
		Fn: func(context.Context, json.RawMessage) (agenttool.ToolResult, error) { return agenttool.OK(""), nil },
	}
	m := &scriptedModel{script: []*ai.Message{
		ask(t, tr{"c1", "boom", `{}`}, tr{"c2", "empty", `null`}),
		ai.NewModelTextMessage("done"),
	}}
	final, err := generate(t.Context(), newGenkit(t, m), refs(newTools(t, boom, empty))...)
	require.NoError(t, err)
	assert.Equal(t, "done", final)
	reqs := m.requests()
	require.Len(t, reqs, 2)
	out := outputs(reqs[1])
	require.IsType(t, "", out["c1"])
	assert.Regexp(t, `^error: tool panicked: kaboom`, out["c1"])
	require.Contains(t, out, "c2")
	assert.IsType(t, "", out["c2"])
	assert.Empty(t, out["c2"], "an empty output reaches the model as empty text")
}

// The batch rule inside Generate, which runs the tool requests of one answer
// in parallel: each tool waits inside its call until the test lets it go, so
// calls that may overlap are all inside at once, and calls that may not
// overlap come in one at a time.
func TestBatchRuleInGenerate(t *testing.T) {
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
			m := &scriptedModel{}
			g := newGenkit(t, m)
			synctest.Test(t, func(t *testing.T) {
				var inside, most atomic.Int32
				release := make(chan struct{})
				var tools []agenttool.Tool
				var reqs []tr
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
					reqs = append(reqs, tr{"c" + name, name, `{}`})
				}
				m.script = []*ai.Message{ask(t, reqs...), ai.NewModelTextMessage("done")}
				gkTools := newTools(t, tools...)

				var final string
				var genErr error
				done := make(chan struct{})
				go func() {
					defer close(done)
					final, genErr = generate(t.Context(), g, refs(gkTools)...)
				}()
				synctest.Wait()
				assert.Equal(t, tt.want, inside.Load(), "calls inside at once")
				close(release)
				<-done

				require.NoError(t, genErr)
				assert.Equal(t, "done", final)
				assert.Equal(t, tt.want, most.Load(), "most calls ever inside at once")
				sent := m.requests()
				require.Len(t, sent, 2)
				out := outputs(sent[1])
				for _, r := range reqs {
					assert.Equal(t, r.name+" ran", out[r.ref])
				}
			})
		})
	}
}

// When the context ends during a call, Generate returns the context's
// error; a direct call waiting for its turn returns at once too.
func TestCancelledContextIsAGoError(t *testing.T) {
	m := &scriptedModel{script: []*ai.Message{ask(t, tr{"c1", "sleep", `{"seconds":60}`})}}
	g := newGenkit(t, m)
	synctest.Test(t, func(t *testing.T) {
		mock := clock.NewMock()
		tools := newTools(t, agenttool.SleepTool{Clock: mock})
		ctx, cancel := context.WithCancel(t.Context())

		errs := make(chan error, 2)
		go func() {
			_, err := generate(ctx, g, refs(tools)...)
			errs <- err
		}()
		synctest.Wait()
		go func() {
			_, err := tools[0].RunRaw(ctx, map[string]any{"seconds": 1.0})
			errs <- err
		}()
		synctest.Wait()
		require.Empty(t, errs, "one sleep runs, the other waits for its turn")
		cancel()
		for range 2 {
			err := <-errs
			require.ErrorIs(t, err, context.Canceled)
			require.ErrorIs(t, err, agenttool.ErrTurnEnded)
		}
	})
}

// Direct calls answer as Generate's calls do: RunRaw with parsed values,
// RunJSON with raw JSON that the tool alone judges, nil input as {}, a nil
// context as context.Background(); a value
// JSON cannot hold is a Go error naming the tool.
func TestDirectRun(t *testing.T) {
	tools := newTools(t, agenttool.SleepTool{}, newAdd(t))
	sleep, add := tools[0], tools[1]

	out, err := sleep.RunRaw(t.Context(), map[string]any{"seconds": 0.0})
	require.NoError(t, err)
	assert.Equal(t, "Slept for 0 second(s).", out)

	var noCtx context.Context
	resp, err := add.RunRawMultipart(noCtx, nil)
	require.NoError(t, err)
	assert.Equal(t, &ai.MultipartToolResponse{Output: `error: "a" is required; "b" is required`}, resp)

	action, ok := add.(interface {
		RunJSON(context.Context, json.RawMessage, func(context.Context, json.RawMessage) error) (json.RawMessage, error)
	})
	require.True(t, ok)
	raw, err := action.RunJSON(t.Context(), json.RawMessage(`{"a":2,"b":2}`), nil)
	require.NoError(t, err)
	assert.JSONEq(t, `{"output":"4"}`, string(raw))
	raw, err = action.RunJSON(t.Context(), json.RawMessage(`{"a":`), nil)
	require.NoError(t, err)
	assert.Contains(t, string(raw), `"output":"error: `)

	_, err = add.RunRaw(t.Context(), map[string]any{"a": func() {}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"add"`)
}

func TestTools(t *testing.T) {
	t.Run("nil registry", func(t *testing.T) {
		tools, err := genkittool.Tools(nil)
		require.NoError(t, err)
		assert.Empty(t, tools)
	})
	t.Run("definition", func(t *testing.T) {
		reg := newRegistry(t, agenttool.SleepTool{})
		tools, err := genkittool.Tools(reg)
		require.NoError(t, err)
		require.Len(t, tools, 1)
		want := reg.Definitions()[0]
		def := tools[0].Definition()
		assert.Equal(t, want.Name, tools[0].Name())
		assert.Equal(t, want.Name, def.Name)
		assert.Equal(t, want.Description, def.Description)
		schema, err := json.Marshal(def.InputSchema)
		require.NoError(t, err)
		assert.JSONEq(t, string(want.Parameters), string(schema))
		clear(def.InputSchema)
		again, err := json.Marshal(tools[0].Definition().InputSchema)
		require.NoError(t, err)
		assert.JSONEq(t, string(want.Parameters), string(again), "each definition is a copy")
	})
	t.Run("registered once and called by name", func(t *testing.T) {
		m := &scriptedModel{script: []*ai.Message{ask(t, tr{"c1", "sleep", `{"seconds":0}`}), ai.NewModelTextMessage("done")}}
		g := newGenkit(t, m)
		tools := newTools(t, agenttool.SleepTool{})
		genkit.RegisterAction(g, tools[0])
		found := genkit.LookupTool(g, "sleep")
		require.NotNil(t, found)
		assert.Equal(t, tools[0].Definition(), found.Definition())

		final, err := generate(t.Context(), g, ai.ToolName("sleep"))
		require.NoError(t, err)
		assert.Equal(t, "done", final)
		reqs := m.requests()
		require.Len(t, reqs, 2)
		assert.Equal(t, "Slept for 0 second(s).", outputs(reqs[1])["c1"])
	})
	t.Run("respond and restart", func(t *testing.T) {
		tool := newTools(t, agenttool.SleepTool{})[0]
		req := ai.NewToolRequestPart(&ai.ToolRequest{Ref: "r1", Name: "sleep", Input: map[string]any{"seconds": 5.0}})
		req.Metadata = map[string]any{"interrupt": true, "kept": 1}

		resp := tool.Respond(req, "answered", &ai.RespondOptions{Metadata: map[string]any{"by": "user"}})
		require.NotNil(t, resp)
		assert.Equal(t, &ai.ToolResponse{Ref: "r1", Name: "sleep", Output: "answered"}, resp.ToolResponse)
		assert.Equal(t, map[string]any{"interruptResponse": map[string]any{"by": "user"}}, resp.Metadata)
		assert.Nil(t, tool.Respond(ai.NewTextPart("not a request"), "x", nil))

		again := tool.Restart(req, &ai.RestartOptions{ReplaceInput: map[string]any{"seconds": 1.0}})
		require.NotNil(t, again)
		assert.Equal(t, &ai.ToolRequest{Ref: "r1", Name: "sleep", Input: map[string]any{"seconds": 1.0}}, again.ToolRequest)
		assert.Equal(t, map[string]any{"kept": 1, "resumed": true, "replacedInput": map[string]any{"seconds": 5.0}}, again.Metadata)
		assert.Equal(t, map[string]any{"interrupt": true, "kept": 1}, req.Metadata, "the request part is not changed")
		assert.Nil(t, tool.Restart(nil, nil))
	})
}

package einotool_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"testing/synctest"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/components/tool/utils"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttool/agenttool"
	"github.com/agenttool/agenttool/adapters/einotool"
	"github.com/agenttool/agenttool/tooltest"
)

type multiplyIn struct {
	X int `json:"x" jsonschema:"description=the first factor"`
	Y int `json:"y" jsonschema:"description=the second factor"`
}

type multiplyOut struct {
	Product int `json:"product"`
}

// newMultiply returns an Eino tool built by Eino's own utils.InferTool.
func newMultiply(t testing.TB) tool.InvokableTool {
	t.Helper()
	mul, err := utils.InferTool("multiply", "Multiply two integers.",
		func(_ context.Context, in *multiplyIn) (*multiplyOut, error) {
			if in.X < 0 || in.Y < 0 {
				return nil, errors.New("factors must not be negative")
			}
			return &multiplyOut{Product: in.X * in.Y}, nil
		})
	require.NoError(t, err)
	return mul
}

// newWaiter returns an InferTool tool that waits until its context ends and
// tells whether it saw that on ended.
func newWaiter(t testing.TB, ended chan<- error) tool.InvokableTool {
	t.Helper()
	wait, err := utils.InferTool("wait", "Wait until cancelled.",
		func(ctx context.Context, _ *struct{}) (string, error) {
			<-ctx.Done()
			ended <- ctx.Err()
			return "", ctx.Err()
		})
	require.NoError(t, err)
	return wait
}

func TestFromEinoRunsThroughATurn(t *testing.T) {
	mul := newMultiply(t)
	at, err := einotool.FromEino(mul)
	require.NoError(t, err)
	assert.False(t, agenttool.IsConcurrencySafe(at))
	reg, err := agenttool.NewRegistry(at)
	require.NoError(t, err)

	def := reg.Definitions()[0]
	info, err := mul.Info(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "multiply", def.Name)
	assert.Equal(t, "Multiply two integers.", def.Description)
	requireSameJSON(t, infoParamsJSON(t, info), def.Parameters)
	assert.JSONEq(t, `{"type":"object","properties":{"x":{"type":"integer","description":"the first factor"},"y":{"type":"integer","description":"the second factor"}},"required":["x","y"],"additionalProperties":false}`,
		string(def.Parameters), "the schema InferTool made")

	turn := agenttool.NewTurn(context.Background(), reg, nil)
	defer turn.Close()
	blocks, err := turn.Run([]agenttool.ToolCall{
		{ID: "1", Name: "multiply", Args: json.RawMessage(`{"x":6,"y":7}`)},
		{ID: "2", Name: "multiply", Args: json.RawMessage(`{"x":-1,"y":7}`)},
		{ID: "3", Name: "multiply", Args: json.RawMessage(`{"x":"six"}`)},
		{ID: "4", Name: "multiply"},
	})
	require.NoError(t, err)
	require.Len(t, blocks, 4)
	assert.Equal(t, agenttool.StatusSucceeded, blocks[0].Status)
	assert.JSONEq(t, `{"product":42}`, blocks[0].Result.Output)
	assert.Equal(t, agenttool.StatusFailed, blocks[1].Status)
	assert.Contains(t, blocks[1].Result.Error, "factors must not be negative")
	assert.Equal(t, agenttool.StatusFailed, blocks[2].Status)
	assert.Contains(t, blocks[2].Result.Error, "failed to unmarshal arguments")
	assert.Equal(t, agenttool.StatusSucceeded, blocks[3].Status, "no arguments are {}")
	assert.JSONEq(t, `{"product":0}`, blocks[3].Result.Output)
}

func TestFromEinoCancelledTurn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ended := make(chan error, 1)
		at, err := einotool.FromEino(newWaiter(t, ended))
		require.NoError(t, err)
		reg, err := agenttool.NewRegistry(at)
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(context.Background())
		turn := agenttool.NewTurn(ctx, reg, nil)
		defer turn.Close()

		type outcome struct {
			blocks []agenttool.ToolBlock
			err    error
		}
		done := make(chan outcome, 1)
		go func() {
			blocks, err := turn.Run([]agenttool.ToolCall{{ID: "w", Name: "wait", Args: json.RawMessage(`{}`)}})
			done <- outcome{blocks, err}
		}()
		synctest.Wait()
		cancel()
		o := <-done
		require.ErrorIs(t, o.err, agenttool.ErrTurnEnded)
		require.ErrorIs(t, o.err, context.Canceled)
		require.Len(t, o.blocks, 1)
		assert.Equal(t, agenttool.StatusCancelled, o.blocks[0].Status)
		assert.ErrorIs(t, <-ended, context.Canceled, "the eino tool saw its context end")
	})
}

func TestFromEinoExecuteReturnsTheContextError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ended := make(chan error, 1)
		at, err := einotool.FromEino(newWaiter(t, ended))
		require.NoError(t, err)
		ctx, cancel := context.WithCancelCause(context.Background())
		errc := make(chan error, 1)
		go func() {
			res, err := at.Execute(ctx, nil)
			assert.Equal(t, agenttool.ToolResult{}, res)
			errc <- err
		}()
		synctest.Wait()
		stop := errors.New("user pressed stop")
		cancel(stop)
		err = <-errc
		require.ErrorIs(t, err, context.Canceled)
		require.ErrorIs(t, err, stop)
		assert.ErrorIs(t, <-ended, context.Canceled)
	})
}

// recorder is an Eino tool written by hand that records the arguments it
// receives and answers with errOut when set.
type recorder struct {
	info    *schema.ToolInfo
	infoErr error
	got     []string
	errOut  error
}

func (r *recorder) Info(context.Context) (*schema.ToolInfo, error) { return r.info, r.infoErr }

func (r *recorder) InvokableRun(_ context.Context, args string, _ ...tool.Option) (string, error) {
	r.got = append(r.got, args)
	return "seen", r.errOut
}

func TestFromEinoArguments(t *testing.T) {
	rec := &recorder{info: &schema.ToolInfo{Name: "rec", Desc: "Records."}}
	at, err := einotool.FromEino(rec)
	require.NoError(t, err)
	for _, args := range []string{"", "null", "  null ", "\n"} {
		res, err := at.Execute(context.Background(), json.RawMessage(args))
		require.NoError(t, err)
		assert.Equal(t, agenttool.OK("seen"), res)
	}
	_, err = at.Execute(context.Background(), nil)
	require.NoError(t, err)
	_, err = at.Execute(context.Background(), json.RawMessage(` {"a": 1.0} `))
	require.NoError(t, err)
	assert.Equal(t, []string{"{}", "{}", "{}", "{}", "{}", ` {"a": 1.0} `}, rec.got)

	rec.errOut = errors.New("quota exceeded")
	res, err := at.Execute(context.Background(), json.RawMessage(`{}`))
	require.NoError(t, err)
	assert.Equal(t, agenttool.ToolResult{Error: "quota exceeded"}, res)
}

func TestFromEinoSchemas(t *testing.T) {
	for _, tc := range []struct {
		name   string
		params *schema.ParamsOneOf
		want   string
	}{
		{"no parameters", nil, `{"type":"object","properties":{}}`},
		{"by params", schema.NewParamsOneOfByParams(map[string]*schema.ParameterInfo{
			"city": {Type: schema.String, Desc: "where", Required: true},
			"days": {Type: schema.Integer},
		}), `{"type":"object","properties":{"city":{"type":"string","description":"where"},"days":{"type":"integer"}},"required":["city"]}`},
		{"empty JSON Schema", schema.NewParamsOneOfByJSONSchema(nil), `{"type":"object","properties":{}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			at, err := einotool.FromEino(&recorder{info: &schema.ToolInfo{Name: "t", ParamsOneOf: tc.params}})
			require.NoError(t, err)
			assert.JSONEq(t, tc.want, string(at.Parameters()))
			_, err = agenttool.NewRegistry(at)
			assert.NoError(t, err)
		})
	}
}

type panickingInfo struct{ recorder }

func (panickingInfo) Info(context.Context) (*schema.ToolInfo, error) { panic("no info") }

func TestFromEinoRejectsBadTools(t *testing.T) {
	for _, tc := range []struct {
		name string
		tool tool.InvokableTool
		want string
	}{
		{"nil", nil, "nil tool"},
		{"nil pointer", (*recorder)(nil), "nil *einotool_test.recorder"},
		{"info fails", &recorder{infoErr: errors.New("offline")}, "offline"},
		{"info is nil", &recorder{}, "info is nil"},
		{"info panics", &panickingInfo{}, "no info"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			at, err := einotool.FromEino(tc.tool)
			require.ErrorIs(t, err, einotool.ErrInvalidEinoTool)
			require.ErrorContains(t, err, tc.want)
			assert.Nil(t, at)
		})
	}
}

func TestRoundTripThroughEino(t *testing.T) {
	reg, err := agenttool.NewRegistry(append(agenttool.DefaultTools(), newAdd(t))...)
	require.NoError(t, err)
	tools, err := einotool.Tools(reg)
	require.NoError(t, err)
	back := make([]agenttool.Tool, len(tools))
	for i, bt := range tools {
		back[i], err = einotool.FromEino(bt.(tool.InvokableTool))
		require.NoError(t, err)
	}
	again, err := agenttool.NewRegistry(back...)
	require.NoError(t, err)
	want, got := reg.Definitions(), again.Definitions()
	require.Len(t, got, len(want))
	for i := range want {
		assert.Equal(t, want[i].Name, got[i].Name)
		assert.Equal(t, want[i].Description, got[i].Description)
		requireSameJSON(t, want[i].Parameters, got[i].Parameters)
	}

	turn := agenttool.NewTurn(context.Background(), again, nil)
	defer turn.Close()
	blocks, err := turn.Run([]agenttool.ToolCall{
		{ID: "1", Name: "sleep", Args: json.RawMessage(`{"seconds":0}`)},
		{ID: "2", Name: "sleep", Args: json.RawMessage(`{"seconds":-1}`)},
	})
	require.NoError(t, err)
	assert.Equal(t, agenttool.OK("Slept for 0 second(s)."), blocks[0].Result)
	assert.Equal(t, agenttool.StatusSucceeded, blocks[1].Status, "a failure crosses Eino as text")
	assert.Contains(t, blocks[1].Result.Output, einotool.FailurePrefix+`"seconds" must be`)
}

func TestFromEinoConformance(t *testing.T) {
	tooltest.Run(t, func(t *testing.T) agenttool.Tool {
		at, err := einotool.FromEino(newMultiply(t))
		require.NoError(t, err)
		return at
	})
}

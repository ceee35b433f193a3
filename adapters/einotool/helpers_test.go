package einotool_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sync"
	"testing"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/require"
)

// scriptedModel is an Eino chat model that answers with the replies it was
// given, in order, and records what it was asked and which tools it was
// given. WithTools returns a model that shares the script and the records.
type scriptedModel struct {
	script *script
	tools  []*schema.ToolInfo
}

type script struct {
	mu      sync.Mutex
	replies []*schema.Message
	inputs  [][]*schema.Message
	tools   [][]*schema.ToolInfo
}

var _ model.ToolCallingChatModel = (*scriptedModel)(nil)

func newScriptedModel(replies ...*schema.Message) *scriptedModel {
	return &scriptedModel{script: &script{replies: replies}}
}

func (m *scriptedModel) Generate(_ context.Context, input []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	s := m.script
	s.mu.Lock()
	defer s.mu.Unlock()
	s.inputs = append(s.inputs, append([]*schema.Message(nil), input...))
	s.tools = append(s.tools, m.tools)
	if len(s.replies) == 0 {
		return nil, errors.New("scripted model: no reply left")
	}
	reply := s.replies[0]
	s.replies = s.replies[1:]
	return reply, nil
}

func (m *scriptedModel) Stream(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	reply, err := m.Generate(ctx, input, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{reply}), nil
}

func (m *scriptedModel) WithTools(tools []*schema.ToolInfo) (model.ToolCallingChatModel, error) {
	return &scriptedModel{script: m.script, tools: tools}, nil
}

// calls returns the inputs of every Generate so far.
func (m *scriptedModel) calls() [][]*schema.Message {
	m.script.mu.Lock()
	defer m.script.mu.Unlock()
	return append([][]*schema.Message(nil), m.script.inputs...)
}

// toolsSeen returns the tools the model had on its first Generate.
func (m *scriptedModel) toolsSeen(t *testing.T) []*schema.ToolInfo {
	t.Helper()
	m.script.mu.Lock()
	defer m.script.mu.Unlock()
	require.NotEmpty(t, m.script.tools, "the model was never asked")
	return m.script.tools[0]
}

// askFor is an assistant message asking for the given calls, each written
// as id, name, arguments.
func askFor(calls ...[3]string) *schema.Message {
	tcs := make([]schema.ToolCall, len(calls))
	for i, c := range calls {
		tcs[i] = schema.ToolCall{ID: c[0], Type: "function", Function: schema.FunctionCall{Name: c[1], Arguments: c[2]}}
	}
	return schema.AssistantMessage("", tcs)
}

// toolAnswers maps tool call IDs to the content of the tool messages in msgs.
func toolAnswers(msgs []*schema.Message) map[string]string {
	out := map[string]string{}
	for _, m := range msgs {
		if m.Role == schema.Tool {
			out[m.ToolCallID] = m.Content
		}
	}
	return out
}

// infoParamsJSON writes the parameters of an Eino tool as JSON Schema.
func infoParamsJSON(t *testing.T, info *schema.ToolInfo) json.RawMessage {
	t.Helper()
	js, err := info.ToJSONSchema()
	require.NoError(t, err)
	b, err := json.Marshal(js)
	require.NoError(t, err)
	return b
}

// sameJSON reports whether a and b hold the same JSON value, with members
// in any order and numbers compared as written ("1.0" is not "1").
func sameJSON(a, b []byte) (bool, error) {
	va, err := decodeExact(a)
	if err != nil {
		return false, fmt.Errorf("first: %w", err)
	}
	vb, err := decodeExact(b)
	if err != nil {
		return false, fmt.Errorf("second: %w", err)
	}
	return reflect.DeepEqual(va, vb), nil
}

func decodeExact(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := d.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("trailing data after the value")
	}
	return v, nil
}

// requireSameJSON fails unless want and got hold the same JSON value.
func requireSameJSON(t *testing.T, want, got []byte) {
	t.Helper()
	same, err := sameJSON(want, got)
	require.NoError(t, err)
	require.True(t, same, "JSON differs\nwant: %s\ngot:  %s", want, got)
}

package functool_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/agenttool/agenttool"
	"github.com/agenttool/agenttool/functool"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type address struct {
	Street string `json:"street"`
	Zip    string `json:"zip,omitempty"`
}

type order struct {
	Item     string            `json:"item" jsonschema:"what to order"`
	Quantity int               `json:"quantity"`
	Rush     bool              `json:"rush,omitempty"`
	Notes    []string          `json:"notes,omitempty"`
	Ship     *address          `json:"ship,omitempty"`
	Weight   float64           `json:"weight,omitempty"`
	Tiny     int8              `json:"tiny,omitempty"`
	Labels   map[string]string `json:"labels,omitempty"`
	Hidden   string            `json:"-"`
}

// echo returns a tool that reports the In it received as JSON.
func echo[In any](t *testing.T, opts *functool.Options) agenttool.Tool {
	t.Helper()
	tool, err := functool.New("echo", "Echo the decoded arguments.",
		func(_ context.Context, in In) (agenttool.ToolResult, error) {
			out, err := json.Marshal(in)
			if err != nil {
				return agenttool.ToolResult{}, err
			}
			return agenttool.OK(string(out)), nil
		}, opts)
	require.NoError(t, err)
	return tool
}

func exec(t *testing.T, tool agenttool.Tool, args string) agenttool.ToolResult {
	t.Helper()
	var raw json.RawMessage
	if args != "<nil>" {
		raw = json.RawMessage(args)
	}
	res, err := tool.Execute(context.Background(), raw)
	require.NoError(t, err)
	return res
}

func TestInferredSchema(t *testing.T) {
	tool := echo[order](t, nil)
	assert.Equal(t, "echo", tool.Name())
	assert.Equal(t, "Echo the decoded arguments.", tool.Description())
	assert.False(t, agenttool.IsConcurrencySafe(tool))

	var schema map[string]any
	require.NoError(t, json.Unmarshal(tool.Parameters(), &schema))
	assert.Equal(t, "object", schema["type"])
	assert.ElementsMatch(t, []any{"item", "quantity"}, schema["required"])
	assert.NotContains(t, schema, "additionalProperties", "unknown fields are ignored, so the schema does not forbid them")
	props := schema["properties"].(map[string]any)
	assert.NotContains(t, props, "Hidden")
	assert.Equal(t, "what to order", props["item"].(map[string]any)["description"])
	assert.Equal(t, "integer", props["quantity"].(map[string]any)["type"])
	assert.Equal(t, "number", props["weight"].(map[string]any)["type"])
	assert.InDelta(t, 127, props["tiny"].(map[string]any)["maximum"], 0)
	ship := props["ship"].(map[string]any)
	assert.NotContains(t, ship, "additionalProperties", "nested objects too")

	_, err := agenttool.NewRegistry(tool)
	require.NoError(t, err, "the inferred schema is one the registry accepts")

	strict := echo[order](t, &functool.Options{RejectUnknown: true, ConcurrencySafe: true})
	require.NoError(t, json.Unmarshal(strict.Parameters(), &schema))
	assert.Equal(t, false, schema["additionalProperties"])
	assert.Equal(t, false, schema["properties"].(map[string]any)["ship"].(map[string]any)["additionalProperties"])
	assert.True(t, agenttool.IsConcurrencySafe(strict))
}

func TestNewRejects(t *testing.T) {
	noop := func(context.Context, struct{ A int }) (agenttool.ToolResult, error) { return agenttool.OK(""), nil }
	_, err := functool.New("bad name", "d", noop, nil)
	require.ErrorIs(t, err, agenttool.ErrInvalidName)
	_, err = functool.New[struct{ A int }]("ok", "d", nil, nil)
	require.ErrorContains(t, err, "nil function")

	_, err = functool.New("chan", "d", func(context.Context, struct{ C chan int }) (agenttool.ToolResult, error) {
		return agenttool.OK(""), nil
	}, nil)
	require.ErrorContains(t, err, "cannot describe")

	_, err = functool.New("cmplx", "d", func(context.Context, struct{ C complex128 }) (agenttool.ToolResult, error) {
		return agenttool.OK(""), nil
	}, nil)
	require.ErrorContains(t, err, "cannot describe")

	_, err = functool.New("str", "d", func(context.Context, string) (agenttool.ToolResult, error) {
		return agenttool.OK(""), nil
	}, nil)
	require.ErrorIs(t, err, functool.ErrNotObject)

	_, err = functool.New("any", "d", func(context.Context, any) (agenttool.ToolResult, error) {
		return agenttool.OK(""), nil
	}, nil)
	require.ErrorIs(t, err, functool.ErrNotObject, "an unrestricted schema is refused, never advertised empty")

	_, err = functool.New("pattern", "d", noop, &functool.Options{Schema: &jsonschema.Schema{
		Type: "object", Properties: map[string]*jsonschema.Schema{"A": {Type: "string", Pattern: "("}},
	}})
	require.ErrorContains(t, err, "error parsing regexp")
}

func TestPointerInput(t *testing.T) {
	tool := echo[*address](t, nil)
	assert.JSONEq(t, `{"street":"Main"}`, exec(t, tool, `{"street":"Main"}`).Output)
	assert.Equal(t, `"street" is required`, exec(t, tool, `{}`).Error)
}

func TestValidationMessages(t *testing.T) {
	limits, err := jsonschema.For[order](nil)
	require.NoError(t, err)
	limits.Properties["quantity"].Minimum = jsonschema.Ptr(1.0)
	limits.Properties["quantity"].Maximum = jsonschema.Ptr(14.0)
	limits.Properties["item"].MinLength = jsonschema.Ptr(2)
	limits.Properties["item"].MaxLength = jsonschema.Ptr(5)
	limits.Properties["notes"].MaxItems = jsonschema.Ptr(2)
	limits.Properties["weight"].ExclusiveMinimum = jsonschema.Ptr(0.0)
	limits.Properties["ship"].Properties["zip"].Pattern = `^[0-9]{5}$`
	limits.Properties["item"].Enum = []any{"tea", "cake", "ab"}
	tool := echo[order](t, &functool.Options{Schema: limits})

	cases := map[string]struct{ args, want string }{
		"required":         {`{"quantity":1}`, `"item" is required`},
		"both required":    {`{}`, `"item" is required; "quantity" is required`},
		"maximum":          {`{"item":"tea","quantity":30}`, `"quantity" must be at most 14`},
		"minimum":          {`{"item":"tea","quantity":0}`, `"quantity" must be at least 1`},
		"integer lexeme":   {`{"item":"tea","quantity":2.0}`, `"quantity" must be an integer, got 2.0`},
		"exponent":         {`{"item":"tea","quantity":1e1}`, `"quantity" must be an integer, got 1e1`},
		"string for int":   {`{"item":"tea","quantity":"2"}`, `"quantity" must be an integer, got a string`},
		"null for int":     {`{"item":"tea","quantity":null}`, `"quantity" must be an integer, got null`},
		"bool for string":  {`{"item":true,"quantity":1}`, `"item" must be a string, got true`},
		"enum":             {`{"item":"beer","quantity":1}`, `"item" must be one of "tea", "cake", "ab"`},
		"array item":       {`{"item":"tea","quantity":1,"notes":["a",2]}`, `"notes[1]" must be a string, got 2`},
		"max items":        {`{"item":"tea","quantity":1,"notes":["a","b","c"]}`, `"notes" must have at most 2 items, got 3`},
		"nested required":  {`{"item":"tea","quantity":1,"ship":{}}`, `"ship.street" is required`},
		"nested pattern":   {`{"item":"tea","quantity":1,"ship":{"street":"x","zip":"12"}}`, `"ship.zip" must match the pattern "^[0-9]{5}$"`},
		"exclusive min":    {`{"item":"tea","quantity":1,"weight":0}`, `"weight" must be greater than 0`},
		"int8 range":       {`{"item":"tea","quantity":1,"tiny":300}`, `"tiny" must be at most 127`},
		"map value":        {`{"item":"tea","quantity":1,"labels":{"a":1}}`, `"labels.a" must be a string, got 1`},
		"object for array": {`{"item":"tea","quantity":1,"notes":{}}`, `"notes" must be null or an array, got an object`},
		"huge integer":     {`{"item":"tea","quantity":1,"tiny":99999999999999999999999}`, `"tiny" must be at most 127`},
		"not an object":    {`[1]`, `arguments must be a JSON object (fields: "item", "quantity", "rush", "notes", "ship", "weight", "tiny", "labels"), got an array`},
		"number document":  {`5`, `arguments must be a JSON object`},
		"invalid JSON":     {`{"item":`, `arguments are not valid JSON`},
		"trailing data":    {`{"item":"tea"} x`, `arguments are not valid JSON`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			res := exec(t, tool, tc.args)
			assert.False(t, res.Success)
			assert.Contains(t, res.Error, tc.want)
			assert.NotContains(t, res.Error, "map[")
			assert.NotContains(t, res.Error, "&{")
		})
	}
	res := exec(t, tool, `{"item":"tea","quantity":30}`)
	assert.Equal(t, `"quantity" must be at most 14`, res.Error, "one violation, exactly the rule")
	res = exec(t, tool, `{"quantity":1}`)
	assert.Equal(t, `"item" is required`, res.Error)
	res = exec(t, tool, `{"item":"tea","quantity":14,"ship":{"street":"x","zip":"12345"},"weight":0.5}`)
	require.True(t, res.Success, res.Error)
}

func TestDecodesValidArguments(t *testing.T) {
	tool := echo[order](t, nil)
	cases := map[string]struct{ args, want string }{
		"minimal": {`{"item":"tea","quantity":2}`,
			`{"item":"tea","quantity":2,"ship":null,"labels":null}`},
		"everything": {`{"item":"tea","quantity":2,"rush":true,"notes":["hot"],"ship":{"street":"Main"},"weight":1.5,"tiny":-3,"labels":{"k":"v"}}`,
			`{"item":"tea","quantity":2,"rush":true,"notes":["hot"],"ship":{"street":"Main"},"weight":1.5,"tiny":-3,"labels":{"k":"v"}}`},
		"unknown ignored": {`{"item":"tea","quantity":2,"color":"red"}`,
			`{"item":"tea","quantity":2,"ship":null,"labels":null}`},
		"wrong case ignored": {`{"item":"tea","quantity":2,"Item":"coffee","QUANTITY":9}`,
			`{"item":"tea","quantity":2,"ship":null,"labels":null}`},
		"nested wrong case ignored": {`{"item":"tea","quantity":2,"ship":{"street":"Main","Zip":"9"}}`,
			`{"item":"tea","quantity":2,"ship":{"street":"Main"},"labels":null}`},
		"map keys kept": {`{"item":"tea","quantity":2,"labels":{"Key":"v"}}`,
			`{"item":"tea","quantity":2,"ship":null,"labels":{"Key":"v"}}`},
		"negative zero": {`{"item":"tea","quantity":-0}`,
			`{"item":"tea","quantity":0,"ship":null,"labels":null}`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			res := exec(t, tool, tc.args)
			require.True(t, res.Success, res.Error)
			var got, want map[string]any
			require.NoError(t, json.Unmarshal([]byte(res.Output), &got))
			require.NoError(t, json.Unmarshal([]byte(tc.want), &want))
			for k, v := range want {
				assert.Equal(t, v, got[k], "field %s", k)
			}
		})
	}
}

func TestCaseSensitiveKeys(t *testing.T) {
	tool := echo[order](t, nil)
	res := exec(t, tool, `{"Item":"tea","Quantity":2}`)
	assert.False(t, res.Success, "encoding/json would accept these keys; we must not")
	assert.Contains(t, res.Error, `"item" is required`)
}

func TestRejectUnknown(t *testing.T) {
	tool := echo[order](t, &functool.Options{RejectUnknown: true})
	cases := map[string]struct{ args, want string }{
		"top level":  {`{"item":"tea","quantity":1,"color":"red"}`, `"color" is not a known field; known fields: "item", "labels", "notes", "quantity", "rush", "ship", "tiny", "weight"`},
		"wrong case": {`{"item":"tea","quantity":1,"Item":"x"}`, `"Item" is not a known field`},
		"nested":     {`{"item":"tea","quantity":1,"ship":{"street":"x","floor":2}}`, `"ship.floor" is not a known field; known fields: "street", "zip"`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			res := exec(t, tool, tc.args)
			assert.False(t, res.Success)
			assert.Contains(t, res.Error, tc.want)
		})
	}
	res := exec(t, tool, `{"item":"tea","quantity":1,"labels":{"any":"key"}}`)
	assert.True(t, res.Success, "map keys are data, not unknown fields: %s", res.Error)
}

func TestEmptyArguments(t *testing.T) {
	type optional struct {
		N int `json:"n,omitempty"`
	}
	tool := echo[optional](t, nil)
	for _, args := range []string{"<nil>", "", "null", " null ", "{}"} {
		res := exec(t, tool, args)
		assert.True(t, res.Success, "%q: %s", args, res.Error)
		assert.JSONEq(t, `{}`, res.Output)
	}
}

func TestFunctionErrors(t *testing.T) {
	errNoCity := errors.New("no such city: Atlantis")
	results := map[string]struct {
		err     error
		goErr   error
		message string
	}{
		"plain error":      {errNoCity, nil, "no such city: Atlantis"},
		"wrapped cancel":   {fmt.Errorf("fetch: %w", context.Canceled), context.Canceled, ""},
		"deadline":         {context.DeadlineExceeded, context.DeadlineExceeded, ""},
		"wrapped deadline": {fmt.Errorf("x: %w", context.DeadlineExceeded), context.DeadlineExceeded, ""},
	}
	for name, tc := range results {
		t.Run(name, func(t *testing.T) {
			tool, err := functool.New("f", "d", func(context.Context, struct{}) (agenttool.ToolResult, error) {
				return agenttool.OK("ignored"), tc.err
			}, nil)
			require.NoError(t, err)
			res, err := tool.Execute(context.Background(), nil)
			if tc.goErr != nil {
				require.ErrorIs(t, err, tc.goErr)
				assert.Equal(t, agenttool.ToolResult{}, res)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, agenttool.ToolResult{Error: tc.message}, res)
		})
	}
}

func TestAnyOfAtTheTop(t *testing.T) {
	schema := &jsonschema.Schema{
		Type: "object",
		Properties: map[string]*jsonschema.Schema{
			"a": {Type: "integer"},
			"b": {Type: "integer"},
		},
		AnyOf: []*jsonschema.Schema{{Required: []string{"a"}}, {Required: []string{"b"}}},
	}
	tool := echo[map[string]int](t, &functool.Options{Schema: schema})
	res := exec(t, tool, `{}`)
	assert.False(t, res.Success)
	assert.Equal(t, `the arguments must match one of: an object with "a"; or an object with "b"`, res.Error)
	res = exec(t, tool, `{"b":2}`)
	assert.True(t, res.Success, res.Error)
}

func TestContextReachesFunction(t *testing.T) {
	tool, err := functool.New("wait", "d", func(ctx context.Context, _ struct{}) (agenttool.ToolResult, error) {
		select {
		case <-ctx.Done():
			return agenttool.ToolResult{}, ctx.Err()
		case <-time.After(time.Hour):
			return agenttool.OK("waited"), nil
		}
	}, nil)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = tool.Execute(ctx, nil)
	require.ErrorIs(t, err, context.Canceled)
}

package functool_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttool/agenttool"
	"github.com/agenttool/agenttool/functool"
)

type modeArgs struct {
	Mode any     `json:"mode"`
	X    float64 `json:"x,omitempty"`
}

// TestOneJudgeCannotBeSkipped: no input may switch validation off. An
// earlier validator skipped its anyOf fallback when the arguments held a
// number too large for a float64, so {"mode":"bad","x":1e999} reached the
// function with mode "bad".
func TestOneJudgeCannotBeSkipped(t *testing.T) {
	schema, err := jsonschema.For[modeArgs](nil)
	require.NoError(t, err)
	schema.Properties["mode"] = &jsonschema.Schema{AnyOf: []*jsonschema.Schema{
		{Type: "string", Enum: []any{"fast", "slow"}},
		{Type: "integer", Minimum: jsonschema.Ptr(1.0)},
	}}
	var calls atomic.Int32
	tool, err := functool.New("modes", "d", func(context.Context, modeArgs) (agenttool.ToolResult, error) {
		calls.Add(1)
		return agenttool.OK("ran"), nil
	}, &functool.Options{Schema: schema})
	require.NoError(t, err)

	cases := map[string]struct{ args, want string }{
		"huge number beside a bad mode": {`{"mode":"bad","x":1e999}`, `"x" must be a number a 64-bit float can hold, got 1e999`},
		"huge negative number":          {`{"mode":"fast","x":-1e999}`, `"x" must be a number a 64-bit float can hold`},
		"huge number nested":            {`{"mode":"fast","y":[1e999]}`, `"y[0]" must be a number a 64-bit float can hold`},
		"bad mode":                      {`{"mode":"bad","x":1}`, `"mode" must match one of: one of "fast", "slow"; or an integer`},
		"bad mode alone":                {`{"mode":"bad"}`, `"mode" must match one of`},
		"mode below the minimum":        {`{"mode":0}`, `"mode" must match one of`},
		"mode of the wrong type":        {`{"mode":true}`, `"mode" must match one of`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			res := exec(t, tool, tc.args)
			assert.False(t, res.Success)
			assert.Contains(t, res.Error, tc.want)
			assert.NotContains(t, res.Error, "/properties")
			assert.NotContains(t, res.Error, "validating")
		})
	}
	assert.Zero(t, calls.Load(), "the function ran on arguments the schema refuses")
	for _, ok := range []string{`{"mode":"fast"}`, `{"mode":3,"x":1e300}`, `{"mode":"slow","x":1e-999}`} {
		res := exec(t, tool, ok)
		assert.True(t, res.Success, "%s: %s", ok, res.Error)
	}
}

func TestNestedRulesNameTheMember(t *testing.T) {
	type item struct {
		SKU string `json:"sku"`
		N   int    `json:"n"`
	}
	type cart struct {
		Items []item           `json:"items"`
		Tags  map[string]item  `json:"tags,omitempty"`
		Note  *struct{ A int } `json:"note,omitempty"`
	}
	schema, err := jsonschema.For[cart](nil)
	require.NoError(t, err)
	schema.Properties["items"].Items.Properties["n"].Maximum = jsonschema.Ptr(9.0)
	tool := echo[cart](t, &functool.Options{Schema: schema})
	cases := map[string]struct{ args, want string }{
		"item rule":     {`{"items":[{"sku":"a","n":1},{"sku":"b","n":10}]}`, `"items[1].n" must be at most 9`},
		"item required": {`{"items":[{"sku":"a","n":1},{"n":2}]}`, `"items[1].sku" is required`},
		"item type":     {`{"items":[{"sku":"a","n":"2"}]}`, `"items[0].n" must be an integer, got a string`},
		"map member":    {`{"items":[],"tags":{"x":{"sku":"a","n":1},"y":{"sku":5,"n":1}}}`, `"tags.y.sku" must be a string, got 5`},
		"deep required": {`{"items":[],"note":{}}`, `"note.A" is required`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			res := exec(t, tool, tc.args)
			assert.False(t, res.Success)
			assert.Equal(t, tc.want, res.Error)
		})
	}
}

// TestNullForOptionalMembers: a null for a member that is not required is
// treated as absent, at any depth; a null for a required member is an error.
func TestNullForOptionalMembers(t *testing.T) {
	tool := echo[order](t, nil)
	res := exec(t, tool, `{"item":"tea","quantity":2,"rush":null,"notes":null,"weight":null,"tiny":null,"labels":null,`+
		`"ship":{"street":"Main","zip":null}}`)
	require.True(t, res.Success, res.Error)
	var got order
	require.NoError(t, json.Unmarshal([]byte(res.Output), &got))
	assert.Equal(t, order{Item: "tea", Quantity: 2, Ship: &address{Street: "Main"}}, got)

	for args, want := range map[string]string{
		`{"item":null,"quantity":2}`:                           `"item" must be a string, got null`,
		`{"item":"tea","quantity":null}`:                       `"quantity" must be an integer, got null`,
		`{"item":"tea","quantity":1,"ship":{"street":null}}`:   `"ship.street" must be a string, got null`,
		`{"item":"tea","quantity":1,"labels":{"a":null}}`:      `"labels.a" must be a string, got null`,
		`{"item":"tea","quantity":1,"notes":["a",null]}`:       `"notes[1]" must be a string, got null`,
		`{"item":"tea","quantity":1,"ship":null,"rush":"yes"}`: `"rush" must be true or false, got a string`,
	} {
		res := exec(t, tool, args)
		assert.False(t, res.Success, args)
		assert.Equal(t, want, res.Error, args)
	}
}

// TestNullForOptionalThroughDefs: optional members reached through a local
// $ref are treated the same way.
func TestNullForOptionalThroughDefs(t *testing.T) {
	schema := &jsonschema.Schema{
		Type:       "object",
		Properties: map[string]*jsonschema.Schema{"ship": {Ref: "#/$defs/address"}},
		Defs: map[string]*jsonschema.Schema{"address": {
			Type:       "object",
			Properties: map[string]*jsonschema.Schema{"street": {Type: "string"}, "zip": {Type: "string"}},
			Required:   []string{"street"},
		}},
	}
	tool := echo[order](t, &functool.Options{Schema: schema})
	res := exec(t, tool, `{"ship":{"street":"Main","zip":null}}`)
	require.True(t, res.Success, res.Error)
	res = exec(t, tool, `{"ship":{"street":null}}`)
	assert.Equal(t, `"ship.street" must be a string, got null`, res.Error)
}

func TestStringOptionIsRefused(t *testing.T) {
	type inner struct {
		N int `json:"n,string"`
	}
	type outer struct {
		In []inner `json:"in"`
	}
	_, err := functool.New("s", "d", func(context.Context, inner) (agenttool.ToolResult, error) { return agenttool.OK(""), nil }, nil)
	require.ErrorIs(t, err, functool.ErrStringOption)
	require.ErrorContains(t, err, "field N")
	_, err = functool.New("s", "d", func(context.Context, outer) (agenttool.ToolResult, error) { return agenttool.OK(""), nil }, nil)
	require.ErrorIs(t, err, functool.ErrStringOption)
	require.ErrorContains(t, err, "field In.N")
}

func TestIntegerFieldsRefuseFractionLexemes(t *testing.T) {
	tool := echo[order](t, nil)
	for args, want := range map[string]string{
		`{"item":"tea","quantity":2.0}`:                   `"quantity" must be an integer, got 2.0`,
		`{"item":"tea","quantity":1e1}`:                   `"quantity" must be an integer, got 1e1`,
		`{"item":"tea","quantity":1,"ship":{"street":1}}`: `"ship.street" must be a string, got 1`,
	} {
		assert.Equal(t, want, exec(t, tool, args).Error, args)
	}
}

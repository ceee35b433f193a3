package agenttool_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/benbjohnson/clock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttool/agenttool"
)

// stub returns a tool named name that answers with its own name.
func stub(name string) *agenttool.FuncTool {
	return &agenttool.FuncTool{
		ToolName:        name,
		ToolDescription: "the " + name + " tool",
		Schema:          json.RawMessage(`{"type":"object"}`),
		Fn: func(context.Context, json.RawMessage) (agenttool.ToolResult, error) {
			return agenttool.OK(name), nil
		},
	}
}

func mustRegistry(t *testing.T, tools ...agenttool.Tool) *agenttool.Registry {
	t.Helper()
	reg, err := agenttool.NewRegistry(tools...)
	require.NoError(t, err)
	return reg
}

func TestDefaultTools(t *testing.T) {
	tools := agenttool.DefaultTools()
	require.Len(t, tools, 1)
	assert.Equal(t, agenttool.SleepTool{}, tools[0])

	tools[0] = nil
	assert.NotNil(t, agenttool.DefaultTools()[0], "each call returns a fresh slice")

	mock := clock.NewMock()
	onMock := agenttool.DefaultToolsWithClock(mock)
	require.Len(t, onMock, 1)
	assert.Equal(t, agenttool.SleepTool{Clock: mock}, onMock[0])
	assert.Equal(t, agenttool.DefaultTools(), agenttool.DefaultToolsWithClock(nil))

	reg := mustRegistry(t, agenttool.DefaultTools()...)
	assert.Equal(t, []string{"sleep"}, reg.Names())
}

func TestRegistryOrderAndLookup(t *testing.T) {
	a, b, c := stub("a"), stub("b-2"), stub("C_3")
	reg := mustRegistry(t, c, a, b)

	assert.Equal(t, []string{"C_3", "a", "b-2"}, reg.Names())
	assert.Equal(t, []agenttool.Tool{c, a, b}, reg.Tools())
	assert.Equal(t, 3, reg.Len())

	got, ok := reg.Lookup("a")
	require.True(t, ok)
	assert.Same(t, a, got)
	_, ok = reg.Lookup("A")
	assert.False(t, ok, "lookup is case-sensitive")
	_, ok = reg.Lookup("missing")
	assert.False(t, ok)

	tools := reg.Tools()
	tools[0] = nil
	names := reg.Names()
	names[0] = "x"
	assert.Equal(t, []agenttool.Tool{c, a, b}, reg.Tools(), "Tools returns a copy")
	assert.Equal(t, []string{"C_3", "a", "b-2"}, reg.Names(), "Names returns a copy")
}

func TestRegistryEmptyAndNil(t *testing.T) {
	empty := mustRegistry(t)
	var nilReg *agenttool.Registry
	for name, reg := range map[string]*agenttool.Registry{"empty": empty, "nil": nilReg} {
		t.Run(name, func(t *testing.T) {
			assert.Empty(t, reg.Tools())
			assert.Empty(t, reg.Names())
			assert.Empty(t, reg.Definitions())
			assert.Zero(t, reg.Len())
			_, ok := reg.Lookup("sleep")
			assert.False(t, ok)
			assert.Zero(t, reg.Only("sleep").Len())
			assert.Zero(t, reg.Without("sleep").Len())
		})
	}
}

func TestRegistryOnlyWithout(t *testing.T) {
	reg := mustRegistry(t, stub("a"), stub("b"), stub("c"), agenttool.SleepTool{})

	cases := map[string]struct {
		reg  *agenttool.Registry
		want []string
	}{
		"only keeps registration order": {reg.Only("c", "a"), []string{"a", "c"}},
		"only ignores unknown names":    {reg.Only("a", "nope"), []string{"a"}},
		"only nothing":                  {reg.Only(), []string{}},
		"only repeated":                 {reg.Only("b", "b"), []string{"b"}},
		"without":                       {reg.Without("sleep", "b"), []string{"a", "c"}},
		"without unknown":               {reg.Without("nope"), []string{"a", "b", "c", "sleep"}},
		"without nothing":               {reg.Without(), []string{"a", "b", "c", "sleep"}},
		"chained":                       {reg.Without("a").Only("a", "b"), []string{"b"}},
		"only is case-sensitive":        {reg.Only("SLEEP"), []string{}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			assert.Equal(t, tc.want, tc.reg.Names())
			assert.Len(t, tc.reg.Definitions(), len(tc.want))
			for _, n := range []string{"a", "b", "c", "sleep"} {
				_, ok := tc.reg.Lookup(n)
				assert.Equal(t, contains(tc.want, n), ok, "lookup %q", n)
			}
		})
	}
	assert.Equal(t, []string{"a", "b", "c", "sleep"}, reg.Names(), "filters leave the original alone")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

type panicky struct{ agenttool.SleepTool }

func (panicky) Name() string { panic("no name today") }

func TestNewRegistryRejects(t *testing.T) {
	withSchema := func(schema string) agenttool.Tool {
		tool := stub("s")
		tool.Schema = json.RawMessage(schema)
		return tool
	}
	var nilFunc *agenttool.FuncTool
	cases := map[string]struct {
		tools []agenttool.Tool
		want  error
		says  string
	}{
		"nil tool":         {[]agenttool.Tool{stub("a"), nil}, agenttool.ErrInvalidTool, "tool 1 is nil"},
		"nil pointer":      {[]agenttool.Tool{nilFunc}, agenttool.ErrInvalidTool, "nil"},
		"empty name":       {[]agenttool.Tool{stub("")}, agenttool.ErrInvalidName, `""`},
		"space in name":    {[]agenttool.Tool{stub("a b")}, agenttool.ErrInvalidName, `"a b"`},
		"dot in name":      {[]agenttool.Tool{stub("a.b")}, agenttool.ErrInvalidName, `"a.b"`},
		"unicode name":     {[]agenttool.Tool{stub("café")}, agenttool.ErrInvalidName, "café"},
		"name of 65":       {[]agenttool.Tool{stub(strings.Repeat("x", 65))}, agenttool.ErrInvalidName, "64"},
		"duplicate":        {[]agenttool.Tool{stub("a"), stub("b"), stub("a")}, agenttool.ErrDuplicateTool, `"a" is tool 0 and tool 2`},
		"duplicate sleep":  {[]agenttool.Tool{agenttool.SleepTool{}, agenttool.SleepTool{}}, agenttool.ErrDuplicateTool, "sleep"},
		"schema not JSON":  {[]agenttool.Tool{withSchema(`{"type":`)}, agenttool.ErrInvalidSchema, "not valid JSON"},
		"schema empty":     {[]agenttool.Tool{withSchema(``)}, agenttool.ErrInvalidSchema, "empty"},
		"schema null":      {[]agenttool.Tool{withSchema(`null`)}, agenttool.ErrInvalidSchema, "null"},
		"schema array":     {[]agenttool.Tool{withSchema(`[]`)}, agenttool.ErrInvalidSchema, "not a JSON object"},
		"schema string":    {[]agenttool.Tool{withSchema(`"object"`)}, agenttool.ErrInvalidSchema, "not a JSON object"},
		"schema of string": {[]agenttool.Tool{withSchema(`{"type":"string"}`)}, agenttool.ErrInvalidSchema, `want "object"`},
		"schema trailing":  {[]agenttool.Tool{withSchema(`{"type":"object"} x`)}, agenttool.ErrInvalidSchema, "not valid JSON"},
		"panicking tool":   {[]agenttool.Tool{panicky{}}, agenttool.ErrInvalidTool, "no name today"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			reg, err := agenttool.NewRegistry(tc.tools...)
			require.ErrorIs(t, err, tc.want)
			assert.Nil(t, reg)
			assert.Contains(t, err.Error(), tc.says)
			if !errors.Is(tc.want, agenttool.ErrDuplicateTool) {
				require.ErrorIs(t, err, agenttool.ErrInvalidTool)
			}
		})
	}
}

func TestNewRegistryAccepts(t *testing.T) {
	for name, schema := range map[string]string{
		"object":        `{"type":"object"}`,
		"no type":       `{}`,
		"with spaces":   ` {"type" : "object", "properties": {}} `,
		"64-char name":  `{"type":"object"}`,
		"full property": `{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}`,
	} {
		t.Run(name, func(t *testing.T) {
			tool := stub("ok")
			if name == "64-char name" {
				tool = stub(strings.Repeat("n", 64))
			}
			tool.Schema = json.RawMessage(schema)
			reg := mustRegistry(t, tool)
			assert.Equal(t, 1, reg.Len())
		})
	}
}

func TestDefinitions(t *testing.T) {
	reg := mustRegistry(t, agenttool.SleepTool{}, stub("echo"))
	defs := reg.Definitions()
	require.Len(t, defs, 2)

	out, err := json.Marshal(defs)
	require.NoError(t, err)
	var decoded []map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(out, &decoded))
	require.Len(t, decoded, 2)
	assert.JSONEq(t, `"sleep"`, string(decoded[0]["name"]))
	assert.JSONEq(t, string(agenttool.SleepTool{}.Parameters()), string(decoded[0]["parameters"]))
	assert.JSONEq(t, `"`+agenttool.SleepTool{}.Description()+`"`, string(decoded[0]["description"]))
	assert.JSONEq(t, `{"name":"echo","description":"the echo tool","parameters":{"type":"object"}}`, string(mustJSON(t, defs[1])))

	defs[0].Parameters[0] = 'X'
	defs[0].Name = "changed"
	again := reg.Definitions()
	assert.Equal(t, "sleep", again[0].Name)
	assert.True(t, json.Valid(again[0].Parameters), "Definitions hands out copies")
}

func TestRegistryKeepsMetadataReadAtRegistration(t *testing.T) {
	tool := stub("first")
	reg := mustRegistry(t, tool)
	tool.ToolName = "second"
	tool.Schema[0] = 'X'
	assert.Equal(t, []string{"first"}, reg.Names())
	_, ok := reg.Lookup("first")
	assert.True(t, ok)
	assert.True(t, json.Valid(reg.Definitions()[0].Parameters))
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	out, err := json.Marshal(v)
	require.NoError(t, err)
	return out
}

package jsonarg

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMember(t *testing.T) {
	cases := map[string]struct {
		args  string
		value string
		found bool
		err   error
	}{
		"empty":             {``, "", false, nil},
		"spaces":            {" \n\t", "", false, nil},
		"null":              {`null`, "", false, nil},
		"empty object":      {`{}`, "", false, nil},
		"number":            {`{"k":12}`, "12", true, nil},
		"spaced":            {` { "k" : 12 , "j" : 1 } `, "12", true, nil},
		"string":            {`{"k":"a,}\"b"}`, `"a,}\"b"`, true, nil},
		"nested":            {`{"a":{"k":1},"k":[{"x":"]"}]}`, `[{"x":"]"}]`, true, nil},
		"case-sensitive":    {`{"K":1}`, "", false, nil},
		"escaped key":       {`{"\u006b":true}`, "true", true, nil},
		"escaped other":     {`{"\"k":1}`, "", false, nil},
		"last wins":         {`{"k":1,"k":2}`, "2", true, nil},
		"null member":       {`{"k":null}`, "null", true, nil},
		"not JSON":          {`{"k":`, "", false, ErrNotJSON},
		"trailing":          {`{"k":1} 2`, "", false, ErrNotJSON},
		"array":             {`[{"k":1}]`, "", false, ErrNotObject},
		"string document":   {`"k"`, "", false, ErrNotObject},
		"number document":   {`1`, "", false, ErrNotObject},
		"bool document":     {`true`, "", false, ErrNotObject},
		"deep unrelated":    {`{"a":[[[[{"b":"}}}"}]]]],"k":-0}`, "-0", true, nil},
		"unicode elsewhere": {`{"é":"ü","k":"ß"}`, `"ß"`, true, nil},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			value, found, err := Member([]byte(tc.args), "k")
			require.ErrorIs(t, err, tc.err)
			assert.Equal(t, tc.found, found)
			assert.Equal(t, tc.value, string(value))
		})
	}
}

// FuzzMember checks Member against encoding/json decoding into a map.
func FuzzMember(f *testing.F) {
	for _, seed := range []string{`{"k":1}`, `{"k":"x","k":2}`, `{"\u006b":[1,{"k":2}]}`, `[]`, `{"k":`, ` null `, `{"a":"\\"}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, args []byte) {
		value, found, err := Member(args, "k")
		var m map[string]json.RawMessage
		uerr := json.Unmarshal(args, &m)
		trimmed := string(trimSpace(args))
		switch {
		case trimmed == "" || trimmed == "null":
			require.NoError(t, err)
			assert.False(t, found)
		case !json.Valid(args):
			require.ErrorIs(t, err, ErrNotJSON)
		case uerr != nil:
			require.ErrorIs(t, err, ErrNotObject)
		default:
			require.NoError(t, err)
			want, ok := m["k"]
			assert.Equal(t, ok, found)
			if ok {
				assert.Equal(t, string(want), string(value))
			}
		}
	})
}

func TestExcerpt(t *testing.T) {
	long := "ééééééééééééééééééééééééééééééééé" // 66 bytes
	cases := map[string]struct{ in, want string }{
		"short":          {`"5"`, `"5"`},
		"exactly 32":     {"12345678901234567890123456789012", "12345678901234567890123456789012"},
		"cut at a rune":  {long, "éééééééééééééééé…"},
		"invalid UTF-8":  {"a\xffb", "a\uFFFDb"},
		"long ASCII cut": {"123456789012345678901234567890123", "12345678901234567890123456789012…"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			assert.Equal(t, tc.want, Excerpt(tc.in))
		})
	}
}

package openaitool

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// object is a JSON object kept as its members in order, each value as the
// bytes it arrived as. A schema rewritten for strict mode keeps the author's
// property order, which strict mode makes the order the model writes in, and
// every number keeps its lexeme: nothing is decoded into Go values.
type object []member

type member struct {
	key   string
	value json.RawMessage
}

// parseObject reads raw as one JSON object. It refuses anything else,
// duplicate keys included, since a schema with two values for one keyword
// means whatever the reader picks.
func parseObject(raw []byte) (object, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	var o object
	seen := make(map[string]bool)
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("not valid JSON: %w", err)
		}
		key, _ := tok.(string) // the decoder yields only strings as keys
		if seen[key] {
			return nil, fmt.Errorf("key %q appears twice", key)
		}
		seen[key] = true
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil, fmt.Errorf("not valid JSON: %w", err)
		}
		o = append(o, member{key: key, value: value})
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("not valid JSON: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("not a single JSON value")
	}
	return o, nil
}

func (o object) get(key string) (json.RawMessage, bool) {
	for _, m := range o {
		if m.key == key {
			return m.value, true
		}
	}
	return nil, false
}

// set replaces the value of key where it stands, or appends the member.
func (o *object) set(key string, value json.RawMessage) {
	for i := range *o {
		if (*o)[i].key == key {
			(*o)[i].value = value
			return
		}
	}
	*o = append(*o, member{key: key, value: value})
}

func (o object) marshal() json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		key, _ := json.Marshal(m.key) // a string always marshals
		b.Write(key)
		b.WriteByte(':')
		b.Write(m.value)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// sdkMap hands the members to the SDK, whose parameters are a
// map[string]any: each value stays a json.RawMessage, which the SDK writes
// as that JSON, compacted. Decoding into Go values would not do: a float64 loses integers
// above 2^53 and rewrites lexemes, and openai-go writes a json.Number as a
// JSON string, turning "maximum": 86400 into "maximum": "86400".
func (o object) sdkMap() map[string]any {
	out := make(map[string]any, len(o))
	for _, m := range o {
		out[m.key] = m.value
	}
	return out
}

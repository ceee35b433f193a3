// Package jsonarg reads members of a tool's JSON arguments without decoding
// the whole document, so that a tool can check the exact lexeme of a value.
package jsonarg

import (
	"encoding/json"
	"errors"
	"strings"
	"unicode/utf8"
)

var (
	// ErrNotJSON is returned when the arguments are not valid JSON
	// (trailing data after the value included).
	ErrNotJSON = errors.New("not valid JSON")
	// ErrNotObject is returned when the arguments are valid JSON but not an object.
	ErrNotObject = errors.New("not a JSON object")
)

// Member returns the raw value of the top-level member key of the JSON
// object args. Keys match case-sensitively after JSON unescaping, as
// encoding/json would decode them into a map; when a key repeats, the last
// one wins, again as encoding/json does. Nil, empty, all-whitespace and
// `null` arguments are treated as the empty object.
func Member(args []byte, key string) (value []byte, found bool, err error) {
	args = trimSpace(args)
	if len(args) == 0 || string(args) == "null" {
		return nil, false, nil
	}
	if !json.Valid(args) {
		return nil, false, ErrNotJSON
	}
	if args[0] != '{' {
		return nil, false, ErrNotObject
	}
	// args is valid JSON from here on, so the scan needs no error handling.
	i := skipSpace(args, 1)
	for args[i] != '}' {
		keyEnd := stringEnd(args, i)
		rawKey := args[i:keyEnd]
		i = skipSpace(args, keyEnd)
		i = skipSpace(args, i+1) // the colon
		valEnd := valueEnd(args, i)
		if keyEquals(rawKey, key) {
			value, found = args[i:valEnd], true
		}
		i = skipSpace(args, valEnd)
		if args[i] == ',' {
			i = skipSpace(args, i+1)
		}
	}
	return value, found, nil
}

// IsNull reports whether a raw JSON value is the literal null.
func IsNull(value []byte) bool { return string(value) == "null" }

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func trimSpace(b []byte) []byte {
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// stringEnd returns the index just past the JSON string starting at b[i].
func stringEnd(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return i
}

// valueEnd returns the index just past the JSON value starting at b[i].
func valueEnd(b []byte, i int) int {
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				i = stringEnd(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
		return i
	default:
		for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && !isSpace(b[i]) {
			i++
		}
		return i
	}
}

// keyEquals compares a quoted JSON key with key, unescaping only when the
// raw key holds an escape.
func keyEquals(rawKey []byte, key string) bool {
	inner := rawKey[1 : len(rawKey)-1]
	for _, c := range inner {
		if c == '\\' {
			var s string
			return json.Unmarshal(rawKey, &s) == nil && s == key
		}
	}
	return string(inner) == key
}

// Excerpt returns s for an error message: valid UTF-8, and cut short at a
// rune boundary with "…" so that a huge payload is not echoed to the model.
func Excerpt(s string) string {
	const limit = 32
	if len(s) <= limit {
		return strings.ToValidUTF8(s, "\uFFFD")
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strings.ToValidUTF8(s[:cut], "\uFFFD") + "…"
}

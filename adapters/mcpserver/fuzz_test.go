package mcpserver

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzStreamLine feeds arbitrary lines to the stream transport's decoder:
// never a panic; either a message for the server, or exactly one error
// response (parse error or invalid request) on the wire.
func FuzzStreamLine(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
		`{"jsonrpc":"2.0","id":"x","result":{}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`{"id":{"a":1},"method":5}`, `not json`, `{`, ``, `   `, "\xff", `null`, `1`, `"s"`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		var out bytes.Buffer
		c := &streamConn{w: &out}
		msg, ok := c.decode(line)
		lines := bytes.Split(bytes.TrimSuffix(out.Bytes(), []byte("\n")), []byte("\n"))
		switch {
		case ok && msg == nil:
			t.Fatalf("decode(%q) reported a message but returned none", line)
		case ok && out.Len() > 0:
			t.Fatalf("decode(%q) returned a message and wrote %q", line, out.Bytes())
		case !ok && out.Len() == 0 && len(bytes.TrimSpace(line)) > 0:
			t.Fatalf("decode(%q) dropped a line without answering it", line)
		case !ok && out.Len() > 0:
			if len(lines) != 1 {
				t.Fatalf("decode(%q) wrote %d lines", line, len(lines))
			}
			var resp struct {
				Error struct {
					Code int `json:"code"`
				} `json:"error"`
			}
			if err := json.Unmarshal(lines[0], &resp); err != nil || (resp.Error.Code != -32700 && resp.Error.Code != -32600) {
				t.Fatalf("decode(%q) answered %q", line, lines[0])
			}
		}
	})
}

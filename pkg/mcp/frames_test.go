package mcp

import (
	"io"
	"strings"
	"testing"
)

// The frame reader passes JSON lines, drops the others (an error answer
// for an answer whose id it can read, in either SDK's field order, a note
// otherwise) and never ends the stream for them.
func TestFrameReader(t *testing.T) {
	big := `{"result":{"content":[{"type":"text","text":"` + strings.Repeat("x", 300) + `"}]},"jsonrpc":"2.0","id":"k-9"}`
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		`starting up...`,
		``,
		`{"jsonrpc":"2.0","id":2,"result":{"oops"`,
		big,
		`{"jsonrpc":"2.0","id":3,"method":"sampling/createMessage","params":{` + strings.Repeat("y", 300) + `}}`,
		`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`,
	}, "\n") + "\n"
	var notes []string
	f := newFrameReader(io.NopCloser(strings.NewReader(in)), 200, func(s string) { notes = append(notes, s) })
	out, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"jsonrpc":"2.0","id":1,"result":{}}
{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"the server sent an answer that is not valid JSON"}}
{"jsonrpc":"2.0","id":"k-9","error":{"code":-32603,"message":"the server sent an answer of more than 200B (the limit of one message)"}}
{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}
`
	if string(out) != want {
		t.Errorf("read\n%s\nwant\n%s", out, want)
	}
	if len(notes) != 2 || !strings.Contains(notes[0], `not JSON (ignored): "starting up..."`) || !strings.Contains(notes[1], "a line of more than 200B") {
		t.Errorf("notes %q", notes)
	}
}

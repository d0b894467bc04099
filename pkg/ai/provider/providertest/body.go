package providertest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"gopi/internal/pijson"
	"gopi/pkg/ai"
)

// This file is the kit of the adapters' request-writer tests: the
// encoding/json reference they are held to, and the long history their
// benchmarks build.

// ReferenceJSON is what encoding/json writes for v, HTML escaping off.
func ReferenceJSON(v any) ([]byte, error) { return pijson.Marshal(v) }

// CheckBody holds the body encode writes for v to encoding/json's: the
// same error, or valid JSON with the same value and the same bytes
// (requoted strings aside, allowed only when requoted is set).
func CheckBody(t testing.TB, v any, encode func() ([]byte, error), requoted bool) {
	t.Helper()
	got, err := encode()
	want, wantErr := ReferenceJSON(v)
	if err != nil || wantErr != nil {
		if err == nil || wantErr == nil || err.Error() != wantErr.Error() {
			t.Fatalf("error = %v, encoding/json: %v", err, wantErr)
		}
		return
	}
	if !json.Valid(got) {
		t.Fatalf("invalid JSON: %s", got)
	}
	subs, ok := SameBytesModuloQuoting(want, got)
	if !ok || (subs > 0 && !requoted) {
		t.Fatalf("bytes differ (%d requoted):\nwant %s\ngot  %s", subs, want, got)
	}
	if !reflect.DeepEqual(DecodeAny(t, want), DecodeAny(t, got)) {
		t.Fatalf("values differ:\nwant %s\ngot  %s", want, got)
	}
}

// SameBytesModuloQuoting walks ref (encoding/json) and got (the writer)
// together. They must be the same bytes, except that in strings the
// writer keeps U+2028 and U+2029 as they are and writes invalid UTF-8 as
// a literal U+FFFD where encoding/json writes \u2028, \u2029 and \ufffd:
// the two quotings of the same value. Both are valid JSON (only the
// quote, the backslash and U+0000 to U+001F must be escaped) and decode
// to the same string; the writer quotes as gopi's session lines are
// quoted. subs counts those places.
func SameBytesModuloQuoting(ref, got []byte) (subs int, ok bool) {
	i, j := 0, 0
	for i < len(ref) && j < len(got) {
		if ref[i] == got[j] {
			i, j = i+1, j+1
			continue
		}
		matched := false
		for _, p := range [][2]string{{`\u2028`, "\u2028"}, {`\u2029`, "\u2029"}, {`\ufffd`, "\ufffd"}} {
			if bytes.HasPrefix(ref[i:], []byte(p[0])) && bytes.HasPrefix(got[j:], []byte(p[1])) {
				i, j, matched = i+len(p[0]), j+len(p[1]), true
				subs++
				break
			}
		}
		if !matched {
			return subs, false
		}
	}
	return subs, i == len(ref) && j == len(got)
}

// Requotes reports whether quoting s differs between the two writers.
func Requotes(s string) bool {
	return !utf8.ValidString(s) || strings.ContainsAny(s, "\u2028\u2029")
}

// DecodeAny decodes one JSON value, numbers as json.Number.
func DecodeAny(t testing.TB, b []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	return v
}

// SampleTexts are the strings the writer tests put everywhere.
var SampleTexts = []string{
	"hello",
	"<script>alert('x & y')</script> a > b",
	"line\nbreak\ttab\rreturn\bback\fform",
	"\x00\x01\x1b[31mred\x1b[0m\x1f\x7f",
	"é ñ 日本語 🎉 \U0001F600 \ufffd",
	`quote " backslash \ slash / \u2028 written out`,
	"separators \u2028 and \u2029",
	"invalid \xff\xfe utf8 \xe2\x80 cut \xed\xa0\x80 surrogate",
	"  \n ",
	"",
	strings.Repeat("long text with \"quotes\", <tags> & \\ and\n newlines\t", 40),
	strings.Repeat("\x1b[1mbold\x1b[0m\r\n", 30) + "\u2028",
}

// benchWords mixes prose, code and the characters JSON must escape.
var benchWords = []string{
	"the", "session", "resumed", "with", "a", "long", "history", "func", "main()", "{", "}",
	"\n", "\n\t", "\t\t", `"quoted"`, `path\to\file`, "<tag>", "a&b", "é", "日本語", "return", "err",
	"if", "nil", ":=", "fmt.Println(x)", "// comment", "value", "42", "[]byte", "map[string]any",
}

// BenchText returns about n bytes of deterministic text.
func BenchText(rng *rand.Rand, n int) string {
	var sb strings.Builder
	sb.Grow(n + 16)
	for sb.Len() < n {
		sb.WriteString(benchWords[rng.IntN(len(benchWords))])
		sb.WriteByte(' ')
	}
	return sb.String()
}

// BenchRequest is a resumed session of about 10,000 messages and 4 MB of
// text: user prompts, assistant turns with thinking, text and a tool call,
// and tool results.
func BenchRequest(info ai.Info, messages int, callIDPrefix string) *ai.Request {
	rng := rand.New(rand.NewPCG(1, 2))
	msgs := make([]ai.Message, 0, messages)
	for call := 0; len(msgs) < messages; {
		msgs = append(msgs, ai.UserText(BenchText(rng, 300), int64(len(msgs))))
		for k := 0; k < 3 && len(msgs) < messages; k++ {
			call++
			id := fmt.Sprintf("%s%06d", callIDPrefix, call)
			args, _ := json.Marshal(map[string]any{"path": fmt.Sprintf("pkg/x/file%d.go", call), "offset": call % 100})
			msgs = append(msgs, ai.Message{
				Role: ai.RoleAssistant, API: info.API, Provider: info.Provider, Model: info.ID, StopReason: ai.StopToolUse,
				Content: []ai.Content{
					{Type: ai.TypeThinking, Thinking: BenchText(rng, 200), ThinkingSignature: "reasoning_content"},
					ai.TextContent(BenchText(rng, 150)),
					ai.ToolCallContent(id, "read", args),
				},
			}, ai.Message{
				Role: ai.RoleToolResult, ToolCallID: id, ToolName: "read",
				Content: []ai.Content{ai.TextContent(BenchText(rng, 450))},
			})
		}
	}
	return &ai.Request{
		SystemPrompt: BenchText(rng, 2000),
		Messages:     msgs,
		Tools: []ai.ToolSpec{{Name: "read", Description: "Read a file.",
			Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"offset":{"type":"integer"}},"required":["path"]}`)}},
		Thinking: ai.ThinkingMedium,
	}
}

// MemTransport answers every request with one in-memory event stream, so
// an adapter's stream benchmark measures gopi's side alone: the SSE
// reader, the event decoder, the Builder and the retry runner.
type MemTransport struct{ Stream []byte }

func (m MemTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	_ = r.Body.Close()
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"text/event-stream"}},
		Body: io.NopCloser(bytes.NewReader(m.Stream)), Request: r}, nil
}

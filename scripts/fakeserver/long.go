package main

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
)

// long streams a long answer: thinking deltas, then text deltas, one word
// each, or first a write tool call whose arguments arrive in many small
// deltas, as a provider sends them.
type long struct {
	tokens, thinking int
	writeBytes       int
	chunk            int

	mu     sync.Mutex
	bodies map[string][]byte // rendered once: the server costs gopi's measure little
}

var words = []string{"the ", "answer ", "goes ", "on ", "and ", "on, ", "line ", "after ", "line.\n"}

func (l *long) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	// The request after the tool call carries its result.
	call := l.writeBytes > 0 && !bytes.Contains(body, []byte(`"tool_result"`)) && !bytes.Contains(body, []byte(`"role":"tool"`))
	w.Header().Set("Content-Type", "text/event-stream")
	_, _ = w.Write(l.body(strings.HasSuffix(r.URL.Path, "/chat/completions"), call))
}

// body returns the stream of one answer, rendered at its first request.
func (l *long) body(openai, call bool) []byte {
	key := fmt.Sprint(openai, call)
	l.mu.Lock()
	defer l.mu.Unlock()
	if b, ok := l.bodies[key]; ok {
		return b
	}
	var buf bytes.Buffer
	bw := bufio.NewWriter(&buf)
	var s streamer = &anthropicWriter{w: bw}
	if openai {
		s = &openaiWriter{w: bw}
	}
	s.begin()
	switch {
	case call:
		s.toolCall("call_write_1", "write", l.writeArguments(), max(l.chunk, 1))
	default:
		if l.thinking > 0 {
			s.block("thinking", l.thinking)
		}
		s.block("text", max(l.tokens, 1))
	}
	s.end(call)
	_ = bw.Flush()
	if l.bodies == nil {
		l.bodies = map[string][]byte{}
	}
	l.bodies[key] = buf.Bytes()
	return buf.Bytes()
}

// writeArguments are the JSON arguments of a write of big.txt with
// writeBytes bytes of text.
func (l *long) writeArguments() string {
	var content strings.Builder
	for i := 0; content.Len() < l.writeBytes; i++ {
		content.WriteString(words[i%len(words)])
	}
	args, _ := json.Marshal(map[string]string{"path": "big.txt", "content": content.String()[:l.writeBytes]})
	return string(args)
}

// streamer writes one answer in a provider's wire format.
type streamer interface {
	begin()
	block(kind string, n int) // a text or thinking block of n one-word deltas
	toolCall(id, name, args string, chunk int)
	text(s string) // a text block of one delta
	end(toolUse bool)
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// splitArgs cuts args into pieces of chunk bytes (the arguments are
// ASCII, so no piece splits a character).
func splitArgs(args string, chunk int) []string {
	var out []string
	for len(args) > chunk {
		out = append(out, args[:chunk])
		args = args[chunk:]
	}
	return append(out, args)
}

type anthropicWriter struct {
	w     *bufio.Writer
	index int
	input int // the answer's input tokens; 0 means 100
}

func (a *anthropicWriter) event(name, data string) {
	fmt.Fprintf(a.w, "event: %s\ndata: %s\n\n", name, data)
}

func (a *anthropicWriter) begin() {
	a.event("message_start", fmt.Sprintf(`{"type":"message_start","message":{"id":"msg_bench","type":"message","role":"assistant","model":"claude-opus-4-6","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":%d,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1}}}`, cmp.Or(a.input, 100)))
}

func (a *anthropicWriter) block(kind string, n int) {
	start := `{"type":"text","text":""}`
	deltaType, field := "text_delta", "text"
	if kind == "thinking" {
		start = `{"type":"thinking","thinking":""}`
		deltaType, field = "thinking_delta", "thinking"
	}
	a.event("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":%s}`, a.index, start))
	for i := range n {
		a.event("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":%q,%q:%s}}`, a.index, deltaType, field, quote(words[i%len(words)])))
	}
	if kind == "thinking" {
		a.event("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"signature_delta","signature":"sig"}}`, a.index))
	}
	a.event("content_block_stop", fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, a.index))
	a.index++
}

func (a *anthropicWriter) text(s string) {
	a.event("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"text","text":""}}`, a.index))
	a.event("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"text_delta","text":%s}}`, a.index, quote(s)))
	a.event("content_block_stop", fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, a.index))
	a.index++
}

func (a *anthropicWriter) toolCall(id, name, args string, chunk int) {
	a.event("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"tool_use","id":%q,"name":%q,"input":{}}}`, a.index, id, name))
	for _, p := range splitArgs(args, chunk) {
		a.event("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"input_json_delta","partial_json":%s}}`, a.index, quote(p)))
	}
	a.event("content_block_stop", fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, a.index))
	a.index++
}

func (a *anthropicWriter) end(toolUse bool) {
	reason := "end_turn"
	if toolUse {
		reason = "tool_use"
	}
	a.event("message_delta", fmt.Sprintf(`{"type":"message_delta","delta":{"stop_reason":%q,"stop_sequence":null},"usage":{"output_tokens":2}}`, reason))
	a.event("message_stop", `{"type":"message_stop"}`)
}

type openaiWriter struct{ w *bufio.Writer }

func (o *openaiWriter) chunk(delta, finish string) {
	fmt.Fprintf(o.w, `data: {"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1752000000,"model":"gpt-4o","choices":[{"index":0,"delta":%s,"finish_reason":%s}],"usage":null}`+"\n\n", delta, finish)
}

func (o *openaiWriter) begin() { o.chunk(`{"role":"assistant","content":""}`, "null") }

func (o *openaiWriter) block(kind string, n int) {
	field := "content"
	if kind == "thinking" {
		field = "reasoning_content"
	}
	for i := range n {
		o.chunk(fmt.Sprintf(`{%q:%s}`, field, quote(words[i%len(words)])), "null")
	}
}

func (o *openaiWriter) text(s string) { o.chunk(fmt.Sprintf(`{"content":%s}`, quote(s)), "null") }

func (o *openaiWriter) toolCall(id, name, args string, chunk int) {
	o.chunk(fmt.Sprintf(`{"tool_calls":[{"index":0,"id":%q,"type":"function","function":{"name":%q,"arguments":""}}]}`, id, name), "null")
	for _, p := range splitArgs(args, chunk) {
		o.chunk(fmt.Sprintf(`{"tool_calls":[{"index":0,"function":{"arguments":%s}}]}`, quote(p)), "null")
	}
}

func (o *openaiWriter) end(toolUse bool) {
	reason := `"stop"`
	if toolUse {
		reason = `"tool_calls"`
	}
	o.chunk(`{}`, reason)
	fmt.Fprint(o.w, `data: {"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1752000000,"model":"gpt-4o","choices":[],"usage":{"prompt_tokens":100,"completion_tokens":2,"total_tokens":102}}`+"\n\ndata: [DONE]\n\n")
}

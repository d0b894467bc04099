package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// fakeProvider is the model server of one script: it answers each request
// with the next scripted reply, rendered in the wire format of the path
// asked (Anthropic at /v1/messages, OpenAI at /chat/completions, OpenAI's
// Responses API at /responses), and
// writes what it received to requests/N.json (body) and requests/N.head
// (method, path, headers) under the script's $WORK.
//
// A reply file holds one reply per line; # starts a comment:
//
//	text WORDS...          an answer (stop reason end_turn / stop)
//	cut WORDS...           an answer cut at the output limit (Anthropic's max_tokens only)
//	tool NAME JSON         one tool call with JSON arguments
//	tools NAME JSON ;; NAME JSON...   several tool calls in one answer (Anthropic's
//	                       wire only; ids toolu_fakeN_1, _2...)
//	status CODE            an error status with the vendor's error body
//	slow WORDS...          starts an answer, then sends nothing until the client goes away
//	hold                   answers nothing, not even headers, until the client goes away
//	midstream WORDS...     starts an answer, then an error event (overloaded)
//	ollamatools NAME ARGS ;; NAME ARGS...   parallel calls as Ollama sends them (fakeollama_test.go)
//	replay FILE            the bytes of a recorded stream, FILE relative to the
//	                       module root (the adapters' testdata), as text/event-stream
//
// Two prefixes choose and time a reply, for runs whose requests interleave
// (sub-agents):
//
//	match WORD REPLY       serves only a request whose first user message
//	                       holds WORD; a request takes the first reply, in
//	                       file order, that it matches (one without match
//	                       matches any request)
//	after N REPLY          answers once N requests were received (at most
//	                       10s; then a 500), so N requests are open at once
type fakeProvider struct {
	srv *httptest.Server
	dir string // where requests are written

	mu       sync.Mutex
	replies  []string
	received int
	arrived  chan struct{} // closed and replaced when received grows
	answered int           // replies fully sent, or slow ones started
	changed  chan struct{} // closed and replaced when answered grows
	// answerModel, when set, is the model the answers name instead of
	// the one asked for.
	answerModel string
}

func newFakeProvider(dir string) *fakeProvider {
	p := &fakeProvider{dir: dir, changed: make(chan struct{}), arrived: make(chan struct{})}
	p.srv = httptest.NewServer(http.HandlerFunc(p.serve))
	return p
}

// load appends the replies of a reply file.
func (p *fakeProvider) load(data string) error {
	var add []string
	for i, line := range strings.Split(data, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		_, _, rest := replyGate(line)
		kind, _, _ := strings.Cut(rest, " ")
		switch kind {
		case "text", "cut", "tool", "tools", "status", "slow", "hold", "midstream", "ollamatools", "replay":
		default:
			return fmt.Errorf("reply line %d: unknown kind %q", i+1, kind)
		}
		add = append(add, line)
	}
	p.mu.Lock()
	p.replies = append(p.replies, add...)
	p.mu.Unlock()
	return nil
}

// unused returns the replies nobody asked for.
func (p *fakeProvider) unused() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.replies...)
}

// waitAnswered blocks until n replies were sent (slow ones: started).
func (p *fakeProvider) waitAnswered(n int, timeout time.Duration) error {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		p.mu.Lock()
		got, ch := p.answered, p.changed
		p.mu.Unlock()
		if got >= n {
			return nil
		}
		select {
		case <-ch:
		case <-deadline.C:
			return fmt.Errorf("%d requests answered after %v, want %d", got, timeout, n)
		}
	}
}

func (p *fakeProvider) markAnswered() {
	p.mu.Lock()
	p.answered++
	close(p.changed)
	p.changed = make(chan struct{})
	p.mu.Unlock()
}

func (p *fakeProvider) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	p.mu.Lock()
	p.received++
	n := p.received
	close(p.arrived)
	p.arrived = make(chan struct{})
	reply, after := "", 0
	first := firstUserText(body)
	for i, line := range p.replies {
		word, n, rest := replyGate(line)
		if word == "" || strings.Contains(first, word) {
			reply, after = rest, n
			p.replies = append(p.replies[:i:i], p.replies[i+1:]...)
			break
		}
	}
	if after > n && !p.receivedMore(after, r) {
		reply = "status 500" // the requests it waited for never came
	}
	p.mu.Unlock()
	p.record(n, r, body)
	var once sync.Once
	answered := func() { once.Do(p.markAnswered) }
	defer answered()
	if reply == "" {
		http.Error(w, "fake provider: no reply scripted for request "+strconv.Itoa(n), http.StatusTeapot)
		return
	}
	var model struct {
		Model string `json:"model"`
	}
	_ = json.Unmarshal(body, &model)
	p.mu.Lock()
	if p.answerModel != "" {
		model.Model = p.answerModel
	}
	p.mu.Unlock()
	wire := anthropicWire
	switch {
	case strings.HasSuffix(r.URL.Path, "/chat/completions"):
		wire = openaiWire
	case strings.HasSuffix(r.URL.Path, "/responses"):
		wire = responsesWire
	}
	p.reply(w, r, wire, model.Model, n, reply, answered)
}

func (p *fakeProvider) record(n int, r *http.Request, body []byte) {
	var head strings.Builder
	fmt.Fprintf(&head, "%s %s\n", r.Method, r.URL.Path)
	_ = r.Header.Write(&head)
	base := filepath.Join(p.dir, strconv.Itoa(n))
	_ = os.MkdirAll(p.dir, 0o755)
	_ = os.WriteFile(base+".head", []byte(strings.ReplaceAll(head.String(), "\r\n", "\n")), 0o644)
	_ = os.WriteFile(base+".json", append(body, '\n'), 0o644)
}

// reply sends one scripted reply; answered is called once it was sent,
// or, for a slow one, once its beginning was flushed.
func (p *fakeProvider) reply(w http.ResponseWriter, r *http.Request, wire wireFormat, model string, n int, reply string, answered func()) {
	kind, rest, _ := strings.Cut(reply, " ")
	rest = strings.TrimSpace(rest)
	id := fmt.Sprintf("fake%d", n)
	if kind == "ollamatools" {
		ollamaTools(w, r, id, model, rest)
		return
	}
	if kind == "replay" {
		raw, err := os.ReadFile(filepath.Join("..", filepath.FromSlash(rest)))
		if err != nil {
			http.Error(w, "fake provider: "+err.Error(), http.StatusTeapot)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write(raw)
		return
	}
	if kind == "hold" { // the model has not begun: no headers, no byte
		answered()
		select { // the client aborts; the cap keeps a broken client from hanging the server
		case <-r.Context().Done():
		case <-time.After(30 * time.Second):
		}
		return
	}
	if kind == "status" {
		code, _ := strconv.Atoi(rest)
		w.Header().Set("Content-Type", "application/json")
		if code == http.StatusTooManyRequests {
			w.Header().Set("retry-after", "0")
		}
		w.WriteHeader(code)
		_, _ = io.WriteString(w, wire.errorBody(code))
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	bw := bufio.NewWriter(w)
	flush := func() {
		_ = bw.Flush()
		_ = http.NewResponseController(w).Flush()
	}
	switch kind {
	case "text":
		wire.text(bw, id, model, rest)
	case "cut":
		anthropicStart(bw, id, model, rest)
		anthropicEvent(bw, "content_block_stop", `{"type":"content_block_stop","index":0}`)
		anthropicEnd(bw, "max_tokens", len(words(rest)))
	case "tool":
		name, args, _ := strings.Cut(rest, " ")
		wire.tool(bw, id, model, name, strings.TrimSpace(args))
	case "tools":
		anthropicTools(bw, id, model, rest)
	case "slow":
		wire.start(bw, id, model, rest)
		flush()
		answered()
		select { // the client aborts; the cap keeps a broken client from hanging the server
		case <-r.Context().Done():
		case <-time.After(30 * time.Second):
		}
		return
	case "midstream":
		wire.start(bw, id, model, rest)
		wire.midstreamError(bw)
	}
	flush()
}

// words splits text into a few deltas, as a real stream does.
func words(text string) []string {
	var out []string
	for _, w := range strings.SplitAfter(text, " ") {
		if w != "" {
			out = append(out, w)
		}
	}
	return out
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// wireFormat renders replies in one vendor's streaming format.
type wireFormat struct {
	text           func(w io.Writer, id, model, text string)
	tool           func(w io.Writer, id, model, name, args string)
	start          func(w io.Writer, id, model, text string) // an answer that has not ended
	midstreamError func(w io.Writer)
	errorBody      func(code int) string
}

var anthropicWire = wireFormat{
	text: func(w io.Writer, id, model, text string) {
		anthropicStart(w, id, model, text)
		anthropicEvent(w, "content_block_stop", `{"type":"content_block_stop","index":0}`)
		anthropicEnd(w, "end_turn", len(words(text)))
	},
	tool: func(w io.Writer, id, model, name, args string) {
		anthropicEvent(w, "message_start", anthropicMessageStart(id, model))
		anthropicEvent(w, "content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_%s","name":%s,"input":{}}}`, id, jsonString(name)))
		anthropicEvent(w, "content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":""}}`)
		half := len(args) / 2
		for _, part := range []string{args[:half], args[half:]} {
			anthropicEvent(w, "content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":%s}}`, jsonString(part)))
		}
		anthropicEvent(w, "content_block_stop", `{"type":"content_block_stop","index":0}`)
		anthropicEnd(w, "tool_use", 12)
	},
	start: anthropicStart,
	midstreamError: func(w io.Writer) {
		anthropicEvent(w, "error", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)
	},
	errorBody: func(code int) string {
		types := map[int]string{400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
			404: "not_found_error", 429: "rate_limit_error", 500: "api_error", 529: "overloaded_error"}
		typ := types[code]
		if typ == "" {
			typ = "api_error"
		}
		return fmt.Sprintf(`{"type":"error","error":{"type":%q,"message":"fake %d"},"request_id":"req_fake"}`, typ, code)
	},
}

func anthropicEvent(w io.Writer, name, data string) {
	fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, data)
}

func anthropicMessageStart(id, model string) string {
	return fmt.Sprintf(`{"type":"message_start","message":{"id":"msg_%s","type":"message","role":"assistant","model":%s,"content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":100,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1,"service_tier":"standard"}}}`, id, jsonString(model))
}

// anthropicStart sends message_start and a text block's deltas, unended.
func anthropicStart(w io.Writer, id, model, text string) {
	anthropicEvent(w, "message_start", anthropicMessageStart(id, model))
	anthropicEvent(w, "content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)
	anthropicEvent(w, "ping", `{"type": "ping"}`)
	for _, part := range words(text) {
		anthropicEvent(w, "content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":%s}}`, jsonString(part)))
	}
}

func anthropicEnd(w io.Writer, stop string, out int) {
	anthropicEvent(w, "message_delta", fmt.Sprintf(`{"type":"message_delta","delta":{"stop_reason":%q,"stop_sequence":null},"usage":{"output_tokens":%d}}`, stop, out))
	anthropicEvent(w, "message_stop", `{"type":"message_stop"}`)
}

var openaiWire = wireFormat{
	text: func(w io.Writer, id, model, text string) {
		openaiStart(w, id, model, text)
		openaiEnd(w, id, model, "stop", len(words(text)))
	},
	tool: func(w io.Writer, id, model, name, args string) {
		openaiChunk(w, id, model, `{"role":"assistant","content":null,"refusal":null}`, "null")
		openaiChunk(w, id, model, fmt.Sprintf(`{"tool_calls":[{"index":0,"id":"call_%s","type":"function","function":{"name":%s,"arguments":""}}]}`, id, jsonString(name)), "null")
		half := len(args) / 2
		for _, part := range []string{args[:half], args[half:]} {
			openaiChunk(w, id, model, fmt.Sprintf(`{"tool_calls":[{"index":0,"function":{"arguments":%s}}]}`, jsonString(part)), "null")
		}
		openaiEnd(w, id, model, "tool_calls", 12)
	},
	start: openaiStart,
	midstreamError: func(w io.Writer) {
		fmt.Fprint(w, "data: {\"error\":{\"message\":\"The server is overloaded\",\"type\":\"server_error\",\"code\":\"server_is_overloaded\"}}\n\n")
	},
	errorBody: func(code int) string {
		codes := map[int]string{401: "invalid_api_key", 404: "model_not_found", 429: "rate_limit_exceeded", 500: "server_error", 503: "server_is_overloaded"}
		return fmt.Sprintf(`{"error":{"message":"fake %d","type":"invalid_request_error","param":null,"code":%q}}`, code, codes[code])
	},
}

func openaiChunk(w io.Writer, id, model, delta, finish string) {
	fmt.Fprintf(w, `data: {"id":"chatcmpl-%s","object":"chat.completion.chunk","created":1752000000,"model":%s,"service_tier":"default","system_fingerprint":"fp_fake","choices":[{"index":0,"delta":%s,"logprobs":null,"finish_reason":%s}],"usage":null,"obfuscation":"x"}`+"\n\n", id, jsonString(model), delta, finish)
}

func openaiStart(w io.Writer, id, model, text string) {
	openaiChunk(w, id, model, `{"role":"assistant","content":"","refusal":null}`, "null")
	for _, part := range words(text) {
		openaiChunk(w, id, model, fmt.Sprintf(`{"content":%s}`, jsonString(part)), "null")
	}
}

func openaiEnd(w io.Writer, id, model, finish string, out int) {
	openaiChunk(w, id, model, `{}`, jsonString(finish))
	fmt.Fprintf(w, `data: {"id":"chatcmpl-%s","object":"chat.completion.chunk","created":1752000000,"model":%s,"choices":[],"usage":{"prompt_tokens":100,"completion_tokens":%d,"total_tokens":%d,"prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}}}`+"\n\n", id, jsonString(model), out, 100+out)
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// replyGate splits a reply line's match and after prefixes from the reply.
func replyGate(line string) (word string, after int, reply string) {
	for {
		kind, rest, _ := strings.Cut(line, " ")
		switch kind {
		case "match":
			word, line, _ = strings.Cut(strings.TrimSpace(rest), " ")
		case "after":
			var num string
			num, line, _ = strings.Cut(strings.TrimSpace(rest), " ")
			after, _ = strconv.Atoi(num)
		default:
			return word, after, line
		}
		line = strings.TrimSpace(line)
	}
}

// receivedMore waits, with p.mu held (released while it waits), until
// n requests were received, at most 10s.
func (p *fakeProvider) receivedMore(n int, r *http.Request) bool {
	deadline := time.NewTimer(10 * time.Second)
	defer deadline.Stop()
	for p.received < n {
		ch := p.arrived
		p.mu.Unlock()
		select {
		case <-ch:
		case <-deadline.C:
			p.mu.Lock()
			return false
		case <-r.Context().Done():
			p.mu.Lock()
			return false
		}
		p.mu.Lock()
	}
	return true
}

// firstUserText is the text of the first user message of a request body
// (Anthropic's messages, OpenAI's messages or the Responses API's input).
func firstUserText(body []byte) string {
	var req struct {
		Messages []json.RawMessage `json:"messages"`
		Input    []json.RawMessage `json:"input"`
	}
	_ = json.Unmarshal(body, &req)
	for _, raw := range append(req.Messages, req.Input...) {
		var m struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		}
		if json.Unmarshal(raw, &m) != nil || m.Role != "user" {
			continue
		}
		var text string
		if json.Unmarshal(m.Content, &text) == nil {
			return text
		}
		var blocks []struct {
			Text string `json:"text"`
		}
		_ = json.Unmarshal(m.Content, &blocks)
		var b strings.Builder
		for _, bl := range blocks {
			b.WriteString(bl.Text)
		}
		return b.String()
	}
	return ""
}

// anthropicTools sends one answer with several tool calls: "NAME JSON ;; NAME JSON".
func anthropicTools(w io.Writer, id, model, calls string) {
	anthropicEvent(w, "message_start", anthropicMessageStart(id, model))
	for i, c := range strings.Split(calls, ";;") {
		name, args, _ := strings.Cut(strings.TrimSpace(c), " ")
		anthropicEvent(w, "content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"tool_use","id":"toolu_%s_%d","name":%s,"input":{}}}`, i, id, i+1, jsonString(name)))
		anthropicEvent(w, "content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"input_json_delta","partial_json":%s}}`, i, jsonString(strings.TrimSpace(args))))
		anthropicEvent(w, "content_block_stop", fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, i))
	}
	anthropicEnd(w, "tool_use", 12)
}

package acp

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"
)

// client speaks to a Server as an editor does: messages into its stdin
// pipe, each line it writes read in order.
type client struct {
	t     *testing.T
	in    *io.PipeWriter
	lines chan string
	done  chan error
	norm  []*strings.Replacer
	raw   string // the last line read, as written
	masks []mask
}

// mask makes what a test does not pin constant.
type mask struct {
	re   *regexp.Regexp
	with string
}

func dial(t *testing.T, h Host, opts Options) *client {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &client{t: t, in: inW, lines: make(chan string, 1000), done: make(chan error, 1)}
	if opts.Now == nil {
		opts.Now = func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }
	}
	srv := NewServer(outW, h, opts)
	go func() {
		err := srv.Serve(context.Background(), inR)
		outW.Close()
		c.done <- err
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
		close(c.lines)
	}()
	return c
}

func (c *client) send(s string) {
	c.t.Helper()
	if _, err := io.WriteString(c.in, s+"\n"); err != nil {
		c.t.Fatal(err)
	}
}

var (
	uuidRE = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	callRE = regexp.MustCompile(`"(toolCallId)":"call_[^"]*"`)
)

// next reads one line, its ids and folders made constant.
func (c *client) next() string {
	c.t.Helper()
	l, ok := <-c.lines
	if !ok {
		c.t.Fatal("the server's output ended")
	}
	c.raw = l
	for _, r := range c.norm {
		l = r.Replace(l)
	}
	l = uuidRE.ReplaceAllString(l, "UUID")
	for _, m := range c.masks {
		l = m.re.ReplaceAllString(l, m.with)
	}
	if os.Getenv("ACPDUMP") != "" {
		c.t.Log(l)
	}
	return l
}

func (c *client) expect(want string) {
	c.t.Helper()
	if got := c.next(); got != want {
		c.t.Fatalf("line\n%s\nwant\n%s", got, want)
	}
}

// until reads lines up to and including the first holding sub.
func (c *client) until(sub string) []string {
	c.t.Helper()
	var got []string
	for {
		l := c.next()
		got = append(got, l)
		if strings.Contains(l, sub) {
			return got
		}
	}
}

// close ends stdin: Serve returns with no error after its last line.
func (c *client) close() []string {
	c.t.Helper()
	c.in.Close()
	var rest []string
	for l := range c.lines {
		rest = append(rest, l)
	}
	if err := <-c.done; err != nil {
		c.t.Fatalf("Serve: %v", err)
	}
	return rest
}

var sessionIDRE = regexp.MustCompile(`"sessionId":"([^"]+)"`)

// sessionID is the session id the last line read names.
func (c *client) sessionID() string {
	c.t.Helper()
	m := sessionIDRE.FindStringSubmatch(c.raw)
	if m == nil {
		c.t.Fatalf("no sessionId in %s", c.raw)
	}
	return m[1]
}

// setupOf is the configOptions and modes of a session on the faux
// model of the script (SCRIPT), as session/new, session/load and
// session/resume answer them.
func setupOf(thinking, mode string) string {
	levels := `[{"name":"off","value":"off"},{"name":"minimal","value":"minimal"},{"name":"low","value":"low"},{"name":"medium","value":"medium"},{"name":"high","value":"high"},{"name":"xhigh","value":"xhigh"}]`
	return `"configOptions":[{"category":"model","currentValue":"faux/SCRIPT","id":"model","name":"Model","options":[{"description":"faux","name":"Scripted model","value":"faux/SCRIPT"}],"type":"select"},` +
		`{"category":"thought_level","currentValue":"` + thinking + `","id":"thinking","name":"Thinking","options":` + levels + `,"type":"select"}],` +
		`"modes":{"availableModes":[{"description":"Commands and tools may read, not write (sandbox read-only)","id":"read-only","name":"Read only"},{"description":"Writes inside the project's folder only (sandbox workspace-write)","id":"workspace-write","name":"Workspace write"},{"description":"Commands run without a sandbox","id":"off","name":"No sandbox"}],"currentModeId":"` + mode + `"}`
}

func update(u string) string {
	return `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"UUID","update":` + u + `}}`
}

func chunkOf(kind, text string) string {
	return update(`{"content":{"text":"` + text + `","type":"text"},"sessionUpdate":"` + kind + `"}`)
}

const (
	commandsUpdate = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"UUID","update":{"availableCommands":[{"description":"fix it","input":{"hint":"arguments"},"name":"fix"},{"description":"lint it","input":{"hint":"arguments"},"name":"skill:lint"}],"sessionUpdate":"available_commands_update"}}}`
	refusedRm      = `{"content":[{"content":{"text":"operation not permitted by the permission rules: run rm x (denied by rule Bash(rm *); the user was asked and did not allow it)","type":"text"},"type":"content"}],"sessionUpdate":"tool_call_update","status":"failed","toolCallId":"call_2_1"}`
	rmCall         = `{"kind":"execute","rawInput":{"command":"rm x"},"sessionUpdate":"tool_call","status":"%s","title":"rm x","toolCallId":"call_2_1"}`
	askRm          = `{"jsonrpc":"2.0","id":%d,"method":"session/request_permission","params":{"options":[{"kind":"allow_once","name":"Allow once","optionId":"allow-once"},{"kind":"allow_always","name":"Always allow","optionId":"allow-always"},{"kind":"reject_once","name":"Reject","optionId":"reject-once"},{"kind":"reject_always","name":"Always reject","optionId":"reject-always"}],"sessionId":"UUID","toolCall":{"kind":"execute","rawInput":{"command":"rm x"},"title":"rm x","toolCallId":"call_2_1"}}}`
)

// exchange sends each message and reads the lines it is answered with.
func (c *client) exchange(steps []step) {
	c.t.Helper()
	for _, s := range steps {
		c.send(s.send)
		for _, w := range s.want {
			c.expect(w)
		}
	}
}

type step struct {
	send string
	want []string
}

func one(send string, want ...string) step { return step{send, want} }

func errLine(id, code int, msg string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"error":{"code":%d,"message":%q}}`, id, code, msg)
}

// A session's life over the wire, every line compared: initialize, bad
// requests answered in the protocol's codes and the user's words, a new
// session and its commands, a prompt's chunks, usage and stop reason, a
// refused call asked about, the list, close, and load's replay of the
// conversation.
func TestServeSessionOverTheWire(t *testing.T) {
	w := newWorld(t, `[{"text":"hello there"},{"toolCalls":[{"name":"bash","arguments":{"command":"rm x"}}]},{"text":"done"}]`)
	cwd := t.TempDir()
	var diag bytes.Buffer
	c := dial(t, w.host(), Options{Version: "1.2.3", Diag: &diag})
	c.norm = append(c.norm, strings.NewReplacer(cwd, "CWD", w.script, "SCRIPT"))
	newSession := `{"jsonrpc":"2.0","id":%d,"method":"session/new","params":{"cwd":"` + cwd + `","mcpServers":%s}}`
	c.exchange([]step{
		one(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"agentCapabilities":{"loadSession":true,"mcpCapabilities":{"http":true,"sse":false},"promptCapabilities":{"audio":false,"embeddedContext":true,"image":true},"sessionCapabilities":{"close":{},"list":{},"resume":{}}},"agentInfo":{"name":"gopi","title":"gopi","version":"1.2.3"},"authMethods":[],"protocolVersion":1}}`),
		one(`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{}}`, errLine(2, -32602, `initialize: "protocolVersion" is missing: send 1`)),
		one(`{"jsonrpc":"2.0","id":3,"method":"initialize"}`, errLine(3, -32602, `initialize: params are missing`)),
		one(`{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":"one"}}`, errLine(4, -32602, `initialize: params are wrong ("protocolVersion" has the wrong type)`)),
		one(`{"jsonrpc":"2.0","id":5,"method":"authenticate","params":{}}`, errLine(5, -32602, `gopi has no authentication methods: it reads API keys from the environment and settings`)),
		one(`{"jsonrpc":"2.0","id":6,"method":"fs/frobnicate","params":{}}`, errLine(6, -32601, `unknown method "fs/frobnicate": gopi serves initialize, session/new, session/load, session/resume, session/list, session/close, session/prompt, session/cancel, session/set_mode and session/set_config_option`)),
		one(`{"jsonrpc":"2.0","id":7,`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"the line is not a JSON-RPC message (invalid JSON at byte 24): send one JSON object per line"}}`),
		one(`{"jsonrpc":"2.0","id":8}`, errLine(8, -32600, `the message has no "method": send {"jsonrpc":"2.0","id":1,"method":"initialize","params":{...}}`)),
		one(`{"jsonrpc":"1.0","id":9,"method":"initialize","params":{"protocolVersion":1}}`, errLine(9, -32600, `"jsonrpc" must be "2.0"`)),
		// Notifications are answered with nothing: the next line is 10's.
		one(`{"jsonrpc":"1.0","method":"initialize"}`),
		one(`{"jsonrpc":"2.0","method":"session/frobnicate","params":{}}`),
		one(`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"nosuch"}}`),
		one(`   `),
		one(`{"jsonrpc":"2.0","id":10,"method":"session/new","params":{"mcpServers":[]}}`, errLine(10, -32602, `"cwd" is missing: give the project's folder as an absolute path`)),
		one(`{"jsonrpc":"2.0","id":11,"method":"session/new","params":{"cwd":"rel/dir","mcpServers":[]}}`, errLine(11, -32602, `"cwd" "rel/dir" is not an absolute path: give the project's folder as one`)),
		one(fmt.Sprintf(newSession, 12, `[{"name":" ","command":"x"}]`), errLine(12, -32602, `mcpServers[0]: "name" is missing`)),
		one(fmt.Sprintf(newSession, 13, `[{"name":"docs","command":"x"},{"name":"web","type":"stdio"}]`), errLine(13, -32602, `mcpServers[1] (web): "command" is missing`)),
		one(fmt.Sprintf(newSession, 14, `[{"name":"web","type":"http"}]`), errLine(14, -32602, `mcpServers[0] (web): "url" is missing`)),
		one(fmt.Sprintf(newSession, 15, `[{"name":"web","type":"sse","url":"http://x"}]`), errLine(15, -32602, `mcpServers[0] (web): type "sse" is not served: give a command (stdio) or "type":"http"`)),
		one(`{"jsonrpc":"2.0","id":16,"method":"session/prompt","params":{"sessionId":"nosuch","prompt":[]}}`, errLine(16, -32002, `session "nosuch" is not open: start one with session/new or open it with session/load`)),
		one(`{"jsonrpc":"2.0","id":17,"method":"session/prompt","params":{"prompt":[]}}`, errLine(17, -32602, `"sessionId" is missing: give the id session/new answered`)),
		one(fmt.Sprintf(newSession, 18, `[]`), commandsUpdate, `{"jsonrpc":"2.0","id":18,"result":{`+setupOf("off", "off")+`,"sessionId":"UUID"}}`),
	})
	id := c.sessionID()
	if len(w.opened) != 1 {
		t.Fatalf("sessions opened: %+v", w.opened)
	}
	prompt := `{"jsonrpc":"2.0","id":%d,"method":"session/prompt","params":{"sessionId":"` + id + `","prompt":[{"type":"text","text":%q}]}}`
	c.exchange([]step{
		one(fmt.Sprintf(prompt, 20, "say hello"),
			chunkOf("agent_message_chunk", "hello there"),
			update(`{"sessionUpdate":"usage_update","size":200000,"used":14}`),
			`{"jsonrpc":"2.0","id":20,"result":{"stopReason":"end_turn"}}`),
		one(fmt.Sprintf(prompt, 21, "remove x"),
			update(`{"sessionUpdate":"usage_update","size":200000,"used":36}`),
			update(fmt.Sprintf(rmCall, "in_progress")),
			fmt.Sprintf(askRm, 0)),
		one(`{"jsonrpc":"2.0","id":0,"result":{"outcome":{"outcome":"selected","optionId":"reject-once"}}}`,
			update(refusedRm),
			chunkOf("agent_message_chunk", "done"),
			update(`{"sessionUpdate":"usage_update","size":200000,"used":89}`),
			`{"jsonrpc":"2.0","id":21,"result":{"stopReason":"end_turn"}}`),
		// An answer to no request is said on Diag and ignored.
		one(`{"jsonrpc":"2.0","id":0,"result":{"outcome":{"outcome":"selected","optionId":"allow-once"}}}`),
		one(`{"jsonrpc":"2.0","id":22,"method":"session/list","params":{"cwd":"relative"}}`, errLine(22, -32602, `"cwd" "relative" is not an absolute path: give the project's folder as one`)),
	})
	c.send(`{"jsonrpc":"2.0","id":23,"method":"session/list","params":{"cwd":"` + cwd + `"}}`)
	if got := regexp.MustCompile(`"updatedAt":"[^"]*"`).ReplaceAllString(c.next(), `"updatedAt":T`); got != `{"jsonrpc":"2.0","id":23,"result":{"sessions":[{"cwd":"CWD","sessionId":"UUID","title":"say hello","updatedAt":T}]}}` {
		t.Fatalf("session/list answered %s", got)
	}
	load := `{"jsonrpc":"2.0","id":%d,"method":"session/%s","params":{"sessionId":"` + id + `","cwd":"` + cwd + `","mcpServers":[]}}`
	c.exchange([]step{
		one(fmt.Sprintf(load, 24, "load"), errLine(24, -32602, `session "UUID" is already open on this connection`)),
		one(`{"jsonrpc":"2.0","id":25,"method":"session/close","params":{"sessionId":"`+id+`"}}`, `{"jsonrpc":"2.0","id":25,"result":{}}`),
		one(`{"jsonrpc":"2.0","id":26,"method":"session/close","params":{"sessionId":"`+id+`"}}`, errLine(26, -32002, `session "UUID" is not open: start one with session/new or open it with session/load`)),
		one(`{"jsonrpc":"2.0","id":27,"method":"session/load","params":{"cwd":"`+cwd+`"}}`, errLine(27, -32602, `"sessionId" is missing: give an id session/list answered`)),
		one(fmt.Sprintf(load, 28, "load"),
			chunkOf("user_message_chunk", "say hello"),
			chunkOf("agent_message_chunk", "hello there"),
			chunkOf("user_message_chunk", "remove x"),
			update(fmt.Sprintf(rmCall, "pending")),
			update(refusedRm),
			chunkOf("agent_message_chunk", "done"),
			commandsUpdate,
			`{"jsonrpc":"2.0","id":28,"result":{`+setupOf("off", "off")+`}}`),
		one(`{"jsonrpc":"2.0","id":29,"method":"session/close","params":{"sessionId":"`+id+`"}}`, `{"jsonrpc":"2.0","id":29,"result":{}}`),
		// resume opens it again without the replay.
		one(fmt.Sprintf(load, 30, "resume"), commandsUpdate, `{"jsonrpc":"2.0","id":30,"result":{`+setupOf("off", "off")+`}}`),
	})
	if rest := c.close(); len(rest) != 0 {
		t.Fatalf("lines after stdin ended: %s", strings.Join(rest, "\n"))
	}
	if len(w.opened) != 3 || w.closed != 3 || w.opened[1].File == "" || w.opened[2].File != w.opened[1].File {
		t.Fatalf("opened %+v, closed %d", w.opened, w.closed)
	}
	if want := "gopi: a response to no request (id 0) was ignored\n"; diag.String() != want {
		t.Fatalf("diagnostics %q, want %q", diag.String(), want)
	}
}

func sprintf(format string, a ...any) string { return fmt.Sprintf(format, a...) }

package rpc

import (
	"context"
	"io"
	"iter"
	"os"
	"regexp"
	"strings"
	"testing"

	"gopi/internal/rpcdrive"
	"gopi/pkg/ai"
	"gopi/pkg/ai/faux"
	gruntime "gopi/pkg/runtime"
	"gopi/pkg/session"
)

// client drives a Server as a client does: command lines into its stdin
// pipe, records read from its stdout pipe.
type client struct {
	t  *testing.T
	in *io.PipeWriter
	// lines go to stdin from a goroutine of their own, so that a test
	// may send several before it reads.
	lines   chan string
	written chan struct{}
	recs    *rpcdrive.Reader
	done    chan error
}

func startClient(t *testing.T, first Opened, host Host, opts Options) *client {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	srv := NewServer(outW, io.Discard, first, host, opts)
	c := &client{t: t, in: inW, recs: rpcdrive.NewReader(outR), done: make(chan error, 1),
		lines: make(chan string, 64), written: make(chan struct{})}
	go func() {
		defer close(c.written)
		defer inW.Close()
		for l := range c.lines {
			if _, err := io.WriteString(inW, l+"\n"); err != nil {
				t.Errorf("writing %s: %v", l, err)
				return
			}
		}
	}()
	go func() {
		err := srv.Serve(context.Background(), inR)
		outW.Close()
		c.done <- err
	}()
	return c
}

func (c *client) send(line string) {
	c.lines <- line
}

// next reads one record, its volatile parts (times, ids, folders) made
// constant.
func (c *client) next() string {
	c.t.Helper()
	b, err := c.recs.Next()
	if err != nil {
		c.t.Fatalf("reading a record: %v", err)
	}
	if os.Getenv("RPCDUMP") != "" {
		c.t.Log(normalize(string(b)))
	}
	return normalize(string(b))
}

// until reads records up to and including the first that starts with
// prefix.
func (c *client) until(prefix string) []string {
	c.t.Helper()
	var got []string
	for {
		l := c.next()
		got = append(got, l)
		if strings.HasPrefix(l, prefix) {
			return got
		}
	}
}

// expect reads one record and compares it.
func (c *client) expect(want string) {
	c.t.Helper()
	if got := c.next(); got != want {
		c.t.Fatalf("record\n%s\nwant\n%s", got, want)
	}
}

// end closes stdin: Serve ends with no error after its last record.
func (c *client) end() {
	c.t.Helper()
	close(c.lines)
	for {
		b, err := c.recs.Next()
		if err != nil {
			break
		}
		c.t.Errorf("a record after stdin ended: %s", b)
	}
	if err := <-c.done; err != nil {
		c.t.Fatalf("Serve: %v", err)
	}
	<-c.written
}

var volatile = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`"(timestamp|startedAt|createdAt)":(\d+|"[^"]*")`), `"$1":T`},
	{regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`), `UUID`},
	{regexp.MustCompile(`"(id|parentId|leafId|entryId|firstKeptEntryId|fromId)":"[0-9a-f]{8}"`), `"$1":"ID"`},
	{regexp.MustCompile(`"[^"]*/[^"]*\.jsonl"`), `"FILE.jsonl"`},
	{regexp.MustCompile(`"[^"]*/script\.json"`), `"SCRIPT"`},
	{regexp.MustCompile(`"durationMs":\d+`), `"durationMs":D`},
}

func normalize(s string) string {
	for _, v := range volatile {
		s = v.re.ReplaceAllString(s, v.with)
	}
	return s
}

// gatedModel answers as faux does once the test lets it: started says
// a request arrived, release lets one answer go.
type gatedModel struct {
	faux    *faux.Model
	started chan struct{}
	release chan struct{}
}

func newGated(responses ...faux.Response) *gatedModel {
	return &gatedModel{faux: faux.New(responses...), started: make(chan struct{}, 16), release: make(chan struct{}, 16)}
}

func (g *gatedModel) Stream(ctx context.Context, req *ai.Request) iter.Seq[ai.Event] {
	g.started <- struct{}{}
	select {
	case <-g.release:
	case <-ctx.Done():
	}
	return g.faux.Stream(ctx, req)
}

func gatedServer(t *testing.T, g *gatedModel) *client {
	t.Helper()
	rt, err := gruntime.New(gruntime.Config{Model: faux.Info, Compaction: gruntime.Compaction{Disabled: true}},
		gruntime.Deps{Model: g, Session: session.NewMemoryStore("/work/proj", session.Options{})})
	if err != nil {
		t.Fatal(err)
	}
	return startClient(t, Opened{Runtime: rt, Model: faux.Info}, benchHost{}, Options{})
}

func dump(t *testing.T, lines []string) {
	if os.Getenv("RPCDUMP") != "" {
		for _, l := range lines {
			t.Log(l)
		}
	}
}

const fauxModel = `{"id":"SCRIPT","name":"Scripted model","api":"faux","provider":"faux","reasoning":false,"input":["text","image"],"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0},"contextWindow":200000,"maxTokens":16384}`

// The commands that answer at once, and bad input, each answered with
// the record pi 1.6 writes; bad input never ends the mode.
func TestServeCommandsAndBadInput(t *testing.T) {
	a := fauxAssembly(t, false)
	h := NewHost(a, HostConfig{Catalog: catalog, MaxPrompt: 1 << 20, MaxPromptOrigin: "--max-prompt-bytes"})
	c := startClient(t, h.First(), h, Options{})
	state := func(id, level string) string {
		return id + `"type":"response","schemaVersion":1,"command":"get_state","success":true,"data":{"model":` + fauxModel +
			`,"thinkingLevel":"` + level + `","isStreaming":false,"isCompacting":false,"steeringMode":"one-at-a-time","followUpMode":"one-at-a-time","sessionFile":"FILE.jsonl","sessionId":"UUID","autoCompactionEnabled":true,"messageCount":0,"pendingMessageCount":0}}`
	}
	for _, step := range []struct{ send, want string }{
		{`{"id":"1","type":"get_state"}`, state(`{"id":"1",`, "off")},
		{`{"id":"2","type":"get_available_models"}`, `{"id":"2","type":"response","schemaVersion":1,"command":"get_available_models","success":true,"data":{"models":[` + fauxModel + `]}}`},
		{`{"id":"3","type":"set_thinking_level","level":"high"}`, `{"type":"thinking_level_changed","schemaVersion":1,"level":"high"}` + "\n" + `{"id":"3","type":"response","schemaVersion":1,"command":"set_thinking_level","success":true}`},
		{`{"id":"4","type":"set_model","provider":"nosuch","modelId":"x"}`, `{"id":"4","type":"response","schemaVersion":1,"command":"set_model","success":false,"error":"Model not found: nosuch/x"}`},
		{`{"id":"5","type":"get_messages"}`, `{"id":"5","type":"response","schemaVersion":1,"command":"get_messages","success":true,"data":{"messages":[]}}`},
		{`not json`, `{"type":"response","schemaVersion":1,"command":"parse","success":false,"error":"Failed to parse command: invalid character 'o' in literal null (expecting 'u')"}`},
		{`{"id":"6","type":"frobnicate"}`, `{"id":"6","type":"response","schemaVersion":1,"command":"frobnicate","success":false,"error":"Unknown command: frobnicate"}`},
		{`{"type":"get_state"}`, state(`{`, "high")},
		{`[1]`, `{"type":"response","schemaVersion":1,"command":"parse","success":false,"error":"Failed to parse command: the line is not a JSON object: a command is {\"type\":NAME,...}"}`},
		{`{"id":7,"type":"get_state"}`, `{"type":"response","schemaVersion":1,"command":"parse","success":false,"error":"Failed to parse command: \"id\" must be a string, not 7"}`},
		{`{"id":"8"}`, `{"id":"8","type":"response","schemaVersion":1,"command":"parse","success":false,"error":"Failed to parse command: \"type\" must be the command's name, e.g. {\"type\":\"get_state\"}"}`},
		{`{"id":"9","type":"prompt"}`, `{"id":"9","type":"response","schemaVersion":1,"command":"prompt","success":false,"error":"field \"message\" is required"}`},
		{`{"id":"10","type":"prompt","message":7}`, `{"id":"10","type":"response","schemaVersion":1,"command":"prompt","success":false,"error":"field \"message\" must be a string, not number"}`},
	} {
		c.send(step.send)
		for _, w := range strings.Split(step.want, "\n") {
			c.expect(w)
		}
	}
	c.send("   ") // a blank line is no command
	c.send(`{"id":"11","type":"get_messages"}`)
	c.expect(`{"id":"11","type":"response","schemaVersion":1,"command":"get_messages","success":true,"data":{"messages":[]}}`)
	c.end()
}

// transcript is what a prompt, the session getters and new_session
// write, record by record (normalize's constants for times and ids).
var transcript = "{\"id\":\"p\",\"type\":\"response\",\"schemaVersion\":1,\"command\":\"prompt\",\"success\":true,\"data\":{\"disposition\":\"started\"}}\n{\"type\":\"agent_start\",\"schemaVersion\":1}\n{\"type\":\"turn_start\",\"schemaVersion\":1}\n{\"type\":\"message_start\",\"schemaVersion\":1,\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"hi\"}],\"timestamp\":T}}\n{\"type\":\"message_end\",\"schemaVersion\":1,\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"hi\"}],\"timestamp\":T}}\n{\"type\":\"message_start\",\"schemaVersion\":1,\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"\"}],\"api\":\"faux\",\"provider\":\"faux\",\"model\":\"SCRIPT\",\"usage\":{\"input\":0,\"output\":0,\"cacheRead\":0,\"cacheWrite\":0,\"totalTokens\":0,\"cost\":{\"input\":0,\"output\":0,\"cacheRead\":0,\"cacheWrite\":0,\"total\":0}},\"stopReason\":\"pending\",\"timestamp\":T}}\n{\"type\":\"message_update\",\"schemaVersion\":1,\"usage\":{\"input\":0,\"output\":0,\"cacheRead\":0,\"cacheWrite\":0,\"totalTokens\":0,\"cost\":{\"input\":0,\"output\":0,\"cacheRead\":0,\"cacheWrite\":0,\"total\":0}},\"assistantMessageEvent\":{\"type\":\"text_start\",\"contentIndex\":0}}\n{\"type\":\"message_update\",\"schemaVersion\":1,\"usage\":{\"input\":0,\"output\":0,\"cacheRead\":0,\"cacheWrite\":0,\"totalTokens\":0,\"cost\":{\"input\":0,\"output\":0,\"cacheRead\":0,\"cacheWrite\":0,\"total\":0}},\"assistantMessageEvent\":{\"type\":\"text_delta\",\"contentIndex\":0,\"delta\":\"hello\"}}\n{\"type\":\"message_update\",\"schemaVersion\":1,\"usage\":{\"input\":0,\"output\":0,\"cacheRead\":0,\"cacheWrite\":0,\"totalTokens\":0,\"cost\":{\"input\":0,\"output\":0,\"cacheRead\":0,\"cacheWrite\":0,\"total\":0}},\"assistantMessageEvent\":{\"type\":\"text_end\",\"contentIndex\":0,\"content\":\"hello\"}}\n{\"type\":\"message_end\",\"schemaVersion\":1,\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"hello\"}],\"api\":\"faux\",\"provider\":\"faux\",\"model\":\"SCRIPT\",\"usage\":{\"input\":10,\"output\":2,\"cacheRead\":0,\"cacheWrite\":0,\"totalTokens\":12,\"cost\":{\"input\":0,\"output\":0,\"cacheRead\":0,\"cacheWrite\":0,\"total\":0,\"totalFromProvider\":false}},\"stopReason\":\"stop\",\"timestamp\":T,\"durationMs\":D,\"thinkingLevel\":\"off\"}}\n{\"type\":\"turn_end\",\"schemaVersion\":1,\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"hello\"}],\"api\":\"faux\",\"provider\":\"faux\",\"model\":\"SCRIPT\",\"usage\":{\"input\":10,\"output\":2,\"cacheRead\":0,\"cacheWrite\":0,\"totalTokens\":12,\"cost\":{\"input\":0,\"output\":0,\"cacheRead\":0,\"cacheWrite\":0,\"total\":0,\"totalFromProvider\":false}},\"stopReason\":\"stop\",\"timestamp\":T,\"durationMs\":D,\"thinkingLevel\":\"off\"},\"toolResults\":[]}\n{\"type\":\"agent_end\",\"schemaVersion\":1,\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"hi\"}],\"timestamp\":T},{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"hello\"}],\"api\":\"faux\",\"provider\":\"faux\",\"model\":\"SCRIPT\",\"usage\":{\"input\":10,\"output\":2,\"cacheRead\":0,\"cacheWrite\":0,\"totalTokens\":12,\"cost\":{\"input\":0,\"output\":0,\"cacheRead\":0,\"cacheWrite\":0,\"total\":0,\"totalFromProvider\":false}},\"stopReason\":\"stop\",\"timestamp\":T,\"durationMs\":D,\"thinkingLevel\":\"off\"}],\"willRetry\":false}\n{\"type\":\"agent_settled\",\"schemaVersion\":1,\"aborted\":false}\n{\"id\":\"m\",\"type\":\"response\",\"schemaVersion\":1,\"command\":\"get_messages\",\"success\":true,\"data\":{\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"hi\"}],\"timestamp\":T},{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"hello\"}],\"api\":\"faux\",\"provider\":\"faux\",\"model\":\"SCRIPT\",\"usage\":{\"input\":10,\"output\":2,\"cacheRead\":0,\"cacheWrite\":0,\"totalTokens\":12,\"cost\":{\"input\":0,\"output\":0,\"cacheRead\":0,\"cacheWrite\":0,\"total\":0,\"totalFromProvider\":false}},\"stopReason\":\"stop\",\"timestamp\":T,\"durationMs\":D,\"thinkingLevel\":\"off\"}]}}\n{\"id\":\"e\",\"type\":\"response\",\"schemaVersion\":1,\"command\":\"get_entries\",\"success\":true,\"data\":{\"entries\":[{\"type\":\"model_change\",\"id\":\"ID\",\"parentId\":null,\"timestamp\":T,\"provider\":\"faux\",\"modelId\":\"SCRIPT\"},{\"type\":\"message\",\"id\":\"ID\",\"parentId\":\"ID\",\"timestamp\":T,\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"hi\"}],\"timestamp\":T}},{\"type\":\"message\",\"id\":\"ID\",\"parentId\":\"ID\",\"timestamp\":T,\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"hello\"}],\"api\":\"faux\",\"provider\":\"faux\",\"model\":\"SCRIPT\",\"usage\":{\"input\":10,\"output\":2,\"cacheRead\":0,\"cacheWrite\":0,\"totalTokens\":12,\"cost\":{\"input\":0,\"output\":0,\"cacheRead\":0,\"cacheWrite\":0,\"total\":0,\"totalFromProvider\":false}},\"stopReason\":\"stop\",\"timestamp\":T,\"durationMs\":D,\"thinkingLevel\":\"off\"}}],\"leafId\":\"ID\"}}\n{\"id\":\"tr\",\"type\":\"response\",\"schemaVersion\":1,\"command\":\"get_tree\",\"success\":true,\"data\":{\"tree\":[{\"entry\":{\"type\":\"model_change\",\"id\":\"ID\",\"parentId\":null,\"timestamp\":T,\"provider\":\"faux\",\"modelId\":\"SCRIPT\"},\"children\":[{\"entry\":{\"type\":\"message\",\"id\":\"ID\",\"parentId\":\"ID\",\"timestamp\":T,\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"hi\"}],\"timestamp\":T}},\"children\":[{\"entry\":{\"type\":\"message\",\"id\":\"ID\",\"parentId\":\"ID\",\"timestamp\":T,\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"hello\"}],\"api\":\"faux\",\"provider\":\"faux\",\"model\":\"SCRIPT\",\"usage\":{\"input\":10,\"output\":2,\"cacheRead\":0,\"cacheWrite\":0,\"totalTokens\":12,\"cost\":{\"input\":0,\"output\":0,\"cacheRead\":0,\"cacheWrite\":0,\"total\":0,\"totalFromProvider\":false}},\"stopReason\":\"stop\",\"timestamp\":T,\"durationMs\":D,\"thinkingLevel\":\"off\"}},\"children\":[]}]}]}],\"leafId\":\"ID\"}}\n{\"id\":\"lt\",\"type\":\"response\",\"schemaVersion\":1,\"command\":\"get_last_assistant_text\",\"success\":true,\"data\":{\"text\":\"hello\"}}\n{\"id\":\"n\",\"type\":\"response\",\"schemaVersion\":1,\"command\":\"new_session\",\"success\":true,\"data\":{\"cancelled\":false}}\n{\"id\":\"s\",\"type\":\"response\",\"schemaVersion\":1,\"command\":\"get_state\",\"success\":true,\"data\":{\"model\":{\"id\":\"SCRIPT\",\"name\":\"Scripted model\",\"api\":\"faux\",\"provider\":\"faux\",\"reasoning\":false,\"input\":[\"text\",\"image\"],\"cost\":{\"input\":0,\"output\":0,\"cacheRead\":0,\"cacheWrite\":0},\"contextWindow\":200000,\"maxTokens\":16384},\"thinkingLevel\":\"off\",\"isStreaming\":false,\"isCompacting\":false,\"steeringMode\":\"one-at-a-time\",\"followUpMode\":\"one-at-a-time\",\"sessionFile\":\"FILE.jsonl\",\"sessionId\":\"UUID\",\"autoCompactionEnabled\":true,\"messageCount\":0,\"pendingMessageCount\":0}}"

// A prompt answers started, then writes the run's events to agent_end and
// agent_settled; the getters see its messages; new_session starts an
// empty session; stdin's end ends Serve.
func TestServePromptAndSession(t *testing.T) {
	a := fauxAssembly(t, false)
	h := NewHost(a, HostConfig{Catalog: catalog, MaxPrompt: 1 << 20, MaxPromptOrigin: "--max-prompt-bytes"})
	c := startClient(t, h.First(), h, Options{})
	want := strings.Split(transcript, "\n")
	c.send(`{"id":"p","type":"prompt","message":"hi"}`)
	got := c.until(`{"type":"agent_settled"`)
	for _, l := range []string{
		`{"id":"m","type":"get_messages"}`,
		`{"id":"e","type":"get_entries"}`,
		`{"id":"tr","type":"get_tree"}`,
		`{"id":"lt","type":"get_last_assistant_text"}`,
		`{"id":"n","type":"new_session"}`,
		`{"id":"s","type":"get_state"}`,
	} {
		c.send(l)
		got = append(got, c.next())
	}
	if len(got) != len(want) {
		t.Fatalf("%d records, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("record %d\n%s\nwant\n%s", i, got[i], want[i])
		}
	}
	c.end()
}

package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"gopi/pkg/ai"
	"gopi/pkg/ai/faux"
	gruntime "gopi/pkg/runtime"
	"gopi/pkg/session"
)

// deep is a second model of the faux provider, one that thinks.
var deep = ai.Info{ID: "deep", Name: "Deep", Provider: "faux", API: "faux", Reasoning: true, ContextWindow: 100_000, MaxOutputTokens: 1000}

const fauxInfoModel = `{"id":"faux","name":"Scripted model","api":"faux","provider":"faux","reasoning":false,"input":["text","image"],"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0},"contextWindow":200000,"maxTokens":16384}`

const deepModel = `{"id":"deep","name":"Deep","api":"faux","provider":"faux","reasoning":true,"input":["text"],"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0},"contextWindow":100000,"maxTokens":1000}`

// gateHost builds every Runtime on one session kept in memory, each
// model answering (an echo of the last user message) when the test lets
// it through the one gate; it records the Runtimes asked for.
type gateHost struct {
	benchHost
	t     *testing.T
	gate  *gatedModel // started and release: the gate
	store session.Store

	mu    sync.Mutex
	model ai.Info
	wants []Want
	auto  []bool // the automatic compaction asked for, in order
	// sessions: NewSession builds a Runtime on an empty store of its
	// own (the Want is recorded as asked); otherwise it is refused.
	sessions bool
}

func (h *gateHost) SetAutoCompaction(on bool, w Want) (Opened, error) {
	h.mu.Lock()
	h.auto = append(h.auto, on)
	h.mu.Unlock()
	return h.build(w)
}

func (h *gateHost) AutoCompaction() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.auto) == 0 || h.auto[len(h.auto)-1]
}

// failingStore fails every Append once fail is set.
type failingStore struct {
	session.Store
	fail atomic.Bool
}

func (s *failingStore) Append(ctx context.Context, e session.Entry) (session.Entry, error) {
	if s.fail.Load() {
		return session.Entry{}, errors.New("disk full")
	}
	return s.Store.Append(ctx, e)
}

func newGateHost(t *testing.T) (*gateHost, Opened) {
	h := &gateHost{t: t, gate: newGated(), store: &failingStore{Store: session.NewMemoryStore("/work/proj", session.Options{})}, model: faux.Info}
	o, err := h.build(Want{})
	if err != nil {
		t.Fatal(err)
	}
	h.wants = nil
	return h, o
}

func (h *gateHost) Models() []ai.Info { return []ai.Info{faux.Info, deep} }

func (h *gateHost) Open(w Want) (Opened, error) {
	if w.NewSession && !h.sessions {
		return Opened{}, errors.New("not here")
	}
	if w.NewSession {
		// Another session: a store of its own, empty.
		h.mu.Lock()
		h.store = &failingStore{Store: session.NewMemoryStore("/work/proj", session.Options{})}
		h.mu.Unlock()
	}
	if w.Thinking == ai.ThinkingXHigh {
		return Opened{}, errors.New("xhigh is not built here")
	}
	return h.build(w)
}

func (h *gateHost) build(w Want) (Opened, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.wants = append(h.wants, w)
	if w.NewSession {
		w.Leaf = ""
	}
	info := h.model
	for _, m := range h.Models() {
		if w.Model == m.Provider+"/"+m.ID {
			info = m
		}
	}
	var leaf *string
	if w.Leaf != "" {
		leaf = &w.Leaf
	}
	model := &gatedModel{faux: faux.New().WithInfo(info), started: h.gate.started, release: h.gate.release}
	rt, err := gruntime.New(gruntime.Config{Model: info, Thinking: w.Thinking, ActiveLeaf: leaf,
		Compaction: gruntime.Compaction{Disabled: true, KeepRecentTokens: 1}},
		gruntime.Deps{Model: model, Session: h.store})
	if err != nil {
		return Opened{}, err
	}
	h.model = info
	return Opened{Runtime: rt, Model: info}, nil
}

func (h *gateHost) asked() []Want {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]Want(nil), h.wants...)
}

func (h *gateHost) release() { h.gate.release <- struct{}{} }

// startRun prompts text and reads to the moment its model is asked.
func (c *client) startRun(g *gatedModel, id, text string) {
	c.t.Helper()
	c.send(`{"id":"` + id + `","type":"prompt","message":"` + text + `"}`)
	c.expect(`{"id":"` + id + `","type":"response","schemaVersion":1,"command":"prompt","success":true,"data":{"disposition":"started"}}`)
	c.until(`{"type":"message_end"`) // the prompt's: the model is asked next
	<-g.started
}

// A model and thinking level asked for during a run are answered at
// once, and get_state and cycle_model say them; the request already
// sent ends on its own model, and the next run is the new model's, each
// switch recorded in the session as it is made.
func TestServeModelChangeDuringARun(t *testing.T) {
	h, first := newGateHost(t)
	c := startClient(t, first, h, Options{})
	c.startRun(h.gate, "1", "go")
	c.send(`{"id":"2","type":"set_model","provider":"faux","modelId":"deep"}`)
	c.expect(answer("2", "set_model", `"success":true,"data":`+deepModel))
	c.send(`{"id":"3","type":"set_model","provider":"faux","modelId":"nosuch"}`)
	c.expect(answer("3", "set_model", `"success":false,"error":"Model not found: faux/nosuch"`))
	st := c.state()
	if !st.Streaming || st.Model.ID != "deep" || st.Thinking != "off" {
		t.Fatalf("get_state during the run %+v", st)
	}
	// Cycling goes on from the model asked for, not the run's.
	c.send(`{"id":"6","type":"cycle_model"}`)
	c.expect(answer("6", "cycle_model", `"success":true,"data":{"model":`+fauxInfoModel+`,"thinkingLevel":"off","isScoped":false}`))
	c.send(`{"id":"7","type":"cycle_model"}`)
	c.expect(answer("7", "cycle_model", `"success":true,"data":{"model":`+deepModel+`,"thinkingLevel":"off","isScoped":false}`))
	c.send(`{"id":"8","type":"set_thinking_level","level":"low"}`)
	c.expect(`{"type":"thinking_level_changed","schemaVersion":1,"level":"low"}`)
	c.expect(answer("8", "set_thinking_level", `"success":true`))
	if n := len(h.asked()); n != 0 {
		t.Fatalf("%d Runtimes built during the run: %+v", n, h.asked())
	}
	h.release()
	got := c.until(`{"type":"agent_settled"`)
	if end := got[len(got)-4]; !strings.Contains(end, `"model":"faux","usage"`) {
		t.Fatalf("the run did not end on its own model:\n%s", strings.Join(got, "\n"))
	}
	st = c.state()
	if st.Streaming || st.Model.ID != "deep" || st.Thinking != "low" {
		t.Fatalf("get_state after the run %+v", st)
	}
	asked := h.asked()
	if len(asked) != 1 || asked[0].Model != "faux/deep" || asked[0].Thinking != ai.ThinkingLow || asked[0].Leaf == "" || asked[0].NewSession {
		t.Fatalf("Runtimes asked for after the run %+v", asked)
	}
	resp, _ := c.ask(`{"id":"e","type":"get_entries"}`)
	var entries struct {
		Entries []session.Entry `json:"entries"`
		LeafID  string          `json:"leafId"`
	}
	data(t, resp, &entries)
	// Each switch is recorded at once, where the run is (before its
	// answer, which the model already asked gave); the Runtime built after
	// the run records the model again after that answer, so that a
	// session resumed from its leaf is the new model's.
	var seq []string
	for _, e := range entries.Entries {
		switch e.Type {
		case session.TypeModelChange:
			seq = append(seq, "model "+e.ModelID)
		case session.TypeThinkingLevelChange:
			seq = append(seq, "thinking "+e.ThinkingLevel)
		case session.TypeMessage:
			seq = append(seq, "message "+string(e.Message.Role))
		}
	}
	want := []string{"model faux", "message user", "model deep", "model faux", "model deep", "thinking low", "message assistant", "model deep"}
	if strings.Join(seq, ", ") != strings.Join(want, ", ") {
		t.Fatalf("entries after the run: %s\nwant %s\n%s", strings.Join(seq, ", "), strings.Join(want, ", "), resp)
	}
	es := entries.Entries
	if entries.LeafID != es[len(es)-1].ID {
		t.Fatalf("the leaf %s is not the last entry:\n%s", entries.LeafID, resp)
	}
	if asked[0].Leaf != es[len(es)-2].ID {
		t.Fatalf("the new model continues from %s, not the run's answer %s", asked[0].Leaf, es[len(es)-2].ID)
	}
	c.startRun(h.gate, "9", "again")
	h.release()
	got = c.until(`{"type":"agent_settled"`)
	if end := got[len(got)-4]; !strings.Contains(end, `"model":"deep","usage"`) || !strings.Contains(end, `"thinkingLevel":"low"`) {
		t.Fatalf("the next run is not the new model's:\n%s", strings.Join(got, "\n"))
	}
	c.end()
}

const (
	userMore     = `{"role":"user","content":[{"type":"text","text":"more"}],"timestamp":T}`
	abortedReply = `{"role":"assistant","content":[{"type":"text","text":""}],"api":"faux","provider":"faux","model":"faux","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"aborted","errorMessage":"context canceled","timestamp":T,"thinkingLevel":"off"}`
)

// rawSummary is a record's summary as written, escapes and all.
var rawSummary = regexp.MustCompile(`"summary":"(?:[^"\\]|\\.)*"`)

// compactRecords are compaction_end and compact's response with what
// the summarising prompt decides (the summary, its size, the tokens it
// spent) made constant, once the two were checked to agree.
func compactRecords(t *testing.T, end, resp string) (string, string) {
	t.Helper()
	var e struct {
		Result json.RawMessage `json:"result"`
	}
	var r struct {
		Data json.RawMessage `json:"data"`
	}
	if json.Unmarshal([]byte(end), &e) != nil || json.Unmarshal([]byte(resp), &r) != nil || string(e.Result) != string(r.Data) {
		t.Fatalf("compaction_end and the response disagree:\n%s\n%s", end, resp)
	}
	if !strings.Contains(end, `[User]: go\n\n[Assistant]: go\n`) {
		t.Fatalf("the summary is not of the conversation: %s", end)
	}
	for _, re := range []*regexp.Regexp{
		regexp.MustCompile(`"summary":"(\\.|[^"\\])*"`),
		regexp.MustCompile(`"estimatedTokensAfter":\d+`),
		regexp.MustCompile(`"input":\d+,"output":\d+,"cacheRead":0,"cacheWrite":0,"totalTokens":\d+`),
	} {
		end = re.ReplaceAllStringFunc(end, func(m string) string { return m[:strings.Index(m, ":")] + ":N" })
		resp = re.ReplaceAllStringFunc(resp, func(m string) string { return m[:strings.Index(m, ":")] + ":N" })
	}
	return end, resp
}

// compact during a run aborts the run first and frames the summary with
// compaction_start and compaction_end (reason manual); while it goes on,
// get_state says so, a prompt with streamingBehavior waits for it and
// runs after it, and what needs the session idle is refused; abort ends
// a compaction.
func TestServeCompactDuringARun(t *testing.T) {
	h, first := newGateHost(t)
	c := startClient(t, first, h, Options{})
	c.startRun(h.gate, "1", "go")
	h.release()
	c.until(`{"type":"agent_settled"`)
	c.startRun(h.gate, "2", "more")
	c.send(`{"id":"3","type":"compact"}`)
	got := c.until(`{"type":"compaction_start"`)
	if n := len(got); n < 2 || got[n-2] != `{"type":"agent_settled","schemaVersion":1,"aborted":true}` || got[n-1] != `{"type":"compaction_start","schemaVersion":1,"reason":"manual"}` {
		t.Fatalf("compact during a run:\n%s", strings.Join(got, "\n"))
	}
	<-h.gate.started // the summary is asked for
	busy := `"success":false,"error":"a run is active: wait for agent_settled, or send abort first"`
	for _, step := range []struct{ send, want string }{
		{`{"id":"4","type":"prompt","message":"later","streamingBehavior":"followUp"}`, queued("4", "prompt")},
		{`{"id":"5","type":"set_model","provider":"faux","modelId":"deep"}`, answer("5", "set_model", busy)},
		{`{"id":"6","type":"set_auto_compaction","enabled":false}`, answer("6", "set_auto_compaction", busy)},
		{`{"id":"7","type":"get_state"}`, answer("7", "get_state", `"success":true,"data":{"model":`+fauxInfoModel+`,"thinkingLevel":"off","isStreaming":false,"isCompacting":true,"steeringMode":"one-at-a-time","followUpMode":"one-at-a-time","sessionId":"UUID","autoCompactionEnabled":true,"messageCount":4,"pendingMessageCount":1}`)},
		{`{"id":"8","type":"compact"}`, answer("8", "compact", busy)},
	} {
		c.send(step.send)
		c.expect(step.want)
	}
	h.release()
	// The response and the run of the prompt queued during the
	// compaction (which starts as soon as compaction_end is written) may
	// come in either order.
	endRec := c.next()
	var respRec string
	var run []string
	for respRec == "" || len(run) < 4 {
		if l := c.next(); strings.HasPrefix(l, `{"id":"3",`) {
			respRec = l
		} else {
			run = append(run, l)
		}
	}
	end, resp := compactRecords(t, endRec, respRec)
	if want := `{"type":"compaction_end","schemaVersion":1,"reason":"manual","result":{"summary":N,"firstKeptEntryId":"ID","tokensBefore":10,"estimatedTokensAfter":N,"usage":{"input":N,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0,"totalFromProvider":false}},"details":{"readFiles":[],"modifiedFiles":[]}},"aborted":false,"willRetry":false}`; end != want {
		t.Fatalf("compaction_end\n%s\nwant\n%s", end, want)
	}
	if want := answer("3", "compact", `"success":true,"data":{"summary":N,"firstKeptEntryId":"ID","tokensBefore":10,"estimatedTokensAfter":N,"usage":{"input":N,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0,"totalFromProvider":false}},"details":{"readFiles":[],"modifiedFiles":[]}}`); resp != want {
		t.Fatalf("compact's response\n%s\nwant\n%s", resp, want)
	}
	wantRun := []string{`{"type":"agent_start","schemaVersion":1}`, `{"type":"turn_start","schemaVersion":1}`,
		`{"type":"message_start","schemaVersion":1,"message":{"role":"user","content":[{"type":"text","text":"later"}],"timestamp":T}}`,
		`{"type":"message_end","schemaVersion":1,"message":{"role":"user","content":[{"type":"text","text":"later"}],"timestamp":T}}`}
	if strings.Join(run, "\n") != strings.Join(wantRun, "\n") {
		t.Fatalf("the queued prompt's run starts\n%s\nwant\n%s", strings.Join(run, "\n"), strings.Join(wantRun, "\n"))
	}
	<-h.gate.started
	h.release()
	if got := c.until(`{"type":"agent_settled"`); got[len(got)-1] != `{"type":"agent_settled","schemaVersion":1,"aborted":false}` {
		t.Fatalf("the queued prompt's run:\n%s", strings.Join(got, "\n"))
	}
	c.send(`{"id":"m","type":"get_messages"}`)
	if m := c.next(); !strings.HasPrefix(m, `{"id":"m","type":"response","schemaVersion":1,"command":"get_messages","success":true,"data":{"messages":[{"role":"compactionSummary","summary":`) ||
		!strings.Contains(m, `"timestamp":T,"tokensBefore":10},`+userMore+`,`+abortedReply+`,{"role":"user","content":[{"type":"text","text":"later"}],"timestamp":T},{"role":"assistant","content":[{"type":"text","text":"later"}]`) ||
		!strings.HasSuffix(m, `"stopReason":"stop","timestamp":T,"thinkingLevel":"off"}]}}`) {
		t.Fatalf("messages after the compaction: %s", m)
	} else if got, want := rawSummary.FindString(m), rawSummary.FindString(endRec); got == "" || got != want {
		t.Fatalf("get_messages writes the summary %s, compaction_end %s: not byte for byte as pi writes it", got, want)
	}
	c.send(`{"id":"9","type":"compact"}`)
	c.expect(`{"type":"compaction_start","schemaVersion":1,"reason":"manual"}`)
	<-h.gate.started
	c.send(`{"id":"10","type":"abort"}`)
	c.expect(`{"type":"compaction_end","schemaVersion":1,"reason":"manual","aborted":true,"willRetry":false}`)
	c.expect(answer("9", "compact", `"success":false,"error":"summarization failed: context canceled"`))
	c.expect(answer("10", "abort", `"success":true`))
	if st := c.state(); st.Compacting || st.Streaming {
		t.Fatalf("get_state after the abort %+v", st)
	}
	c.end()
}

// A prompt with streamingBehavior during a run is a steer or a
// follow-up as it says, as steer and follow_up are: clear_queue returns
// each in its own list and the run goes on without them.
func TestServeStreamingBehavior(t *testing.T) {
	h, first := newGateHost(t)
	c := startClient(t, first, h, Options{})
	c.startRun(h.gate, "1", "go")
	for _, step := range []struct{ send, want string }{
		{`{"id":"2","type":"prompt","message":"s1","streamingBehavior":"steer"}`, queued("2", "prompt")},
		{`{"id":"3","type":"prompt","message":"f1","streamingBehavior":"followUp"}`, queued("3", "prompt")},
		{`{"id":"4","type":"steer","message":"s2"}`, queued("4", "steer")},
		{`{"id":"5","type":"follow_up","message":"f2"}`, queued("5", "follow_up")},
	} {
		c.send(step.send)
		got := c.until(`{"id":`)
		if got[len(got)-1] != step.want {
			t.Fatalf("%s answered\n%s", step.send, strings.Join(got, "\n"))
		}
	}
	resp, _ := c.ask(`{"id":"6","type":"clear_queue"}`)
	if want := answer("6", "clear_queue", `"success":true,"data":{"steering":["s1","s2"],"followUp":["f1","f2"]}`); resp != want {
		t.Fatalf("clear_queue\n%s\nwant\n%s", resp, want)
	}
	h.release()
	got := strings.Join(c.until(`{"type":"agent_settled"`), "\n")
	for _, m := range []string{"s1", "s2", "f1", "f2"} {
		if strings.Contains(got, `"text":"`+m+`"`) {
			t.Errorf("%s was delivered after clear_queue:\n%s", m, got)
		}
	}
	c.end()
}

// abort bounds the writes while it waits for the run (Options.Bound
// true) and lifts the bound once it is answered; stdin's end bounds them
// for good.
func TestServeAbortBoundsWrites(t *testing.T) {
	h, first := newGateHost(t)
	var mu sync.Mutex
	var bounds []bool
	c := startClient(t, first, h, Options{Bound: func(on bool) {
		mu.Lock()
		bounds = append(bounds, on)
		mu.Unlock()
	}})
	c.startRun(h.gate, "1", "go")
	c.send(`{"id":"2","type":"abort"}`)
	c.until(`{"id":"2"`)
	c.state() // answered after abort's handler returned
	mu.Lock()
	got := fmt.Sprint(bounds)
	mu.Unlock()
	if got != "[true false]" {
		t.Fatalf("bounds during abort %s, want [true false]", got)
	}
	// new_session during a run ends it first, bounded the same way.
	c.startRun(h.gate, "3", "again")
	c.send(`{"id":"4","type":"new_session"}`)
	c.until(`{"id":"4"`)
	c.state()
	mu.Lock()
	got = fmt.Sprint(bounds)
	mu.Unlock()
	if got != "[true false true false]" {
		t.Fatalf("bounds after new_session during a run %s, want [true false true false]", got)
	}
	c.end()
	mu.Lock()
	defer mu.Unlock()
	if n := len(bounds); n < 5 || !bounds[n-1] {
		t.Fatalf("bounds after stdin ended %v", bounds)
	}
}

// A thinking level the host cannot build is refused and the level in
// use stays; a model asked for alone during a run keeps the level in
// use.
func TestServeThinkingRefusedAndKept(t *testing.T) {
	h, first := newGateHost(t)
	c := startClient(t, first, h, Options{})
	c.send(`{"id":"1","type":"set_thinking_level","level":"medium"}`)
	c.expect(`{"type":"thinking_level_changed","schemaVersion":1,"level":"medium"}`)
	c.expect(answer("1", "set_thinking_level", `"success":true`))
	c.send(`{"id":"2","type":"set_thinking_level","level":"xhigh"}`)
	c.expect(answer("2", "set_thinking_level", `"success":false,"error":"xhigh is not built here"`))
	c.send(`{"id":"2b","type":"set_thinking_level"}`)
	c.expect(answer("2b", "set_thinking_level", `"success":false,"error":"field \"level\" is required"`))
	if st := c.state(); st.Thinking != "medium" {
		t.Fatalf("thinking after a refusal %q", st.Thinking)
	}
	c.startRun(h.gate, "3", "go")
	c.send(`{"id":"4","type":"set_model","provider":"faux","modelId":"deep"}`)
	c.expect(answer("4", "set_model", `"success":true,"data":`+deepModel))
	h.release()
	c.until(`{"type":"agent_settled"`)
	asked := h.asked()
	if n := len(asked); n != 2 || asked[1].Model != "faux/deep" || asked[1].Thinking != ai.ThinkingMedium {
		t.Fatalf("Runtimes asked for %+v", asked)
	}
	if st := c.state(); st.Thinking != "medium" || st.Model.ID != "deep" {
		t.Fatalf("state after the run %+v", st)
	}
	c.end()
}

// A switch the session cannot record is answered with the failure.
func TestServeSwitchNotRecorded(t *testing.T) {
	h, first := newGateHost(t)
	c := startClient(t, first, h, Options{})
	h.store.(*failingStore).fail.Store(true)
	c.send(`{"id":"1","type":"set_model","provider":"faux","modelId":"deep"}`)
	c.expect(answer("1", "set_model", `"success":false,"error":"session write failed: disk full"`))
	c.end()
}

// set_auto_compaction during a run is answered at once and said by
// get_state; the Runtime after the run has it.
func TestServeAutoCompactionDuringARun(t *testing.T) {
	h, first := newGateHost(t)
	c := startClient(t, first, h, Options{})
	c.startRun(h.gate, "1", "go")
	c.send(`{"id":"2","type":"set_auto_compaction","enabled":false}`)
	c.expect(answer("2", "set_auto_compaction", `"success":true`))
	c.send(`{"id":"3","type":"set_auto_compaction"}`)
	c.expect(answer("3", "set_auto_compaction", `"success":false,"error":"field \"enabled\" is required (true or false)"`))
	resp, _ := c.ask(`{"id":"4","type":"get_state"}`)
	if !strings.Contains(resp, `"isStreaming":true,`) || !strings.Contains(resp, `"autoCompactionEnabled":false,`) {
		t.Fatalf("get_state during the run %s", resp)
	}
	h.mu.Lock()
	n := len(h.auto)
	h.mu.Unlock()
	if n != 0 {
		t.Fatal("automatic compaction switched during the run")
	}
	h.release()
	c.until(`{"type":"agent_settled"`)
	resp, _ = c.ask(`{"id":"5","type":"get_state"}`)
	if !strings.Contains(resp, `"isStreaming":false,`) || !strings.Contains(resp, `"autoCompactionEnabled":false,`) {
		t.Fatalf("get_state after the run %s", resp)
	}
	h.mu.Lock()
	auto, wants := fmt.Sprint(h.auto), h.wants
	h.mu.Unlock()
	if auto != "[false]" || len(wants) != 1 || wants[0].Leaf == "" {
		t.Fatalf("automatic compaction asked %s for %+v", auto, wants)
	}
	c.send(`{"id":"6","type":"set_auto_compaction","enabled":true}`)
	c.expect(answer("6", "set_auto_compaction", `"success":true`))
	if resp, _ := c.ask(`{"id":"7","type":"get_state"}`); !strings.Contains(resp, `"autoCompactionEnabled":true,`) {
		t.Fatalf("get_state after switching on %s", resp)
	}
	c.end()
}

// cycle_thinking_level walks a thinking model's levels, each switch
// said and recorded; set_model while idle records the model.
func TestServeCycleThinkingAndRecord(t *testing.T) {
	h, first := newGateHost(t)
	c := startClient(t, first, h, Options{})
	c.send(`{"id":"0","type":"cycle_thinking_level"}`)
	c.expect(answer("0", "cycle_thinking_level", `"success":true,"data":null`))
	c.send(`{"id":"1","type":"set_model","provider":"faux","modelId":"deep"}`)
	c.expect(answer("1", "set_model", `"success":true,"data":`+deepModel))
	c.send(`{"id":"2","type":"get_available_thinking_levels"}`)
	c.expect(answer("2", "get_available_thinking_levels", `"success":true,"data":{"levels":["off","minimal","low","medium","high"]}`))
	for i, want := range []string{"minimal", "low", "medium", "high", "off"} {
		id := fmt.Sprint(10 + i)
		c.send(`{"id":"` + id + `","type":"cycle_thinking_level"}`)
		c.expect(`{"type":"thinking_level_changed","schemaVersion":1,"level":"` + want + `"}`)
		c.expect(answer(id, "cycle_thinking_level", `"success":true,"data":{"level":"`+want+`"}`))
	}
	c.send(`{"id":"3","type":"set_thinking_level","level":"xhigh"}`)
	c.expect(answer("3", "set_thinking_level", `"success":false,"error":"xhigh is not built here"`))
	resp, _ := c.ask(`{"id":"e","type":"get_entries"}`)
	var entries struct {
		Entries []session.Entry `json:"entries"`
	}
	data(t, resp, &entries)
	var got []string
	for _, e := range entries.Entries {
		got = append(got, e.Type+":"+e.ModelID+e.ThinkingLevel)
	}
	if want := "model_change:deep thinking_level_change:minimal thinking_level_change:low thinking_level_change:medium thinking_level_change:high thinking_level_change:off"; strings.Join(got, " ") != want {
		t.Fatalf("entries %s, want %s", strings.Join(got, " "), want)
	}
	c.end()
}

// After a session write failed, a prompt is refused with the failure
// and starts nothing.
func TestServePromptAfterAFailedWrite(t *testing.T) {
	h, first := newGateHost(t)
	c := startClient(t, first, h, Options{})
	h.store.(*failingStore).fail.Store(true)
	c.send(`{"id":"1","type":"set_model","provider":"faux","modelId":"deep"}`)
	c.expect(answer("1", "set_model", `"success":false,"error":"session write failed: disk full"`))
	c.send(`{"id":"2","type":"prompt","message":"go"}`)
	c.expect(answer("2", "prompt", `"success":false,"error":"session write failed: disk full"`))
	if st := c.state(); st.Streaming {
		t.Fatalf("a run started: %+v", st)
	}
	c.end()
}

// fork and switch_session during a run end the run first, as a
// new session does, then open the session asked for.
func TestServeSessionCommandsDuringARun(t *testing.T) {
	h, first := newGateHost(t)
	h.sessions = true
	first.File = "/work/proj/s.jsonl"
	c := startClient(t, first, h, Options{})
	c.startRun(h.gate, "1", "go")
	h.release()
	c.until(`{"type":"agent_settled"`)
	users := c.forkMessages()
	if len(users) != 1 {
		t.Fatalf("fork messages %+v", users)
	}
	resp, _ := c.ask(`{"id":"e","type":"get_entries"}`)
	var entries struct {
		Entries []session.Entry `json:"entries"`
	}
	data(t, resp, &entries)
	before := ""
	for _, e := range entries.Entries {
		if e.ID == users[0].EntryID {
			before = e.Parent()
		}
	}
	aborted := func(id string) {
		t.Helper()
		got := c.until(`{"id":"` + id + `"`)
		if n := len(got); n < 2 || got[n-2] != `{"type":"agent_settled","schemaVersion":1,"aborted":true}` {
			t.Fatalf("the run was not ended first:\n%s", strings.Join(got, "\n"))
		}
	}
	c.startRun(h.gate, "2", "more")
	c.send(`{"id":"3","type":"fork","entryId":"` + users[0].EntryID + `"}`)
	aborted("3")
	c.startRun(h.gate, "4", "again")
	c.send(`{"id":"5","type":"switch_session","sessionPath":"/work/proj/other.jsonl"}`)
	aborted("5")
	asked := h.asked()
	if len(asked) != 2 || !asked[0].NewSession || !asked[0].Fork || asked[0].Leaf != before || before == "" ||
		!asked[1].NewSession || asked[1].Session != "/work/proj/other.jsonl" {
		t.Fatalf("Runtimes asked for %+v", asked)
	}
	c.end()
}

// Model is a model of the host's list, as a switch during a run asks.
func (h *gateHost) Model(provider, id string) (ai.Model, ai.Info, error) {
	for _, m := range h.Models() {
		if m.Provider == provider && m.ID == id {
			return &gatedModel{faux: faux.New().WithInfo(m), started: h.gate.started, release: h.gate.release}, m, nil
		}
	}
	return nil, ai.Info{}, fmt.Errorf("Model not found: %s/%s", provider, id)
}

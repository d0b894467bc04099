package chat

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"gopi/pkg/agent"
	"gopi/pkg/ai"
	"gopi/pkg/ai/faux"
	"gopi/pkg/loop"
	"gopi/pkg/runtime"
	"gopi/pkg/session"
	"gopi/pkg/tools"
)

// fakeLines is a LineReader fed by the test.
type fakeLines struct {
	in      chan fakeLine
	mu      sync.Mutex
	prompts []string
	stop    chan struct{} // closed by Interrupt
	late    string        // a line read once as Interrupt is called
	once    sync.Once
}

// errClosed is what ReadLine returns once interrupted.
var errClosed = errors.New("the line reader was closed")

type fakeLine struct {
	line Line
	err  error
}

func (f *fakeLines) ReadLine() (Line, error) {
	select {
	case l, ok := <-f.in:
		if !ok {
			return Line{}, io.EOF
		}
		return l.line, l.err
	case <-f.stop:
		f.mu.Lock()
		late := f.late
		f.late = ""
		f.mu.Unlock()
		if late != "" {
			return Line{Text: late}, nil
		}
		return Line{}, errClosed
	}
}

func (f *fakeLines) Interrupt() { f.once.Do(func() { close(f.stop) }) }

func (f *fakeLines) SetPrompt(p string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.prompts = append(f.prompts, p)
}

// syncBuffer is the chat's output, read while the chat writes.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// gate is a tool that blocks until the test opens it.
type gate struct{ open chan struct{} }

func (g *gate) Specs() []ai.ToolSpec { return []ai.ToolSpec{{Name: "wait", Description: "waits"}} }

func (g *gate) Execute(ctx context.Context, _ ai.Content, _ func(tools.Result)) tools.Result {
	select {
	case <-g.open:
		return tools.TextResult("gate opened\nsecond line")
	case <-ctx.Done():
		return tools.ErrorResult("cancelled")
	}
}

// chatRig is a chat over a faux model and a memory store.
type chatRig struct {
	t     *testing.T
	lines *fakeLines
	out   *syncBuffer
	store *session.MemoryStore
	model *faux.Model
	tool  *gate
	setup rigSetup
	seen  int
	mu    sync.Mutex
	opens []Want
	// runtimes are the Runtimes Open built, in order.
	runtimes []*runtime.Runtime
	done     chan error
}

func newRig(t *testing.T, tool *gate, responses ...faux.Response) *chatRig {
	t.Helper()
	return startRig(t, tool, nil, responses...)
}

// startRig is newRig with the chat's options and output changed by tune.
func startRig(t *testing.T, tool *gate, tune func(*Options, *io.Writer), responses ...faux.Response) *chatRig {
	t.Helper()
	var setup rigSetup
	if tool != nil {
		setup.tools = tool
	}
	return startRigWith(t, setup, tune, responses...)
}

// rigSetup is what a rig's Runtimes and Deps are built with.
type rigSetup struct {
	tools    loop.Executor // nil: no tools
	maxSteps int
	// keepRecent is the tokens a compaction keeps (0: the default).
	keepRecent int
	// limits bound every run.
	limits loop.Limits
	// info, when set, is what the model says of itself (its prices).
	info *ai.Info
	// reuse: Open hands back the Runtime in use (but for a new session).
	reuse bool
	// late is a line the reader returns once the chat interrupted it, as
	// if typed at that moment.
	late string
	// expand replaces the rig's template expansion (/greet).
	expand func(string) (string, error)
}

// startRigWith is startRig with the Runtimes and Deps of setup.
func startRigWith(t *testing.T, setup rigSetup, tune func(*Options, *io.Writer), responses ...faux.Response) *chatRig {
	t.Helper()
	r := &chatRig{t: t, lines: &fakeLines{in: make(chan fakeLine), stop: make(chan struct{})}, out: &syncBuffer{}, setup: setup,
		store: session.NewMemoryStore("/work", session.Options{}), model: faux.New(responses...), done: make(chan error, 1)}
	r.lines.late = setup.late
	if setup.info != nil {
		r.model = r.model.WithInfo(*setup.info)
	}
	if g, ok := setup.tools.(*gate); ok {
		r.tool = g
	}
	first, err := r.open(Want{})
	if err != nil {
		t.Fatal(err)
	}
	deps := Deps{Open: r.open,
		Expand: func(s string) (string, error) { return strings.Replace(s, "/greet", "hello from a template", 1), nil },
		Tree: func(w io.Writer, s session.Store) error {
			_, err := fmt.Fprintf(w, "tree of %d entries\n", len(s.Entries()))
			return err
		}}
	if setup.expand != nil {
		deps.Expand = setup.expand
	}
	opts, out := Options{Width: func() int { return 60 }}, io.Writer(r.out)
	if tune != nil {
		tune(&opts, &out)
	}
	chat := New(r.lines, out, first, deps, opts)
	go func() { r.done <- chat.Run(context.Background()) }()
	r.expect("/help for commands")
	return r
}

func (r *chatRig) open(w Want) (Opened, error) {
	r.mu.Lock()
	r.opens = append(r.opens, w)
	if n := len(r.runtimes); r.setup.reuse && n > 0 && !w.NewSession {
		r.mu.Unlock()
		return Opened{Runtime: r.runtimes[n-1], Model: faux.Info, File: "/sessions/s.jsonl"}, nil
	}
	r.mu.Unlock()
	if w.Model == "bad/model" {
		return Opened{}, errors.New("unknown provider \"bad\"")
	}
	if w.NewSession {
		r.store = session.NewMemoryStore("/work", session.Options{})
	}
	var leaf *string
	if w.Leaf != "" {
		leaf = &w.Leaf
	}
	deps := runtime.Deps{Model: r.model, Session: r.store}
	if r.setup.tools != nil {
		deps.Tools = r.setup.tools
	}
	rt, err := runtime.New(runtime.Config{ActiveLeaf: leaf, Model: faux.Info, Thinking: w.Thinking, MaxSteps: r.setup.maxSteps, Limits: r.setup.limits,
		Compaction: runtime.Compaction{KeepRecentTokens: r.setup.keepRecent}}, deps)
	r.mu.Lock()
	r.runtimes = append(r.runtimes, rt)
	r.mu.Unlock()
	return Opened{Runtime: rt, Model: faux.Info, File: "/sessions/s.jsonl"}, err
}

// runtime is the i-th Runtime Open built.
func (r *chatRig) runtime(i int) *runtime.Runtime {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.runtimes[i]
}

func (r *chatRig) send(text string) { r.lines.in <- fakeLine{line: Line{Text: text}} }

func (r *chatRig) key(err error) { r.lines.in <- fakeLine{err: err} }

// expect waits until s appears after what was matched so far.
func (r *chatRig) expect(s string) {
	r.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		out := r.out.String()
		if i := strings.Index(out[r.seen:], s); i >= 0 {
			r.seen += i + len(s)
			return
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("no %q in:\n%s", s, out[r.seen:])
		}
		time.Sleep(2 * time.Millisecond) // polling a buffer, not waiting for an event
	}
}

// quit ends the chat with Ctrl-D and waits for it.
func (r *chatRig) quit() {
	r.t.Helper()
	close(r.lines.in)
	if err := <-r.done; err != nil {
		r.t.Fatal(err)
	}
}

func TestChatRendersAnswerThinkingToolAndStatus(t *testing.T) {
	g := &gate{open: make(chan struct{})}
	close(g.open)
	r := newRig(t, g,
		faux.Response{Thinking: "let me think about this", Text: "I will wait.", ToolCalls: []faux.ToolCall{{Name: "wait", Arguments: []byte(`{"path":"a.txt"}`)}}},
		faux.Text("all done, the gate opened as expected and this sentence is long enough to wrap"))
	r.send("go")
	r.expect("∴ thinking (5 words): let me think about this\n")
	r.expect("I will wait.\n")
	r.expect("✓ wait: a.txt ")
	r.expect(" ok — gate opened …\n")
	r.expect("all done, the gate opened as expected and this sentence is\nlong enough to wrap\n")
	r.expect("ctx ")
	r.expect("/200k\n")
	r.quit()
}

func TestChatSteersAndFollowsUpWhileRunning(t *testing.T) {
	g := &gate{open: make(chan struct{})}
	r := newRig(t, g, faux.Call("wait", `{}`), faux.Text("answered"), faux.Text("followed up"))
	r.send("start")
	r.waitPrompt("[wait] steer › ")
	r.send("steer this")
	r.expect("queued (steering): steer this")
	r.lines.in <- fakeLine{line: Line{Text: "and then this", FollowUp: true}}
	r.expect("queued (follow-up): and then this")
	r.send("/tree")
	r.expect("a run is active")
	close(g.open)
	r.expect("› steer this")
	r.expect("answered")
	r.expect("› and then this")
	r.expect("followed up")
	r.expect("ctx ")
	reqs := r.model.Requests()
	second := reqs[1].Messages
	if n := len(second); second[n-1].Text() != "steer this" || second[n-2].Role != ai.RoleToolResult {
		t.Fatalf("the steering does not follow the tool result: %+v", second)
	}
	r.quit()
}

// waitPrompt waits until the chat set prompt p.
func (r *chatRig) waitPrompt(p string) {
	r.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		r.lines.mu.Lock()
		ps := append([]string(nil), r.lines.prompts...)
		r.lines.mu.Unlock()
		for _, q := range ps {
			if q == p {
				return
			}
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("no prompt %q among %q", p, ps)
		}
		time.Sleep(2 * time.Millisecond) // polling, as expect
	}
}

func TestChatCtrlCAbortsThenTwiceQuits(t *testing.T) {
	g := &gate{open: make(chan struct{})}
	r := newRig(t, g, faux.Call("wait", `{}`))
	r.send("start")
	r.waitPrompt("[wait] steer › ")
	r.key(ErrInterrupt)
	r.expect("aborting")
	r.expect("aborted")
	r.expect("ctx ")
	// Every tool call has its result, the aborted one included.
	var calls, results int
	for _, e := range r.store.Entries() {
		if e.Message != nil {
			calls += len(e.Message.ToolCalls())
			if e.Message.Role == ai.RoleToolResult {
				results++
			}
		}
	}
	if calls != 1 || results != 1 {
		t.Fatalf("%d calls, %d results", calls, results)
	}
	r.send("next")
	r.expect("ctx ")
	r.key(ErrInterrupt)
	r.expect("press Ctrl-C again")
	r.key(ErrInterrupt)
	if err := <-r.done; err != nil {
		t.Fatal(err)
	}
}

func TestChatCommands(t *testing.T) {
	r := newRig(t, nil, faux.Text("one"), faux.Text("two"))
	r.send("/help")
	r.expect("/leaf ID")
	r.send("first \\")
	r.send("second line")
	r.expect("ctx ")
	if got := r.model.Requests()[0].Messages[0].Text(); got != "first \nsecond line" {
		t.Fatalf("multi-line input %q", got)
	}
	r.send("/greet")
	r.expect("two")
	r.expect("ctx ") // the status line: the run has settled, so the next line is a command, not steering
	if got := r.model.Requests()[1].Messages[2].Text(); got != "hello from a template" {
		t.Fatalf("template %q", got)
	}
	r.send("/nosuch thing")
	r.expect("unknown command /nosuch")
	r.send("/tree")
	r.expect("tree of ")
	r.expect("you are at ")
	first := r.store.Entries()[0].ID
	r.send("/leaf " + first)
	r.expect("continuing from " + first)
	r.send("/leaf zzz")
	r.expect("/leaf: ")
	r.send("/thinking high")
	r.expect("thinking high")
	r.send("/thinking loud")
	r.expect(`/thinking "loud"`)
	r.send("/model bad/model")
	r.expect(`unknown provider "bad"`)
	r.send("/model")
	r.expect("model faux/faux")
	r.send("/session")
	r.expect("file    /sessions/s.jsonl")
	r.expect("thinking high")
	r.send("/new")
	r.expect("new session")
	r.send("/quit")
	if err := <-r.done; err != nil {
		t.Fatal(err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	want := []Want{{}, {Leaf: first, Thinking: "off"}, {Leaf: first, Thinking: "high"}, {Leaf: first, Model: "bad/model", Thinking: "high"}, {NewSession: true, Thinking: "high"}}
	if fmt.Sprint(r.opens) != fmt.Sprint(want) {
		t.Fatalf("opens %+v, want %+v", r.opens, want)
	}
}

func TestParseCommand(t *testing.T) {
	tests := []struct {
		in   string
		want Command
		ok   bool
	}{
		{"/help", Command{Name: "help"}, true},
		{"  /leaf  abc12 ", Command{Name: "leaf", Arg: "abc12"}, true},
		{"/compact keep the parser work", Command{Name: "compact", Arg: "keep the parser work"}, true},
		{"/followup and then\nmore", Command{Name: "followup", Arg: "and then\nmore"}, true},
		{"/quit now", Command{}, false},
		{"/skill:review the diff", Command{}, false},
		{"/review", Command{}, false},
		{"hello /help", Command{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, ok := ParseCommand(tt.in)
			if ok != tt.ok || got != tt.want {
				t.Fatalf("ParseCommand(%q) = %+v, %v", tt.in, got, ok)
			}
		})
	}
}

func TestWrapperAndFormats(t *testing.T) {
	w := wrapper{width: 10}
	var lines []string
	for _, d := range []string{"hello wor", "ld, this is\nshort\nan", "unbreakablewordhere"} {
		lines = append(lines, w.add(d)...)
	}
	lines = append(lines, w.flush()...)
	want := []string{"hello", "world,", "this is", "short", "anunbreaka", "blewordher", "e"}
	if fmt.Sprint(lines) != fmt.Sprint(want) {
		t.Fatalf("lines %q, want %q", lines, want)
	}
	for n, s := range map[int64]string{340: "340", 12_345: "12.3k", 200_000: "200k", 1_000: "1k", 1_260_000: "1.3M"} {
		if got := formatTokens(n); got != s {
			t.Errorf("formatTokens(%d) = %s, want %s", n, got, s)
		}
	}
	if got := (palette{}).dim("x"); got != "x" {
		t.Errorf("no colour: %q", got)
	}
	if got := (palette{on: true}).dim("x"); got != "\033[2mx\033[0m" {
		t.Errorf("colour: %q", got)
	}
}

// An answer whose message_end never comes (its write to the session
// failed) is still shown when the run ends.
func TestChatShowsAnAnswerThatNeverEnded(t *testing.T) {
	var out bytes.Buffer
	r := &renderer{scr: &screen{w: &out}, now: time.Now, width: func() int { return 80 },
		took: func(string) {}, activity: func(string) {}}
	ans := ai.Message{Role: ai.RoleAssistant}
	for _, e := range []loop.Event{
		{Type: loop.AgentStart},
		{Type: loop.MessageStart, Message: &ans},
		{Type: loop.MessageUpdate, Stream: &ai.Event{Type: ai.EventTextDelta, Delta: "half of an answer"}},
		{Type: loop.AgentEnd},
	} {
		r.event(agent.Event{RunID: 1, Event: e})
	}
	if got := out.String(); got != "half of an answer\n" {
		t.Fatalf("shown %q", got)
	}
}

// While a run is active a prompt template typed (or queued with
// /followup) is expanded before it is sent, as a prompt is; a /word that
// names no command, template or skill is steering text as it is, as pi
// 1.6 sends it.
func TestChatSteeringExpandsTemplates(t *testing.T) {
	g := &gate{open: make(chan struct{})}
	r := newRig(t, g, faux.Call("wait", `{}`), faux.Text("answered"), faux.Text("followed up"))
	r.send("start")
	r.waitPrompt("[wait] steer › ")
	r.send("/greet the team")
	r.expect("queued (steering): hello from a template the team")
	r.send("/nosuch thing")
	r.expect("queued (steering): /nosuch thing")
	r.send("/followup /greet again")
	r.expect("queued (follow-up): hello from a template again")
	close(g.open)
	r.expect("followed up")
	r.expect("ctx ")
	var users []string
	for _, e := range r.store.Entries() {
		if e.Message != nil && e.Message.Role == ai.RoleUser {
			users = append(users, e.Message.Text())
		}
	}
	want := []string{"start", "hello from a template the team", "/nosuch thing", "hello from a template again"}
	if !slices.Equal(users, want) {
		t.Fatalf("user messages %q, want %q", users, want)
	}
	r.quit()
}

package chat

import (
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"

	"gopi/pkg/ai"
	"gopi/pkg/ai/faux"
	"gopi/pkg/tools"
)

// How a run ended is said once, after its answer and before the status
// line: the step limit, an answer cut at the token limit, a provider's
// error with its class named once, an error without a class in front.
func TestChatSaysHowARunEnded(t *testing.T) {
	t.Run("step limit", func(t *testing.T) {
		r := startRigWith(t, rigSetup{tools: probe{}, maxSteps: 1}, nil,
			faux.Call("probe", `{"path":"a.txt"}`), faux.Text("never asked"))
		r.send("go")
		r.expect("✓ probe: a.txt ")
		r.expect("\nstopped: the step limit was reached\n↑")
		r.quit()
	})
	t.Run("output token limit", func(t *testing.T) {
		r := newRig(t, nil, faux.Response{Text: "cut", StopReason: "length"})
		r.send("go")
		r.expect("cut\n(the answer hit the output token limit)\n↑")
		r.quit()
	})
	t.Run("provider error", func(t *testing.T) {
		r := newRig(t, nil, faux.Response{Text: "partial", Error: "upstream exploded", ErrorClass: "server"})
		r.send("go")
		r.expect("partial\nerror: server: upstream exploded\n↑")
		r.quit()
	})
}

// errorLine names the class once: a message that starts with it keeps it.
func TestErrorLineNamesTheClassOnce(t *testing.T) {
	for _, c := range []struct {
		class ai.Class
		msg   string
		want  string
	}{
		{ai.ClassServer, "server (HTTP 500): boom", "error: server (HTTP 500): boom"},
		{ai.ClassAuth, "auth: no key", "error: auth: no key"},
		{ai.ClassNetwork, "connection reset", "error (network): connection reset"},
		{ai.ClassServer, "servers are down", "error (server): servers are down"},
	} {
		if got := errorLine(c.class, errors.New(c.msg)); got != c.want {
			t.Errorf("errorLine(%s, %q) = %q, want %q", c.class, c.msg, got, c.want)
		}
	}
}

// A prompt whose expansion fails is not sent: the error is the only line,
// while idle and while a run is active (steering) alike.
func TestChatExpansionFailureSendsNothing(t *testing.T) {
	g := &gate{open: make(chan struct{})}
	expand := func(s string) (string, error) {
		if strings.Contains(s, "/broken") {
			return "", errors.New("/broken: the template cannot be read")
		}
		return s, nil
	}
	r := startRigWith(t, rigSetup{tools: g, expand: expand}, nil, faux.Call("wait", `{}`), faux.Text("answered"))
	r.send("/broken now")
	r.expect("/broken: the template cannot be read\n")
	r.send("start")
	r.waitPrompt("[wait] steer › ")
	r.send("/broken while running")
	r.expect("/broken: the template cannot be read\n")
	r.send("/followup /broken later")
	r.expect("/broken: the template cannot be read\n")
	close(g.open)
	r.expect("answered\n")
	r.expect("ctx ")
	r.quit()
	if got := r.userMessages(); !slices.Equal(got, []string{"start"}) {
		t.Fatalf("user messages %q, want only the prompt that expanded", got)
	}
	if strings.Contains(r.out.String(), "queued") {
		t.Fatalf("a line that did not expand was queued:\n%s", r.out.String())
	}
}

// userMessages are the texts of the session's user messages.
func (r *chatRig) userMessages() []string {
	var users []string
	for _, e := range r.store.Entries() {
		if e.Message != nil && e.Message.Role == ai.RoleUser {
			users = append(users, e.Message.Text())
		}
	}
	return users
}

// /compact says it starts, then how it ended: nothing to compact in an
// empty session, else the tokens summarised and the summary's entry.
func TestChatCompact(t *testing.T) {
	r := startRigWith(t, rigSetup{keepRecent: 10}, nil, faux.Text("first answer"), faux.Text("second answer"), faux.Text("the summary"))
	r.send("/compact")
	r.expect("compacting the context…\nnothing to compact yet\n")
	r.send("one " + strings.Repeat("word ", 50))
	r.expect("ctx ")
	r.send("two " + strings.Repeat("more ", 50))
	r.expect("ctx ")
	r.send("/compact keep the words")
	r.expect("compacting the context…\ncompacted: ")
	r.expect(" tokens summarised (entry ")
	r.quit()
	var summary string
	for _, e := range r.store.Entries() {
		if e.Type == "compaction" {
			summary = e.ID
		}
	}
	if summary == "" || !strings.Contains(r.out.String(), "(entry "+summary+")\n") {
		t.Fatalf("no compaction entry %q named in:\n%s", summary, r.out.String())
	}
}

// Ctrl-C while a multi-line input is being typed clears it: the next line
// is sent alone; a Ctrl-C after that asks for a second one to quit.
func TestChatCtrlCClearsAMultiLineInput(t *testing.T) {
	r := newRig(t, nil, faux.Text("answered"))
	r.send("first part \\")
	r.waitPrompt("… ")
	r.key(ErrInterrupt)
	r.expect("input cleared\n")
	r.send("fresh")
	r.expect("answered\n")
	r.expect("ctx ")
	r.key(ErrInterrupt)
	r.expect("press Ctrl-C again or Ctrl-D to quit\n")
	r.quit()
	if got := r.userMessages(); !slices.Equal(got, []string{"fresh"}) {
		t.Fatalf("user messages %q", got)
	}
}

// The live row: the spinner says what the chat waits for, the tool while
// it runs and the model again once the tool ended; it is removed when
// the display fails, and nothing is drawn after that.
func TestChatLiveRowFollowsTheRun(t *testing.T) {
	g := &gate{open: make(chan struct{})}
	live := &liveRecorder{}
	r := startRig(t, g, func(_ *Options, out *io.Writer) { live.Writer = *out; *out = live },
		faux.Call("wait", `{"path":"x"}`), faux.Text("done"))
	r.send("go")
	r.waitPrompt("[wait: x] steer › ")
	close(g.open)
	r.expect("done\n")
	r.expect("ctx ")
	r.quit()
	live.mu.Lock()
	defer live.mu.Unlock()
	tool := slices.IndexFunc(live.rows, func(s string) bool { return strings.HasSuffix(s, " wait: x") })
	if tool < 0 {
		t.Fatalf("live rows %q: no spinner naming the tool", live.rows)
	}
	if !slices.ContainsFunc(live.rows[tool:], func(s string) bool { return strings.HasSuffix(s, " thinking…") }) {
		t.Fatalf("live rows %q: the spinner does not wait for the model after the tool", live.rows)
	}
	if last := live.rows[len(live.rows)-1]; last != "" {
		t.Fatalf("live row %q left after the chat", last)
	}
}

// A display that fails while the live row shows the spinner removes the
// row before the chat ends.
func TestChatFailureRemovesTheLiveRow(t *testing.T) {
	live := &liveRecorder{}
	r := startRig(t, nil, func(_ *Options, out *io.Writer) {
		live.Writer = panicOnWrite{w: *out, want: "boom"}
		*out = live
	}, faux.Response{Text: "boom\nand more", ChunkSize: 5})
	r.send("go")
	if err := r.chatEnds(); err == nil || !strings.Contains(err.Error(), "the terminal went away") {
		t.Fatalf("Run returned %v", err)
	}
	live.mu.Lock()
	defer live.mu.Unlock()
	if n := len(live.rows); n < 2 || live.rows[n-2] == "" || live.rows[n-1] != "" {
		t.Fatalf("live rows %q: want the spinner, then the row removed", live.rows)
	}
}

var _ io.Writer = (*liveRecorder)(nil)

// stubborn is a tool that returns only when the test opens it, whatever
// its context says.
type stubborn struct{ open chan struct{} }

func (s stubborn) Specs() []ai.ToolSpec { return []ai.ToolSpec{{Name: "wait", Description: "waits"}} }

func (s stubborn) Execute(context.Context, ai.Content, func(tools.Result)) tools.Result {
	<-s.open
	return tools.TextResult("opened")
}

// A line typed while an aborted run winds up is not sent to it: it is
// kept as the next prompt, and the run's end says it was not sent.
func TestChatLineTypedWhileAbortingIsNotSent(t *testing.T) {
	s := stubborn{open: make(chan struct{})}
	r := startRigWith(t, rigSetup{tools: s}, nil, faux.Call("wait", `{}`), faux.Text("never"))
	r.send("start")
	r.waitPrompt("[wait] steer › ")
	r.key(ErrInterrupt)
	r.expect("aborting… (Ctrl-C again quits)\n")
	r.send("steer this")
	r.expect("queued as the next prompt: steer this\n")
	close(s.open)
	r.expect("aborted")
	r.expect("not sent (the run was aborted): steer this\n")
	r.quit()
	if got := r.userMessages(); !slices.Equal(got, []string{"start"}) {
		t.Fatalf("user messages %q", got)
	}
}

// An error reading a line (the terminal went away) ends the chat with it.
func TestChatReadErrorEndsTheChat(t *testing.T) {
	r := newRig(t, nil)
	hangup := errors.New("the terminal hung up")
	r.key(hangup)
	if err := r.chatEnds(); !errors.Is(err, hangup) {
		t.Fatalf("Run returned %v, want the read error", err)
	}
}

// A line the reader returns as the display fails (typed at that moment)
// is not acted on: nothing is expanded or sent after the failure.
func TestChatActsOnNoLineAfterAFailure(t *testing.T) {
	var mu sync.Mutex
	var expanded []string
	expand := func(s string) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		expanded = append(expanded, s)
		return s, nil
	}
	r := startRigWith(t, rigSetup{expand: expand, late: "typed as it failed"}, func(_ *Options, out *io.Writer) {
		*out = panicOnWrite{w: *out, want: "↑"}
	}, faux.Text("the answer"), faux.Text("another"))
	r.send("hello")
	if err := r.chatEnds(); err == nil || !strings.Contains(err.Error(), "the terminal went away") {
		t.Fatalf("Run returned %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(expanded, []string{"hello"}) {
		t.Fatalf("expanded %q, want only the line before the failure", expanded)
	}
}

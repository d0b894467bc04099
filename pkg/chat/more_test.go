package chat

import (
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"gopi/pkg/ai"
	"gopi/pkg/ai/faux"
	"gopi/pkg/loop"
	"gopi/pkg/oneline"
	"gopi/pkg/runtime"
)

// The answer wraps at the terminal's width less one column: a line of
// 80 columns is broken at its last space within 79.
func TestChatWrapsOneColumnShortOfTheWidth(t *testing.T) {
	a, b := strings.Repeat("a", 70), strings.Repeat("b", 9)
	r := startRig(t, nil, func(o *Options, _ *io.Writer) { o.Width = func() int { return 80 } },
		faux.Text(a+" "+b+" next"))
	r.send("go")
	r.expect("\n" + a + "\n" + b + " next\n")
	r.quit()
}

// The prompt says what a typed line does: steer while a run is active,
// a new prompt once it ended.
func TestChatPromptFollowsTheRun(t *testing.T) {
	g := &gate{open: make(chan struct{})}
	r := newRig(t, g, faux.Call("wait", `{}`), faux.Text("done"))
	r.send("start")
	r.waitPrompt("steer › ")
	close(g.open)
	r.expect("done\n")
	r.expect("ctx ")
	r.quit()
	r.lines.mu.Lock()
	defer r.lines.mu.Unlock()
	if last := r.lines.prompts[len(r.lines.prompts)-1]; last != "› " {
		t.Fatalf("prompt %q once the run ended, want \"› \" (all: %q)", last, r.lines.prompts)
	}
}

// Switching to another Runtime releases the one before (it takes no more
// prompts); a host that hands back the same Runtime keeps it.
func TestChatReleasesTheRuntimeItLeaves(t *testing.T) {
	r := newRig(t, nil, faux.Text("one"))
	r.send("hi")
	r.expect("ctx ")
	first := r.runtime(0)
	r.send("/new")
	r.expect("new session ")
	if _, err := first.Prompt(context.Background(), ai.UserText("late", 1)); !errors.Is(err, runtime.ErrDisposed) {
		t.Fatalf("the Runtime left behind took a prompt: %v", err)
	}
	r.quit()

	same := startRigWith(t, rigSetup{reuse: true}, nil, faux.Text("one"), faux.Text("two"))
	same.send("/thinking high")
	same.expect("thinking high\n")
	same.send("still here")
	same.expect("one\n")
	same.expect("ctx ")
	same.quit()
	if got := same.userMessages(); !slices.Equal(got, []string{"still here"}) {
		t.Fatalf("user messages %q", got)
	}
}

// /leaf without an id says what it needs.
func TestChatLeafNeedsAnID(t *testing.T) {
	r := newRig(t, nil)
	r.send("/leaf")
	r.expect("/leaf needs an entry id: /tree shows them\n")
	r.quit()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.opens) != 1 {
		t.Fatalf("opens %+v: /leaf without an id opened a Runtime", r.opens)
	}
}

// A run stopped by its budget, of tokens or of dollars, says so with
// what was spent, and asks the model nothing more.
func TestChatSaysTheBudgetStoppedTheRun(t *testing.T) {
	priced := faux.Info
	priced.Prices = ai.Prices{Input: 1000, Output: 1000}
	for _, c := range []rigSetup{{limits: loop.Limits{Tokens: 50}}, {limits: loop.Limits{USD: 0.01}, info: &priced}} {
		c.tools = probe{}
		r := startRigWith(t, c, nil,
			faux.Response{ToolCalls: []faux.ToolCall{{Name: "probe", Arguments: []byte(`{"path":"a.txt"}`)}}, Usage: usage(100, 0, 0, 10)},
			faux.Text("never asked"))
		r.send("go")
		r.expect("\nstopped: ")
		r.expect("\n↑")
		r.quit()
		if n := len(r.model.Requests()); n != 1 {
			t.Fatalf("%+v: %d requests after the budget was spent", c.limits, n)
		}
	}
}

// A tool line shows the start of the tool's output, cut to leave the
// terminal's width for the rest of the line.
func TestChatToolLinePreviewIsCut(t *testing.T) {
	r := startRigWith(t, rigSetup{tools: probe{}}, func(o *Options, _ *io.Writer) {
		o.Now = tickingClock(time.Second)
		o.Width = func() int { return 100 }
	},
		faux.Call("probe", `{"path":"`+strings.Repeat("x", 60)+`"}`), faux.Text("done"))
	r.send("go")
	r.expect("done\n")
	r.quit()
	line := strings.Split(r.out.String(), "\n")[1]
	want := "✓ probe: " + strings.Repeat("x", 60) + " 1.0s ok — " + oneline.Text("contents of "+strings.Repeat("x", 60), 59)
	if line != want {
		t.Fatalf("tool line\n%q\nwant\n%q", line, want)
	}
}

// The spinner turns, one frame at a time, while the chat waits for a tool.
func TestChatSpinnerTurns(t *testing.T) {
	g := &gate{open: make(chan struct{})}
	live := &liveRecorder{}
	r := startRig(t, g, func(_ *Options, out *io.Writer) { live.Writer = *out; *out = live },
		faux.Call("wait", `{}`), faux.Text("done"))
	r.send("go")
	r.waitPrompt("[wait] steer › ")
	frames := func() []int {
		live.mu.Lock()
		defer live.mu.Unlock()
		var out []int
		for _, row := range live.rows {
			for i, f := range oneline.Spinner {
				if row == f+" wait" && (len(out) == 0 || out[len(out)-1] != i) {
					out = append(out, i)
				}
			}
		}
		return out
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(frames()) < 3 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond) // the spinner's own ticks turn it
	}
	close(g.open)
	r.expect("ctx ")
	r.quit()
	got := frames()
	if len(got) < 3 {
		t.Fatalf("spinner frames %v: it did not turn", got)
	}
	for i := 1; i < len(got); i++ {
		if got[i] != (got[i-1]+1)%len(oneline.Spinner) {
			t.Fatalf("spinner frames %v: not one after the other", got)
		}
	}
}

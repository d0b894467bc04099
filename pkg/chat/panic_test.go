package chat

import (
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"gopi/pkg/ai/faux"
)

// chatEnds waits, bounded, for the chat's Run to return.
func (r *chatRig) chatEnds() error {
	r.t.Helper()
	select {
	case err := <-r.done:
		return err
	case <-time.After(30 * time.Second):
		r.t.Fatalf("the chat did not end; output:\n%s", r.out.String())
		return nil
	}
}

// A panic of the display while it draws an event (the Agent delivers
// events on its goroutine and recovers a subscriber's panic) ends the
// chat: Run returns it as an internal error once the run was aborted and
// written, instead of waiting for input under a broken display.
func TestChatDisplayPanicEndsTheChat(t *testing.T) {
	var boom atomic.Bool
	r := startRig(t, nil, func(o *Options, _ *io.Writer) {
		o.Width = func() int {
			if boom.Load() {
				panic("the console went away")
			}
			return 60
		}
	}, faux.Text("first answer"), faux.Text("second answer"))
	r.send("hello")
	r.expect("first answer")
	r.expect("ctx ")
	boom.Store(true)
	r.send("again")
	err := r.chatEnds()
	if err == nil || !strings.Contains(err.Error(), "internal error") || !strings.Contains(err.Error(), "the console went away") {
		t.Fatalf("Run returned %v, want the display's panic as an internal error", err)
	}
	if m := r.messages(); len(m) < 2 || m[0] != "user: hello" || m[1] != "assistant: first answer" {
		t.Fatalf("messages %q, want the first exchange kept", m)
	}
}

// panicOnWrite is the chat's output, panicking on a line holding want.
type panicOnWrite struct {
	w    io.Writer
	want string
}

func (p panicOnWrite) Write(b []byte) (int, error) {
	if strings.Contains(string(b), p.want) {
		panic("the terminal went away")
	}
	return p.w.Write(b)
}

// A panic while a background run's outcome is written (the status line,
// on the run's goroutine) ends the chat the same way, rather than the
// process with the terminal left raw.
func TestChatPanicWritingTheOutcomeEndsTheChat(t *testing.T) {
	r := startRig(t, nil, func(_ *Options, out *io.Writer) {
		*out = panicOnWrite{w: *out, want: "↑"}
	}, faux.Text("the answer"))
	r.send("hello")
	err := r.chatEnds()
	if err == nil || !strings.Contains(err.Error(), "internal error") || !strings.Contains(err.Error(), "the terminal went away") {
		t.Fatalf("Run returned %v, want the panic as an internal error", err)
	}
	if m := r.messages(); len(m) != 2 || m[0] != "user: hello" || m[1] != "assistant: the answer" {
		t.Fatalf("messages %q, want the prompt and its answer", m)
	}
}

// messages are the session's messages as "role: text".
func (r *chatRig) messages() []string {
	var out []string
	for _, e := range r.store.Entries() {
		if e.Message != nil {
			out = append(out, string(e.Message.Role)+": "+e.Message.Text())
		}
	}
	return out
}

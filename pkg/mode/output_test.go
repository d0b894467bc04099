package mode

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"gopi/pkg/ai"
	"gopi/pkg/ai/faux"
	"gopi/pkg/runtime"
	"gopi/pkg/session"
)

// resultLines counts the result lines of out and says whether every line
// is whole JSON-looking text.
func resultLines(t *testing.T, out string) int {
	t.Helper()
	if out != "" && !strings.HasSuffix(out, "\n") {
		t.Fatalf("output does not end with a line end: %q", out)
	}
	n := 0
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if strings.HasPrefix(line, `{"type":"result"`) {
			n++
		}
	}
	return n
}

// Exits racing each other (the run's result, a failure, a forced exit)
// write exactly one result line, whole, and nothing after it.
func TestRacingExitsWriteOneResultLine(t *testing.T) {
	t.Parallel()
	for _, m := range []Mode{JSON, Events} {
		for range 50 {
			var out bytes.Buffer
			o := NewOutput(&out, m)
			var wg sync.WaitGroup
			for i := range 4 {
				wg.Go(func() {
					_ = o.Result(FailureObject(ai.ClassUsage, fmt.Errorf("exit %d", i), nil, 0))
				})
			}
			wg.Go(func() { o.Abandon(1) })
			wg.Go(func() { _, _ = o.Write([]byte(`{"type":"agent_end"}` + "\n")) })
			wg.Wait()
			_, _ = o.Write([]byte(`{"type":"late"}` + "\n"))
			if n := resultLines(t, out.String()); n != 1 || strings.Contains(out.String(), "late") {
				t.Fatalf("%s: %d result lines: %q", m, n, out.String())
			}
		}
	}
}

// A forced exit after the run's own result writes nothing more, and in
// print mode no exit writes a result line.
func TestForcedExitAfterTheResultWritesNothing(t *testing.T) {
	t.Parallel()
	store := session.NewMemoryStore("/", session.Options{})
	rt, err := runtime.New(runtime.Config{}, runtime.Deps{Model: faux.New(faux.Text("answer")), Session: store})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []Mode{JSON, Events, Print} {
		var out bytes.Buffer
		o := NewOutput(&out, m)
		if _, err := Run(t.Context(), rt, []ai.Message{ai.UserText("q", 1)}, IO{Out: o, Err: &bytes.Buffer{}}, Options{Mode: m}); err != nil {
			t.Fatal(err)
		}
		before := out.String()
		o.Abandon(5)
		_ = o.Result(FailureObject(ai.ClassTimeout, errors.New("late"), nil, 0))
		if out.String() != before {
			t.Fatalf("%s: written after the result: %q", m, strings.TrimPrefix(out.String(), before))
		}
		want := 1
		if m == Print {
			want = 0
		}
		if n := resultLines(t, before); n != want {
			t.Fatalf("%s: %d result lines: %q", m, n, before)
		}
	}
}

// The forced exit's result line is written once, after whole lines, and
// not at all when a result already went out or the mode is print; it
// names the session as far as it got, and nothing follows it.
func TestForcedExitResultIsTheOnlyResult(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		mode    Mode
		already bool
		want    int // lines
	}{{Events, false, 2}, {Events, true, 2}, {JSON, false, 1}, {Print, false, 1}} {
		var out bytes.Buffer
		o := NewOutput(&out, c.mode)
		o.Opened(func() *SessionInfo { return &SessionInfo{ID: "s1", File: "/s.jsonl", LeafID: "abcd0001"} }, nil)
		if c.mode != JSON {
			fmt.Fprintln(o, `{"type":"session","version":3}`)
		}
		if c.already {
			_ = o.Result(ResultObject{Type: "result", Reason: "stop"})
		}
		o.Abandon(7)
		fmt.Fprintln(o, `{"type":"late"}`)
		lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
		if len(lines) != c.want || strings.Contains(out.String(), "late") {
			t.Fatalf("%+v: %q", c, out.String())
		}
		last := lines[len(lines)-1]
		if c.mode != Print && !c.already && (!strings.Contains(last, `"reason":"aborted"`) || !strings.Contains(last, `"leafId":"abcd0001"`) ||
			!strings.Contains(last, `"class":"aborted"`) || !strings.Contains(last, `"sandbox":"off"`)) {
			t.Fatalf("forced result %s", last)
		}
	}
}

// A failure before the run goes out through the Output it is handed:
// once, also when a forced exit comes after it.
func TestWriteFailureThroughTheOutput(t *testing.T) {
	t.Parallel()
	var out, errOut bytes.Buffer
	o := NewOutput(&out, Events)
	h := Header{Header: session.Header{Type: "session", ID: "s1"}}
	if err := WriteFailure(IO{Out: o, Err: &errOut}, Events, ai.ClassUsage, errors.New("bad flag"), nil, &h, 2); err != nil {
		t.Fatal(err)
	}
	o.Abandon(3)
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], `{"type":"session"`) || !strings.Contains(lines[1], `"class":"usage"`) {
		t.Fatalf("%q", out.String())
	}
}

package mode

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"gopi/internal/golden"
	"gopi/pkg/agent"
	"gopi/pkg/ai"
	"gopi/pkg/ai/faux"
	"gopi/pkg/loop"
	"gopi/pkg/runtime"
	"gopi/pkg/session"
	"gopi/pkg/tools"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fixedClock ticks one second per call, from a fixed date.
func fixedClock() func() time.Time {
	t := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	return func() time.Time {
		t = t.Add(time.Second)
		return t
	}
}

type scenario struct {
	name      string
	responses []faux.Response
	maxSteps  int
	abort     bool // abort at the first text delta
}

var scenarios = []scenario{
	{name: "TextAnswer", responses: []faux.Response{{Text: "Hello from gopi.", ChunkSize: 6}}},
	{name: "ToolRoundTrip", responses: []faux.Response{
		{Text: "Reading it.", ToolCalls: []faux.ToolCall{{ID: "call_1", Name: "read", Arguments: []byte(`{"path":"notes.txt"}`)}}},
		{Text: "The note says: remember the milk."}}},
	{name: "ModelError", responses: []faux.Response{{Text: "Partial", Error: "upstream exploded", ErrorClass: "server"}}},
	{name: "Abort", responses: []faux.Response{{Text: "this answer is cut short", ChunkSize: 5}}, abort: true},
	{name: "MaxSteps", maxSteps: 2, responses: []faux.Response{
		{ToolCalls: []faux.ToolCall{{ID: "call_1", Name: "read", Arguments: []byte(`{"path":"notes.txt"}`)}}},
		{ToolCalls: []faux.ToolCall{{ID: "call_2", Name: "read", Arguments: []byte(`{"path":"notes.txt"}`)}}}}},
}

func runScenario(t *testing.T, sc scenario, m Mode) (stdout, stderr string, o Outcome) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("remember the milk\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	now := fixedClock()
	n := 0
	store := session.NewMemoryStore("/work/proj", session.Options{Now: now,
		NewID:   func() string { n++; return fmt.Sprintf("%08x", n) },
		NewUUID: func() string { return "0b6f2a5e-1111-4c3a-9d6e-2f0c8a7b9e10" }})
	read, _ := tools.New("read", tools.Options{})
	reg, err := tools.NewRegistry(tools.Env{Cwd: dir}, read)
	if err != nil {
		t.Fatal(err)
	}
	model := faux.New(sc.responses...).WithClock(now)
	rt, err := runtime.New(runtime.Config{Model: faux.Info, MaxSteps: sc.maxSteps}, runtime.Deps{Model: model, Session: store, Tools: reg, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if sc.abort {
		rt.Control().Subscribe(func(e agent.Event) {
			if e.Type == loop.MessageUpdate && e.Stream.Type == ai.EventTextDelta {
				rt.Control().Abort()
			}
		})
	}
	var out, errOut bytes.Buffer
	info := &SessionInfo{ID: store.Header().ID, File: "/home/u/.gopi/sessions/--work-proj--/s.jsonl"}
	hdr := Header{Header: store.Header(), File: info.File, Model: faux.Info, Tools: reg.Names()}
	o, err = Run(context.Background(), rt, []ai.Message{ai.UserText("hi", now().UnixMilli())}, IO{Out: &out, Err: &errOut},
		Options{Mode: m, Session: info, Header: hdr, Start: now(), Now: now})
	if err != nil {
		t.Fatal(err)
	}
	return out.String(), errOut.String(), o
}

func TestGoldenOutputs(t *testing.T) {
	t.Parallel()
	for _, sc := range scenarios {
		for _, m := range []Mode{Print, JSON, Events} {
			t.Run(sc.name+"/"+string(m), func(t *testing.T) {
				stdout, stderr, _ := runScenario(t, sc, m)
				golden.Check(t, filepath.Join("..", "..", "testdata", "golden", "mode_"+sc.name+"_"+string(m)+".golden"), []byte(stdout+"--- stderr\n"+stderr))
			})
		}
	}
}

func TestClassesOfScenarios(t *testing.T) {
	t.Parallel()
	want := map[string]ai.Class{"TextAnswer": "", "ToolRoundTrip": "", "ModelError": ai.ClassServer, "Abort": ai.ClassAborted, "MaxSteps": ai.ClassMaxSteps}
	for _, sc := range scenarios {
		_, _, o := runScenario(t, sc, JSON)
		if o.Class != want[sc.name] {
			t.Errorf("%s: class %q, want %q", sc.name, o.Class, want[sc.name])
		}
	}
}

func TestPrintWritesNothingOnStdoutWithoutAnAnswer(t *testing.T) {
	t.Parallel()
	for _, sc := range scenarios[2:] {
		stdout, stderr, _ := runScenario(t, sc, Print)
		if stdout != "" || !strings.HasPrefix(stderr, "gopi: ") {
			t.Errorf("%s: stdout %q stderr %q", sc.name, stdout, stderr)
		}
	}
}

func TestUnknownModeFailsBeforeTheRuntime(t *testing.T) {
	t.Parallel()
	model := faux.New(faux.Text("x"))
	rt, err := runtime.New(runtime.Config{}, runtime.Deps{Model: model, Session: session.NewMemoryStore("/", session.Options{})})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(t.Context(), rt, []ai.Message{ai.UserText("x", 1)}, IO{Out: &bytes.Buffer{}, Err: &bytes.Buffer{}}, Options{Mode: "xml"})
	if err == nil || !strings.Contains(err.Error(), `"xml"`) || len(model.Requests()) != 0 {
		t.Fatalf("err %v, requests %d", err, len(model.Requests()))
	}
}

type failWriter struct{}

var errWrite = errors.New("broken pipe")

func (failWriter) Write([]byte) (int, error) { return 0, errWrite }

// Lab 13.4 — a write failure after the run is returned as is; the session
// keeps what the run wrote.
func TestOutputWriteFailureDoesNotRollBack(t *testing.T) {
	t.Parallel()
	store := session.NewMemoryStore("/", session.Options{})
	rt, err := runtime.New(runtime.Config{}, runtime.Deps{Model: faux.New(faux.Text("answer")), Session: store})
	if err != nil {
		t.Fatal(err)
	}
	o, err := Run(t.Context(), rt, []ai.Message{ai.UserText("q", 1)}, IO{Out: failWriter{}, Err: &bytes.Buffer{}}, Options{Mode: JSON})
	if !errors.Is(err, errWrite) {
		t.Fatalf("write error %v", err)
	}
	if o.Result.Reason != loop.ReasonStop || len(store.Entries()) != 2 {
		t.Fatalf("reason %s, %d entries", o.Result.Reason, len(store.Entries()))
	}
}

func TestFailureObject(t *testing.T) {
	t.Parallel()
	var out, errOut bytes.Buffer
	err := WriteFailure(IO{Out: &out, Err: &errOut}, JSON, ai.ClassUsage, errors.New("empty prompt: give a prompt"), nil, nil, 3)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"result","schemaVersion":1,"reason":"error","isError":true,"text":"","steps":0,"messages":[],"usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"files":[],"sandbox":"off","denials":[],"durationMs":3,"error":{"class":"usage","message":"empty prompt: give a prompt"}}` + "\n"
	if out.String() != want {
		t.Fatalf("got  %s\nwant %s", out.String(), want)
	}
	if !strings.Contains(errOut.String(), "empty prompt") {
		t.Fatalf("stderr %q", errOut.String())
	}
}

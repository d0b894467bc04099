package acp

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"gopi/pkg/ai"
	"gopi/pkg/assemble"
	"gopi/pkg/loop"
	"gopi/pkg/resources"
	"gopi/pkg/sandbox"
	"gopi/pkg/session"
)

// world is an AssemblyHost over faux Assemblies: every session has the
// home, the script and the permission rules here.
type world struct {
	t       *testing.T
	home    string
	script  string
	diag    bytes.Buffer
	opened  []Opening
	closed  int
	refuse  string // a sandbox mode the opener refuses
	catalog *resources.Catalog
	tools   []string // the tools offered; nil: bash
	mu      sync.Mutex
}

func newWorld(t *testing.T, script string) *world {
	t.Helper()
	w := &world{t: t, home: t.TempDir(), script: filepath.Join(t.TempDir(), "script.json")}
	if err := os.WriteFile(w.script, []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	w.catalog = &resources.Catalog{
		Templates: []resources.Template{{Name: "fix", Description: "fix it", Content: "fix $1 now"}},
		Skills:    []resources.Skill{{Name: "lint", Description: "lint it"}},
	}
	return w
}

func (w *world) open(ctx context.Context, o Opening) (*Assembled, error) {
	w.mu.Lock()
	w.opened = append(w.opened, o)
	w.mu.Unlock()
	if o.Sandbox != "" && o.Sandbox == w.refuse {
		return nil, assemble.Usagef("sandbox %s refused", o.Sandbox)
	}
	rules, err := sandbox.ParseRules(nil, []string{"Bash(rm *)"}, o.Cwd)
	if err != nil {
		return nil, err
	}
	mode := sandbox.Off
	if o.Sandbox != "" {
		mode = sandbox.Mode(o.Sandbox)
	}
	tools := w.tools
	if tools == nil {
		tools = []string{"bash"}
	}
	s := assemble.Settings{Cwd: o.Cwd, Home: w.home, Model: assemble.ModelSettings{Provider: "faux", ID: w.script}, MaxSteps: 5,
		Tools: tools, SpillDir: filepath.Join(w.t.TempDir(), "spill"), SystemPrompt: "be brief",
		Sandbox: &assemble.SandboxSettings{Policy: sandbox.Policy{Mode: mode}, Rules: rules, Origin: "--sandbox"}}
	s.Session.Newest = true
	if o.File != "" {
		s.Session.Path, s.Session.Continue = o.File, true
	}
	env := assemble.Env{Environ: []string{"PATH=" + os.Getenv("PATH")}, Now: time.Now, Stderr: &bytes.Buffer{},
		SandboxProbe: func() (int, error) { return 99, nil }}
	a, err := assemble.New(s, env)
	if err != nil {
		return nil, err
	}
	if err := a.Open(); err != nil {
		a.Close()
		return nil, err
	}
	return &Assembled{Assembly: a, Catalog: w.catalog, MaxPrompt: 1 << 20, Close: func() {
		w.mu.Lock()
		w.closed++
		w.mu.Unlock()
		a.Close()
	}}, nil
}

func (w *world) host() *AssemblyHost {
	return NewHost(HostConfig{
		Open: w.open,
		Root: func(string) (string, error) { return assemble.SessionsRoot(w.home), nil },
		List: func(cwd string) ([]session.Info, error) {
			return session.List(assemble.SessionsRoot(w.home), cwd)
		},
		Diag: &w.diag,
	})
}

func promptText(t *testing.T, s Session, text string) []loop.Event {
	t.Helper()
	var events []loop.Event
	res, err := s.Prompt(context.Background(), []ai.Message{ai.UserText(text, time.Now().UnixMilli())}, func(e loop.Event) {
		events = append(events, e)
	})
	if err != nil || res.Err != nil {
		t.Fatalf("prompt: %v %v", err, res.Err)
	}
	return events
}

// A new session is an Assembly of its folder; its prompt's events reach
// the caller; Load by id continues it with its entries; List titles it
// by its first prompt; Close releases each Assembly once.
func TestAssemblyHostNewLoadList(t *testing.T) {
	w := newWorld(t, `[{"text":"hello there"},{"text":"again"}]`)
	h := w.host()
	cwd := t.TempDir()
	if _, err := h.New(context.Background(), filepath.Join(cwd, "nosuch"), nil); err == nil ||
		!strings.Contains(err.Error(), "no such folder: give the project's folder") {
		t.Fatalf("New in a missing folder: %v", err)
	}
	servers := []MCPServer{{Name: "docs", Command: "true"}}
	s, err := h.New(context.Background(), cwd, servers)
	if err != nil {
		t.Fatal(err)
	}
	if got := w.opened[0]; got.Cwd != cwd || got.File != "" || got.Sandbox != "" || len(got.Servers) != 1 {
		t.Fatalf("opened with %+v", got)
	}
	events := promptText(t, s, "say hello")
	if len(events) == 0 {
		t.Fatal("no events reached the caller")
	}
	id, entries := s.ID(), len(s.Path())
	rt := s.(*assembled).runtime()
	if id == "" || entries < 2 || s.Model().Provider != "faux" || s.Name() != "" {
		t.Fatalf("session %q, path %d entries, model %+v", id, len(s.Path()), s.Model())
	}
	s.Close()
	if w.closed != 1 {
		t.Fatalf("closed %d Assemblies, want 1", w.closed)
	}
	if _, err := rt.Prompt(context.Background(), ai.UserText("after", time.Now().UnixMilli())); err == nil {
		t.Fatal("Close left the Runtime in use")
	}

	list, err := h.List(cwd)
	if err != nil || len(list) != 1 || list[0].ID != id || list[0].Title != "say hello" || list[0].Cwd != cwd || list[0].Updated.IsZero() {
		t.Fatalf("List: %+v %v", list, err)
	}

	l, err := h.Load(context.Background(), cwd, id[:12], nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if l.ID() != id || len(l.Path()) != entries || w.opened[1].File == "" {
		t.Fatalf("loaded %q with %d entries from %q", l.ID(), len(l.Path()), w.opened[1].File)
	}
	if w.diag.Len() != 0 {
		t.Fatalf("warnings of a sound file: %s", w.diag.String())
	}
	if _, err := h.Load(context.Background(), cwd, "0000nosuch", nil); err == nil ||
		err.Error() != `session "0000nosuch": no such session (session/list lists them)` {
		t.Fatalf("Load of a missing id: %v", err)
	}
	if _, err := h.Load(context.Background(), cwd, filepath.Join(cwd, "nosuch.jsonl"), nil); err == nil ||
		!strings.Contains(err.Error(), "no such session file") {
		t.Fatalf("Load of a missing file: %v", err)
	}
	if _, err := h.Load(context.Background(), filepath.Join(cwd, "nosuch"), id, nil); err == nil {
		t.Fatal("Load in a missing folder was not refused")
	}
}

// The templates and skills are the session's commands; Expand expands
// one within the bound.
func TestAssemblyHostCommands(t *testing.T) {
	w := newWorld(t, `[{"text":"ok"}]`)
	s, err := w.host().New(context.Background(), t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	cmds := s.Commands()
	if len(cmds) != 2 || cmds[0] != (Command{Name: "fix", Description: "fix it"}) || cmds[1] != (Command{Name: "skill:lint", Description: "lint it"}) {
		t.Fatalf("commands %+v", cmds)
	}
	if got, err := s.Expand("/fix tests"); err != nil || got != "fix tests now" {
		t.Fatalf("Expand: %q %v", got, err)
	}
	if got, err := s.Expand("plain"); err != nil || got != "plain" {
		t.Fatalf("Expand of plain text: %q %v", got, err)
	}
	if len(s.Models()) == 0 {
		t.Fatal("no models")
	}
}

// SetThinking and SetModel rebuild the Runtime on the same session.
func TestAssemblyHostSetModelAndThinking(t *testing.T) {
	w := newWorld(t, `[{"text":"one"},{"text":"two"}]`)
	s, err := w.host().New(context.Background(), t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	promptText(t, s, "first")
	id, leaf := s.ID(), s.Path()[len(s.Path())-1].ID
	old := s.(*assembled).runtime()
	if err := s.SetThinking(ai.ThinkingHigh); err != nil {
		t.Fatal(err)
	}
	if _, err := old.Prompt(context.Background(), ai.UserText("late", time.Now().UnixMilli())); err == nil {
		t.Fatal("the Runtime replaced is still in use")
	}
	if s.Thinking() != ai.ThinkingHigh || s.ID() != id || s.Path()[len(s.Path())-1].ID != leaf {
		t.Fatalf("thinking %q on %s", s.Thinking(), s.ID())
	}
	other := faux(t)
	if err := s.SetModel("faux/" + other); err != nil {
		t.Fatal(err)
	}
	if s.Model().ID != other || s.Thinking() != ai.ThinkingHigh || s.ID() != id {
		t.Fatalf("model %+v thinking %q", s.Model(), s.Thinking())
	}
	if err := s.SetModel("nosuch/x"); err == nil {
		t.Fatal("an unknown model was taken")
	}
	if s.Model().ID != other {
		t.Fatalf("a refused model changed it to %+v", s.Model())
	}
	promptText(t, s, "second")
}

func faux(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "other.json")
	if err := os.WriteFile(p, []byte(`[{"text":"other"}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// The permission rules' refusals are the caller's question once SetAsk
// is given one, and again after the sandbox mode changed; SetSandbox
// continues the same session file in a new Assembly.
func TestAssemblyHostAskAndSandbox(t *testing.T) {
	// Each Assembly plays the script from its start.
	w := newWorld(t, `[{"toolCalls":[{"name":"bash","arguments":{"command":"rm x"}}]},{"text":"done"}]`)
	h := w.host()
	cwd := t.TempDir()
	s, err := h.New(context.Background(), cwd, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var asked []Permission
	s.SetAsk(func(p Permission) bool { asked = append(asked, p); return false })
	promptText(t, s, "remove x")
	if len(asked) != 1 || asked[0].Tool != "bash" || asked[0].Target != "rm x" || asked[0].Operation != "run" || asked[0].Rule == "" {
		t.Fatalf("asked %+v", asked)
	}
	if s.Sandbox() != "off" || len(s.Sandboxes()) != 3 {
		t.Fatalf("sandbox %q of %v", s.Sandbox(), s.Sandboxes())
	}
	if err := s.SetSandbox("off"); err != nil || len(w.opened) != 1 {
		t.Fatalf("the same mode reopened: %v, %d opened", err, len(w.opened))
	}
	other := faux(t)
	if err := s.SetModel("faux/" + other); err != nil {
		t.Fatal(err)
	}
	if err := s.SetThinking(ai.ThinkingHigh); err != nil {
		t.Fatal(err)
	}
	id, entries := s.ID(), len(s.Path())
	if err := s.SetSandbox(string(sandbox.ReadOnly)); err != nil {
		t.Fatal(err)
	}
	if s.Model().ID != other || s.Thinking() != ai.ThinkingHigh {
		t.Fatalf("after the switch: model %s, thinking %q", s.Model().ID, s.Thinking())
	}
	if err := s.SetModel("faux/" + w.script); err != nil {
		t.Fatal(err)
	}
	entries = len(s.Path())
	if s.Sandbox() != string(sandbox.ReadOnly) || s.ID() != id || len(s.Path()) != entries || w.closed != 1 {
		t.Fatalf("sandbox %q, session %s with %d entries, %d closed", s.Sandbox(), s.ID(), len(s.Path()), w.closed)
	}
	if o := w.opened[1]; o.File == "" || o.Sandbox != string(sandbox.ReadOnly) || o.Cwd != cwd {
		t.Fatalf("reopened with %+v", o)
	}
	promptText(t, s, "remove x again")
	if len(asked) != 2 || asked[1].Target != "rm x" {
		t.Fatalf("asked after the switch %+v", asked)
	}
	// A mode the opener refuses leaves the session open as it was.
	w.refuse = string(sandbox.WorkspaceWrite)
	if err := s.SetSandbox(w.refuse); err == nil {
		t.Fatal("a refused mode was taken")
	}
	if s.ID() != id || len(s.Path()) <= entries || s.Sandbox() != "off" {
		t.Fatalf("after a refusal: %s with %d entries", s.ID(), len(s.Path()))
	}
	s.SetAsk(nil)
	promptText(t, s, "remove x unasked")
	if len(asked) != 2 {
		t.Fatalf("asked with no question set: %+v", asked)
	}
}

// A session file's damage is said on Diag when it is loaded.
func TestAssemblyHostWarnsOfDamage(t *testing.T) {
	w := newWorld(t, `[{"text":"ok"}]`)
	h := w.host()
	cwd := t.TempDir()
	s, err := h.New(context.Background(), cwd, nil)
	if err != nil {
		t.Fatal(err)
	}
	promptText(t, s, "hi")
	file := s.(*assembled).assembly().File()
	s.Close()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSuffix(string(data), "\n"), "\n")
	last := len(lines) - 1
	// The newest entry's parent lost: the path to it has a gap.
	damaged := strings.Join(lines[:last-1], "") + "{not json\n" + lines[last] + "\n"
	if err := os.WriteFile(file, []byte(damaged), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := h.Load(context.Background(), cwd, file, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if got := w.diag.String(); !strings.HasPrefix(got, "gopi: warning: ") {
		t.Fatalf("diagnostics %q", got)
	}
}

// An Assembled without its own Close is released by the Assembly's:
// the session's lock is let go.
func TestAssembledClosesItsAssembly(t *testing.T) {
	w := newWorld(t, `[{"text":"ok"}]`)
	h := NewHost(HostConfig{Open: func(ctx context.Context, o Opening) (*Assembled, error) {
		as, err := w.open(ctx, o)
		if err != nil {
			return nil, err
		}
		as.Close = nil
		return as, nil
	}})
	s, err := h.New(context.Background(), t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	promptText(t, s, "hi")
	file := s.(*assembled).assembly().File()
	if _, err := session.Open(file, session.Options{}); !errors.Is(err, session.ErrLocked) {
		t.Fatalf("an open session is not locked: %v", err)
	}
	s.Close()
	st, err := session.Open(file, session.Options{})
	if err != nil {
		t.Fatalf("Close kept the lock: %v", err)
	}
	st.Close()
}

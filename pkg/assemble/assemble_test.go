package assemble_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"gopi/internal/fdcheck"
	"gopi/pkg/ai"
	"gopi/pkg/assemble"
	"gopi/pkg/sandbox"
	"gopi/pkg/session"
)

// TestMain makes the test binary the sandbox helper (a guard starts its
// own executable) or a stdio MCP server when asked (stdioMCPEnv,
// mcp_test.go), and otherwise fails the package when its tests leave a
// goroutine or a file descriptor behind.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperArg {
		os.Exit(sandbox.RunHelper(os.Args[2:], os.Environ(), os.Stderr))
	}
	if os.Getenv(stdioMCPEnv) != "" {
		serveStdioMCP()
	}
	goleak.VerifyTestMain(m, goleak.Cleanup(fdcheck.Main()))
}

func settings(t *testing.T) assemble.Settings {
	t.Helper()
	cwd := t.TempDir()
	if err := os.WriteFile(filepath.Join(cwd, "hello.txt"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	return assemble.Settings{Cwd: cwd, Home: t.TempDir(), Model: assemble.ModelSettings{Provider: "faux"}, MaxSteps: 5,
		Tools: []string{"bash"}, SpillDir: filepath.Join(t.TempDir(), "spill"), SystemPrompt: "be brief"}
}

func env(stderr *bytes.Buffer) assemble.Env {
	return assemble.Env{Environ: []string{"PATH=" + os.Getenv("PATH")}, Now: time.Now, Stderr: stderr}
}

func prompt(t *testing.T, a *assemble.Assembly, text string) string {
	t.Helper()
	res, err := a.Runtime().Prompt(context.Background(), ai.UserText(text, time.Now().UnixMilli()))
	if err != nil || res.Err != nil {
		t.Fatalf("prompt: %v %v", err, res.Err)
	}
	return res.Leaf
}

func dispose(t *testing.T, a *assemble.Assembly) {
	t.Helper()
	if err := a.Runtime().Dispose(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// A session built once is continued by a second Build with -c: the model
// comes from the session, the leaf is its newest entry.
func TestBuildThenContinue(t *testing.T) {
	fdcheck.Check(t)
	var stderr bytes.Buffer
	s := settings(t)
	a, err := assemble.Build(s, env(&stderr))
	if err != nil {
		t.Fatal(err)
	}
	leaf := prompt(t, a, "look around")
	file := a.File()
	dispose(t, a)
	a.Close()
	if file == "" || !strings.HasPrefix(file, assemble.SessionsRoot(s.Home)) {
		t.Fatalf("session file %q not under %s", file, s.Home)
	}

	s.Model = assemble.ModelSettings{} // the session's model is the fallback
	s.Session = assemble.SessionSettings{Continue: true}
	b, err := assemble.Build(s, env(&stderr))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	defer dispose(t, b)
	if b.File() != file || b.Leaf() != leaf || b.Runtime().Leaf() != leaf {
		t.Fatalf("continued %s at %s (runtime %s), want %s at %s", b.File(), b.Leaf(), b.Runtime().Leaf(), file, leaf)
	}
	if got := b.Model().Info.Provider; got != "faux" {
		t.Fatalf("resumed model provider %q, want faux", got)
	}
}

// Reopen with a new session builds on a new file and releases the old
// one's lock only then; a switched model is the Assembly's, not the
// settings'.
func TestReopenNewSessionAndModel(t *testing.T) {
	fdcheck.Check(t)
	var stderr bytes.Buffer
	a, err := assemble.Build(settings(t), env(&stderr))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	prompt(t, a, "look around")
	old := a.File()
	dispose(t, a)

	if _, err := session.Open(old, session.Options{}); !errors.Is(err, session.ErrLocked) {
		t.Fatalf("the open session is not locked: %v", err)
	}
	script := filepath.Join(t.TempDir(), "script.json")
	if err := os.WriteFile(script, []byte(`[{"text":"hello"}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	ch, err := a.ChooseModel("faux", script)
	if err != nil {
		t.Fatal(err)
	}
	rt, err := a.Reopen(assemble.Want{NewSession: true, Model: &ch, Thinking: ai.ThinkingLow})
	if err != nil {
		t.Fatal(err)
	}
	defer dispose(t, a)
	if a.File() == old || a.File() == "" || rt != a.Runtime() || a.Thinking() != ai.ThinkingLow {
		t.Fatalf("reopened on %q (old %q), thinking %q", a.File(), old, a.Thinking())
	}
	if a.Model().Info.ID != ch.Info.ID {
		t.Fatalf("model %q, want %q", a.Model().Info.ID, ch.Info.ID)
	}
	st, err := session.Open(old, session.Options{})
	if err != nil {
		t.Fatalf("old session still locked after the new one opened: %v", err)
	}
	st.Close()

	// A refused model leaves the Assembly as it was.
	if _, err := a.ChooseModel("nosuch", "x"); classOf(err) != ai.ClassUsage {
		t.Fatalf("unknown provider: %v", err)
	}
	if a.Model().Info.ID != ch.Info.ID {
		t.Fatalf("a refused choice changed the model to %q", a.Model().Info.ID)
	}
}

// Refusals carry their class: a bad --leaf is usage, a session another
// writer holds is a session failure; neither creates a file.
func TestRefusalsCarryTheirClass(t *testing.T) {
	fdcheck.Check(t)
	var stderr bytes.Buffer
	s := settings(t)
	s.Session = assemble.SessionSettings{Leaf: "abc"}
	if _, err := assemble.Build(s, env(&stderr)); classOf(err) != ai.ClassUsage || !strings.Contains(err.Error(), "--leaf abc") {
		t.Fatalf("leaf without a session: %v", err)
	}
	s.Session = assemble.SessionSettings{ID: "bad id"}
	if _, err := assemble.Build(s, env(&stderr)); classOf(err) != ai.ClassUsage {
		t.Fatalf("bad session id: %v", err)
	}
	if _, err := os.Stat(assemble.SessionsRoot(s.Home)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a refusal created the sessions folder: %v", err)
	}

	s.Session = assemble.SessionSettings{}
	a, err := assemble.Build(s, env(&stderr))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	defer dispose(t, a)
	s.Session = assemble.SessionSettings{Path: a.File()}
	if _, err := assemble.Build(s, env(&stderr)); classOf(err) != ai.ClassSession {
		t.Fatalf("a locked session: %v", err)
	}

	s.Session = assemble.SessionSettings{}
	s.Model = assemble.ModelSettings{Provider: "anthropic"}
	if _, err := assemble.New(s, assemble.Env{Now: time.Now, Stderr: &stderr}); classOf(err) != ai.ClassUsage ||
		!strings.Contains(err.Error(), "ANTHROPIC_API_KEY") {
		t.Fatalf("no key: %v", err)
	}
}

func classOf(err error) ai.Class {
	var e *assemble.Error
	if errors.As(err, &e) {
		return e.Class
	}
	return ""
}

// Reopen switches to another session file at its newest entry with the
// model it used, and forks one into a new file at a chosen entry.
func TestReopenSwitchesAndForks(t *testing.T) {
	fdcheck.Check(t)
	var stderr bytes.Buffer
	s := settings(t)
	first, err := assemble.Build(s, env(&stderr))
	if err != nil {
		t.Fatal(err)
	}
	firstLeaf := prompt(t, first, "look around")
	firstFile := first.File()
	dispose(t, first)
	first.Close()

	s.Model = assemble.ModelSettings{} // no model named: a session's own is used
	s.Session = assemble.SessionSettings{None: true}
	a, err := assemble.Build(s, env(&stderr))
	if err == nil || classOf(err) != ai.ClassUsage {
		t.Fatalf("no model and no session to take one from: %v", err)
	}
	s.Model = assemble.ModelSettings{Provider: "faux"}
	if a, err = assemble.Build(s, env(&stderr)); err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	s.Model = assemble.ModelSettings{}
	dispose(t, a)

	if _, err := a.Reopen(assemble.Want{Session: &assemble.SessionSettings{Path: firstFile, Continue: true}}); err != nil {
		t.Fatal(err)
	}
	if a.File() != firstFile || a.Leaf() != firstLeaf || a.Model().Info.Provider != "faux" {
		t.Fatalf("switched to %q at %q, want %q at %q", a.File(), a.Leaf(), firstFile, firstLeaf)
	}
	dispose(t, a)

	entries := a.Store().Entries()
	parent := entries[0].ID
	if _, err := a.Reopen(assemble.Want{Session: &assemble.SessionSettings{Fork: firstFile, Leaf: parent}}); err != nil {
		t.Fatal(err)
	}
	defer dispose(t, a)
	if a.File() == firstFile || a.Leaf() != parent || len(a.Store().Entries()) != len(entries) {
		t.Fatalf("fork: file %q leaf %q entries %d, want a new file at %q with %d entries", a.File(), a.Leaf(), len(a.Store().Entries()), parent, len(entries))
	}
	st, err := session.Open(firstFile, session.Options{})
	if err != nil {
		t.Fatalf("the switched-from session stays locked: %v", err)
	}
	st.Close()
}

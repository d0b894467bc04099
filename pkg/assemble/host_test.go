package assemble_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopi/internal/fdcheck"
	"gopi/pkg/ai"
	"gopi/pkg/assemble"
	"gopi/pkg/sandbox"
)

// Close removes the spill folder the session does not name; without a
// folder given the Assembly names a fresh one in the temp folder.
func TestCloseRemovesTheSpillFolder(t *testing.T) {
	fdcheck.Check(t)
	var stderr bytes.Buffer
	a, err := assemble.Build(settings(t), env(&stderr))
	if err != nil {
		t.Fatal(err)
	}
	spill := a.SpillDir()
	if err := os.MkdirAll(spill, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(spill, "out.txt"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	dispose(t, a)
	a.Close()
	if _, err := os.Lstat(spill); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the spill folder is left after Close: %v", err)
	}

	s := settings(t)
	s.SpillDir = ""
	b, err := assemble.New(s, env(&stderr))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if filepath.Dir(b.SpillDir()) != filepath.Clean(os.TempDir()) || !strings.HasPrefix(filepath.Base(b.SpillDir()), "gopi-run-") {
		t.Fatalf("spill folder %q, want a gopi-run-* folder in %s", b.SpillDir(), os.TempDir())
	}
}

// The models a switch offers come from the Assembly's settings: the
// declared ones are there, and only when declared.
func TestModelsComeFromTheAssemblysSettings(t *testing.T) {
	fdcheck.Check(t)
	var stderr bytes.Buffer
	s := settings(t)
	s.Session.None = true
	s.Model.Providers = map[string]assemble.Provider{"local": {API: "openai", Models: []ai.Info{{ID: "qwen", ContextWindow: 32768}}}}
	a, err := assemble.Build(s, env(&stderr))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	defer dispose(t, a)
	models := a.Models()
	if models[0].Provider != "faux" {
		t.Fatalf("the model in use is not first: %+v", models[0])
	}
	found := false
	for _, m := range models {
		found = found || (m.Provider == "local" && m.ID == "qwen" && m.ContextWindow == 32768)
	}
	if !found {
		t.Fatalf("the declared model is not offered: %+v", models)
	}

	s.Model.Providers = nil
	b, err := assemble.Build(s, env(&stderr))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	defer dispose(t, b)
	for _, m := range b.Models() {
		if m.Provider == "local" {
			t.Fatalf("a model no setting declares is offered: %+v", m)
		}
	}
}

// Reopen resolves a model reference as --model does, refuses one
// without a provider, and names a session file to switch to that does
// not exist; a fork copies the path to the leaf into a new file.
func TestReopenByReferenceSwitchAndFork(t *testing.T) {
	fdcheck.Check(t)
	var stderr bytes.Buffer
	a, err := assemble.Build(settings(t), env(&stderr))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	leaf := prompt(t, a, "look around")
	dispose(t, a)
	script := filepath.Join(t.TempDir(), "script.json")
	if err := os.WriteFile(script, []byte(`[{"text":"hello"}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Reopen(assemble.Want{Leaf: leaf, ModelRef: "faux/" + script}); err != nil {
		t.Fatal(err)
	}
	dispose(t, a)
	if a.Model().Info.ID != script || a.Leaf() != leaf {
		t.Fatalf("model %q at %q, want %q at %q", a.Model().Info.ID, a.Leaf(), script, leaf)
	}
	if _, err := a.Reopen(assemble.Want{Leaf: leaf, ModelRef: "faux"}); classOf(err) != ai.ClassUsage || !strings.Contains(err.Error(), "give provider/id") {
		t.Fatalf("a reference without provider: %v", err)
	}
	if _, err := a.Reopen(assemble.Want{SwitchTo: "nosuch/s.jsonl"}); err == nil || !strings.Contains(err.Error(), "no such session file") {
		t.Fatalf("switch to a missing file: %v", err)
	}
	file := a.File()
	if _, err := a.Reopen(assemble.Want{Fork: true, Leaf: leaf}); err != nil {
		t.Fatal(err)
	}
	defer dispose(t, a)
	if a.File() == file || filepath.Dir(a.File()) != filepath.Dir(file) || a.Leaf() != leaf {
		t.Fatalf("fork: %q at %q, want a new file beside %q at %q", a.File(), a.Leaf(), file, leaf)
	}
}

// A sandbox asked for that the kernel cannot give stops the Assembly
// (exit 10's class); the default one goes without, said once.
func TestGuardRefusedOrFallsBack(t *testing.T) {
	fdcheck.Check(t)
	var stderr bytes.Buffer
	e := env(&stderr)
	e.SandboxProbe = func() (int, error) { return 0, errors.New("no Landlock (simulated)") }
	s := settings(t)
	s.Session.None = true
	s.Sandbox = &assemble.SandboxSettings{Policy: sandbox.Policy{Mode: sandbox.ReadOnly}, Origin: "--sandbox", Explicit: true}
	if _, err := assemble.New(s, e); classOf(err) != ai.ClassRequired || !strings.Contains(err.Error(), "--sandbox read-only cannot be applied: no Landlock (simulated)") {
		t.Fatalf("an explicit sandbox the kernel cannot give: %v", err)
	}
	s.Sandbox.Explicit = false
	a, err := assemble.New(s, e)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if a.Guard().Mode() != sandbox.Off || !strings.Contains(stderr.String(), "running without a sandbox: no Landlock (simulated)") {
		t.Fatalf("guard mode %q, stderr %q", a.Guard().Mode(), stderr.String())
	}
}

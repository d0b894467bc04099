package assemble_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopi/internal/fdcheck"
	"gopi/pkg/ai"
	"gopi/pkg/assemble"
	"gopi/pkg/loop"
	"gopi/pkg/session"
)

// unlocked fails the test when file's lock is still held.
func unlocked(t *testing.T, file string) {
	t.Helper()
	st, err := session.Open(file, session.Options{})
	if err != nil {
		t.Errorf("%s is still locked: %v", file, err)
		return
	}
	st.Close()
}

// A session recorded with a model and a thinking level is switched to
// (rpc's switch_session) by a path relative to the working folder, at
// its newest entry with its own model and level, whatever the Want says.
func TestSwitchToTakesTheSessionsModel(t *testing.T) {
	fdcheck.Check(t)
	base := settings(t)
	s := base
	other := script(t, `[{"text":"from the other model"}]`)
	s.Model.ID = other
	s.Thinking = ai.ThinkingLow
	s.Session.Dir = "runs"
	file, leaf := recorded(t, s)

	// An Assembly that names no model: it resumes its own session's.
	s = base
	recorded(t, s)
	s.Model = assemble.ModelSettings{}
	s.Session = assemble.SessionSettings{Continue: true}
	var stderr bytes.Buffer
	a, err := assemble.Build(s, env(&stderr))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	prompt(t, a, "first")
	old := a.File()
	if _, err := a.Reopen(assemble.Want{SwitchTo: filepath.Join("runs", filepath.Base(file)), Thinking: ai.ThinkingHigh}); err != nil {
		t.Fatal(err)
	}
	defer dispose(t, a)
	if a.File() != file || a.Leaf() != leaf || a.Model().Info.ID != other || a.Thinking() != ai.ThinkingLow {
		t.Errorf("switched to %s at %s, model %s, thinking %q; want %s at %s, %s, low", a.File(), a.Leaf(), a.Model().Info.ID, a.Thinking(), file, leaf, other)
	}
	unlocked(t, old)
	// Back by the old one's id, and again by the absolute path.
	name := strings.TrimSuffix(filepath.Base(old), ".jsonl")
	id := name[strings.IndexByte(name, '_')+1:]
	if _, err := a.Reopen(assemble.Want{SwitchTo: id}); err != nil || a.File() != old || a.Model().Info.ID != "demo" {
		t.Errorf("switch to id %s: %v, now %s on %s", id, err, a.File(), a.Model().Info.ID)
	}
	if _, err := a.Reopen(assemble.Want{SwitchTo: file}); err != nil || a.File() != file {
		t.Errorf("switch to %s: %v, now %s", file, err, a.File())
	}
}

// Switching to the file already open reads it again at its newest entry
// (its lock is the Assembly's own), with the model and thinking level it
// last used.
func TestReopenTheOpenSessionReloadsIt(t *testing.T) {
	fdcheck.Check(t)
	s := settings(t)
	s.Thinking = ai.ThinkingMedium
	var stderr bytes.Buffer
	a, err := assemble.Build(s, env(&stderr))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	leaf := prompt(t, a, "first")
	root := a.Store().Entries()[0].ID
	if _, err := a.Reopen(assemble.Want{Leaf: root, Thinking: ai.ThinkingHigh}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Reopen(assemble.Want{Session: &assemble.SessionSettings{Path: a.File()}}); err != nil {
		t.Fatal(err)
	}
	defer dispose(t, a)
	if a.Leaf() != leaf || a.Thinking() != ai.ThinkingMedium {
		t.Errorf("reloaded at %s with thinking %q, want %s and medium", a.Leaf(), a.Thinking(), leaf)
	}
}

// A new session records its parent; with --no-session it stays in
// memory; with --session-dir it goes there.
func TestNewSessionOfTheSettings(t *testing.T) {
	fdcheck.Check(t)
	var stderr bytes.Buffer
	s := settings(t)
	s.Session.Dir = "runs"
	a, err := assemble.Build(s, env(&stderr))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	parent := a.File()
	if _, err := a.Reopen(assemble.Want{NewSession: true, Parent: parent}); err != nil {
		t.Fatal(err)
	}
	if a.File() == parent || filepath.Dir(a.File()) != filepath.Join(s.Cwd, "runs") || a.Store().Header().ParentSession != parent {
		t.Errorf("new session %s (parent %q), want one in runs with parent %s", a.File(), a.Store().Header().ParentSession, parent)
	}
	dispose(t, a)

	s = settings(t)
	s.Session.None = true
	b, err := assemble.Build(s, env(&stderr))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	prompt(t, b, "first")
	if _, err := b.Reopen(assemble.Want{NewSession: true}); err != nil {
		t.Fatal(err)
	}
	defer dispose(t, b)
	if b.File() != "" || len(b.Store().Entries()) != 0 {
		t.Errorf("a new session of --no-session: %q with %d entries", b.File(), len(b.Store().Entries()))
	}
	if _, err := os.Stat(assemble.SessionsRoot(s.Home)); !os.IsNotExist(err) {
		t.Errorf("--no-session wrote the sessions folder: %v", err)
	}
}

// A fork holds the path from the root to the leaf only, in a new file
// beside the open one, and continues from the leaf.
func TestForkCopiesThePathOnly(t *testing.T) {
	fdcheck.Check(t)
	var stderr bytes.Buffer
	a, err := assemble.Build(settings(t), env(&stderr))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	first := prompt(t, a, "first")
	prompt(t, a, "second")
	all := len(a.Store().Entries())
	var path int
	for _, e := range a.Store().Entries() {
		path++
		if e.ID == first {
			break
		}
	}
	if _, err := a.Reopen(assemble.Want{Fork: true, Leaf: first}); err != nil {
		t.Fatal(err)
	}
	defer dispose(t, a)
	if n := len(a.Store().Entries()); n != path || n == all || a.Leaf() != first {
		t.Errorf("fork holds %d entries at %s, want the %d of the path to %s", n, a.Leaf(), path, first)
	}
}

// A Reopen that fails leaves the Assembly on its Runtime, model and
// session, and lets go of the session it opened for it.
func TestFailedReopenKeepsTheCurrentOne(t *testing.T) {
	fdcheck.Check(t)
	var stderr bytes.Buffer
	s := settings(t)
	s.Session.Dir = "runs"
	otherFile, _ := recorded(t, s)

	s.Model = assemble.ModelSettings{Provider: "anthropic", ID: "claude-sonnet-4-5"}
	s.Limits = loop.Limits{USD: 5}
	e := env(&stderr)
	e.Environ = append(e.Environ, "ANTHROPIC_API_KEY=sk-ant-test-0123456789")
	a, err := assemble.Build(s, e)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	defer dispose(t, a)
	file, rt, model := a.File(), a.Runtime(), a.Model().Info.ID
	faux := "faux/demo"
	for _, tc := range []struct {
		w    assemble.Want
		says string
	}{
		{assemble.Want{NewSession: true, ModelRef: faux}, "has no prices"},
		{assemble.Want{Session: &assemble.SessionSettings{Path: otherFile, Continue: true}, ModelRef: faux}, "has no prices"},
		{assemble.Want{Session: &assemble.SessionSettings{Path: "ffffffffff"}}, "--session ffffffffff"},
		{assemble.Want{Session: &assemble.SessionSettings{Path: otherFile}}, "is not empty"}, // no leaf chosen
		{assemble.Want{ModelRef: "nosuch/model"}, `unknown provider "nosuch"`},
	} {
		if _, err := a.Reopen(tc.w); classOf(err) != ai.ClassUsage || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%+v: %v, want a usage error saying %q", tc.w, err, tc.says)
		}
		if a.File() != file || a.Runtime() != rt || a.Model().Info.ID != model {
			t.Fatalf("after a failed Reopen: %s, model %s", a.File(), a.Model().Info.ID)
		}
		unlocked(t, otherFile)
	}
}

// A model reference is resolved as --model is: a thinking level after
// the colon is cut off, an unknown one after a known id refused, a model
// the catalog does not know said on stderr.
func TestReopenModelReference(t *testing.T) {
	fdcheck.Check(t)
	var stderr bytes.Buffer
	s := settings(t)
	s.Origin = func(key string) string { return "--" + key }
	e := env(&stderr)
	e.Environ = append(e.Environ, "ANTHROPIC_API_KEY=sk-ant-test-0123456789")
	a, err := assemble.Build(s, e)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	defer dispose(t, a)
	if _, err := a.Reopen(assemble.Want{ModelRef: "faux/demo:high"}); err != nil || a.Model().Info.ID != "demo" {
		t.Errorf("faux/demo:high: %v, model %q", err, a.Model().Info.ID)
	}
	if _, err := a.Reopen(assemble.Want{ModelRef: "anthropic/claude-sonnet-4-5:hot"}); classOf(err) != ai.ClassUsage ||
		!strings.Contains(err.Error(), `--model "claude-sonnet-4-5:hot": unknown thinking level "hot"`) {
		t.Errorf("an unknown level: %v", err)
	}
	if _, err := a.Reopen(assemble.Want{ModelRef: "/demo"}); classOf(err) != ai.ClassUsage || !strings.Contains(err.Error(), "give provider/id") {
		t.Errorf("no provider: %v", err)
	}
	stderr.Reset()
	if _, err := a.Reopen(assemble.Want{ModelRef: "anthropic/claude-in-no-catalog"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr.String(), `model "claude-in-no-catalog" is not in the catalog of anthropic`) || a.Model().Info.Provider != "anthropic" {
		t.Errorf("stderr %q, model %+v", stderr.String(), a.Model().Info)
	}
}

// CutThinking splits "id:level" only when level is a thinking level and
// the whole is no known id.
func TestCutThinking(t *testing.T) {
	declared := map[string]assemble.Provider{"local": {API: "openai", Models: []ai.Info{{ID: "qwen:7b"}, {ID: "tiny"}}}}
	for _, tc := range []struct {
		in, id string
		level  ai.ThinkingLevel
		err    string
	}{
		{in: "claude-sonnet-4-5", id: "claude-sonnet-4-5"},
		{in: "claude-sonnet-4-5:high", id: "claude-sonnet-4-5", level: ai.ThinkingHigh},
		{in: "gpt-5:minimal", id: "gpt-5", level: ai.ThinkingMinimal},
		{in: "qwen:7b", id: "qwen:7b"},
		{in: "qwen:7b:low", id: "qwen:7b", level: ai.ThinkingLow},
		{in: "tiny:huge", err: `--model "tiny:huge": unknown thinking level "huge" after the colon: use off, minimal, low, medium, high or xhigh`},
		{in: "claude-sonnet-4-5:huge", err: `unknown thinking level "huge"`},
		{in: "mystery:huge", id: "mystery:huge"},
	} {
		id, level, err := assemble.CutThinking("--model", tc.in, declared)
		if tc.err != "" {
			if classOf(err) != ai.ClassUsage || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || id != tc.id || level != tc.level {
			t.Errorf("%s: %q %q %v, want %q %q", tc.in, id, level, err, tc.id, tc.level)
		}
	}
}

// ChooseModel on an Assembly resolves with its settings' providers and
// key, without the settings' thinking level.
func TestAssemblyChooseModel(t *testing.T) {
	fdcheck.Check(t)
	var stderr bytes.Buffer
	s := settings(t)
	s.Model.Thinking = ai.ThinkingHigh
	s.Model.Providers = map[string]assemble.Provider{"local": {API: "openai", BaseURL: "http://127.0.0.1:1/v1", Models: []ai.Info{{ID: "qwen", ContextWindow: 32768}}}}
	a, err := assemble.Build(s, env(&stderr))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	defer dispose(t, a)
	ch, err := a.ChooseModel("local", "qwen")
	if err != nil || ch.Info.Provider != "local" || ch.Info.ContextWindow != 32768 || ch.Thinking != "" || !ch.Known {
		t.Errorf("%+v %v", ch, err)
	}
}

// A resumed session's thinking level is the fallback when none is
// given.
func TestResumedThinkingLevel(t *testing.T) {
	fdcheck.Check(t)
	s := settings(t)
	s.Thinking = ai.ThinkingLow
	file, _ := recorded(t, s)
	for given, want := range map[ai.ThinkingLevel]ai.ThinkingLevel{"": ai.ThinkingLow, ai.ThinkingHigh: ai.ThinkingHigh} {
		s.Thinking = given
		s.Session = assemble.SessionSettings{Path: file, Continue: true}
		with(t, s, func(a *assemble.Assembly) {
			if a.Thinking() != want {
				t.Errorf("given %q: %q, want %q", given, a.Thinking(), want)
			}
		})
	}
}

// Session settings that name another file, a fork of the open one, or
// no file open (--no-session) open another session; a path that does
// not exist yet starts one there.
func TestReopenOtherSessions(t *testing.T) {
	fdcheck.Check(t)
	var stderr bytes.Buffer
	s := settings(t)
	a, err := assemble.Build(s, env(&stderr))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	leaf := prompt(t, a, "first")
	file := a.File()
	fresh := filepath.Join(s.Cwd, "fresh.jsonl")
	if _, err := a.Reopen(assemble.Want{Session: &assemble.SessionSettings{Path: fresh}}); err != nil {
		t.Fatal(err)
	}
	if a.File() != fresh || a.Leaf() != "" {
		t.Errorf("a new path: %s at %q", a.File(), a.Leaf())
	}
	unlocked(t, file)
	if _, err := a.Reopen(assemble.Want{Session: &assemble.SessionSettings{Path: file, Fork: file}}); err != nil {
		t.Fatal(err)
	}
	if a.File() == file || a.File() == fresh || a.Leaf() != leaf {
		t.Errorf("a fork of %s: %s at %q", file, a.File(), a.Leaf())
	}
	if _, err := a.Reopen(assemble.Want{Session: &assemble.SessionSettings{Path: a.File(), None: true}}); classOf(err) != ai.ClassUsage {
		t.Errorf("--no-session with the open file: %v", err)
	}
	dispose(t, a)

	s.Session = assemble.SessionSettings{None: true}
	b, err := assemble.Build(s, env(&stderr))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if _, err := b.Reopen(assemble.Want{Session: &assemble.SessionSettings{Path: file, Continue: true}}); err != nil {
		t.Fatal(err)
	}
	defer dispose(t, b)
	if b.File() != file || b.Leaf() != leaf {
		t.Errorf("from memory to %s: %s at %q", file, b.File(), b.Leaf())
	}
}

// Reloading the open session with a model that cannot be had any more
// is refused, and the Assembly stays as it was.
func TestReloadRefusedKeepsTheCurrentOne(t *testing.T) {
	fdcheck.Check(t)
	s := settings(t)
	provs := map[string]assemble.Provider{"local": {API: "openai", BaseURL: "http://127.0.0.1:1/v1", APIKeyEnv: "LOCAL_KEY", Models: []ai.Info{{ID: "qwen"}}}}
	s.Model.Providers = provs
	recorded(t, s)
	s.Model = assemble.ModelSettings{Providers: provs}
	s.Session = assemble.SessionSettings{Continue: true}
	var stderr bytes.Buffer
	a, err := assemble.Build(s, env(&stderr))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	defer dispose(t, a)
	// A model whose key this Assembly's environment does not hold.
	ch, err := assemble.ChooseModel(assemble.Env{Environ: []string{"LOCAL_KEY=loc-0123456789"}}, assemble.ModelSettings{Provider: "local", Providers: provs}, session.ModelState{})
	if err != nil {
		t.Fatal(err)
	}
	rt, err := a.Reopen(assemble.Want{Leaf: a.Leaf(), Model: &ch})
	if err != nil {
		t.Fatal(err)
	}
	if err := rt.RecordSettings(t.Context()); err != nil {
		t.Fatal(err)
	}
	_, err = a.Reopen(assemble.Want{Session: &assemble.SessionSettings{Path: a.File()}})
	if classOf(err) != ai.ClassUsage || !strings.Contains(err.Error(), "no API key for provider local") {
		t.Errorf("reload: %v", err)
	}
	if a.Runtime() != rt || a.Model().Info.Provider != "local" {
		t.Errorf("after a refused reload: model %+v", a.Model().Info)
	}
	// The same session, not open here any more, is refused the same way,
	// and let go.
	old := a.File()
	if _, err := a.Reopen(assemble.Want{NewSession: true}); err != nil {
		t.Fatal(err)
	}
	cur := a.Runtime()
	_, err = a.Reopen(assemble.Want{Session: &assemble.SessionSettings{Path: old, Continue: true}})
	if classOf(err) != ai.ClassUsage || !strings.Contains(err.Error(), "no API key for provider local") {
		t.Errorf("switch: %v", err)
	}
	if a.Runtime() != cur || a.File() == old {
		t.Errorf("after a refused switch: %s", a.File())
	}
	unlocked(t, old)
}

package rpc

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"testing"
	"time"

	"gopi/pkg/ai"
	"gopi/pkg/assemble"
	"gopi/pkg/assemble/assembletest"
	"gopi/pkg/resources"
	gruntime "gopi/pkg/runtime"
)

// fauxAssembly is an opened Assembly on the faux model in a fresh
// folder; noSession keeps its session in memory.
func fauxAssembly(t *testing.T, noSession bool) *assemble.Assembly {
	s := assembletest.Settings(t, `[{"text":"hello"},{"text":"again"}]`)
	s.Session.None = noSession
	return assembletest.Open(t, s)
}

func say(t *testing.T, rt *gruntime.Runtime, text string) string {
	t.Helper()
	res, err := rt.Prompt(context.Background(), ai.UserText(text, time.Now().UnixMilli()))
	if err != nil || res.Err != nil {
		t.Fatalf("prompt: %v %v", err, res.Err)
	}
	return res.Leaf
}

// switchTo disposes the Runtime in use once o replaces it.
func switchTo(t *testing.T, old *gruntime.Runtime, o Opened, err error) Opened {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	if o.Runtime != old {
		_ = old.Dispose(context.Background())
	}
	return o
}

var catalog = &resources.Catalog{
	Templates: []resources.Template{{Name: "fix", Description: "fix it", Content: "fix $1 now", Path: "/p/fix.md", Source: "project"}},
	Skills:    []resources.Skill{{Name: "lint", Description: "lint it", Path: "/u/lint/SKILL.md", Source: "user"}},
}

// Open is the Assembly's Reopen: a thinking level at a leaf, a new
// session, a fork, each with the Assembly's model and file.
func TestAssemblyHostOpen(t *testing.T) {
	a := fauxAssembly(t, false)
	h := NewHost(a, HostConfig{Catalog: catalog})
	cur := h.First()
	if cur.Runtime != a.Runtime() || cur.File == "" || cur.File != a.File() || cur.Model.Provider != "faux" {
		t.Fatalf("first %+v", cur)
	}
	leaf := say(t, cur.Runtime, "hi")
	o, err := h.Open(Want{Leaf: leaf, Thinking: ai.ThinkingLow})
	cur = switchTo(t, cur.Runtime, o, err)
	if cur.Runtime != a.Runtime() || cur.Thinking != ai.ThinkingLow || cur.Runtime.Leaf() != leaf || cur.File != a.File() {
		t.Fatalf("opened %+v at %s", cur, cur.Runtime.Leaf())
	}
	file := cur.File
	o, err = h.Open(Want{Leaf: leaf, NewSession: true, Fork: true})
	cur = switchTo(t, cur.Runtime, o, err)
	if cur.File == file || cur.File == "" || cur.Runtime.Leaf() == "" {
		t.Fatalf("fork on %q (was %q) at %q", cur.File, file, cur.Runtime.Leaf())
	}
	forked := cur.File
	o, err = h.Open(Want{NewSession: true, Session: file})
	cur = switchTo(t, cur.Runtime, o, err)
	if cur.File != file {
		t.Fatalf("switched to %q, want %q", cur.File, file)
	}
	o, err = h.Open(Want{NewSession: true, Parent: forked})
	cur = switchTo(t, cur.Runtime, o, err)
	if cur.File == file || cur.File == forked || cur.Runtime.Session().Header().ParentSession != forked {
		t.Fatalf("new session %q, parent %q", cur.File, cur.Runtime.Session().Header().ParentSession)
	}
	if _, err := h.Open(Want{Model: "nosuch/x"}); err == nil {
		t.Fatal("an unknown model was taken")
	}
	if len(h.Models()) == 0 || h.Models()[0].Provider != "faux" {
		t.Fatalf("models %+v", h.Models())
	}
}

// Without a session file, switching and forking are refused before the
// Assembly is asked.
func TestAssemblyHostNoSession(t *testing.T) {
	h := NewHost(fauxAssembly(t, true), HostConfig{NoSession: true})
	for _, w := range []Want{{NewSession: true, Session: "x.jsonl"}, {NewSession: true, Fork: true}} {
		if _, err := h.Open(w); err == nil || err.Error() != "gopi rpc runs with --no-session: it opens and forks no session files" {
			t.Fatalf("Open(%+v): %v", w, err)
		}
	}
	if h.Commands() != nil {
		t.Fatalf("commands without a catalog: %+v", h.Commands())
	}
	if got, err := h.Expand("/fix it"); err == nil || got != "" {
		t.Fatalf("a message over the zero bound: %q %v", got, err)
	}
}

// Expand bounds and expands a message; the templates and skills are the
// commands with where they come from.
func TestAssemblyHostExpandAndCommands(t *testing.T) {
	h := NewHost(fauxAssembly(t, false), HostConfig{Catalog: catalog, MaxPrompt: 20, MaxPromptOrigin: "--max-prompt-bytes"})
	if got, err := h.Expand("/fix tests"); err != nil || got != "fix tests now" {
		t.Fatalf("Expand: %q %v", got, err)
	}
	if got, err := h.Expand(strings.Repeat("x", 20)); err != nil || len(got) != 20 {
		t.Fatalf("a message at the bound: %q %v", got, err)
	}
	_, err := h.Expand(strings.Repeat("x", 21))
	want := "the message is larger than 20 bytes, the limit set by --max-prompt-bytes: shorten it, or raise the limit with --max-prompt-bytes N"
	if err == nil || err.Error() != want {
		t.Fatalf("over the bound: %v", err)
	}
	if _, err := h.Expand("/fix " + strings.Repeat("y", 14)); err == nil || !strings.Contains(err.Error(), "--max-prompt-bytes") {
		t.Fatalf("an expansion over the bound: %v", err)
	}
	cmds := h.Commands()
	wantCmds := []Command{
		{Name: "fix", Description: "fix it", Source: "prompt", SourceInfo: SourceInfo{Path: "/p/fix.md", Source: "local", Scope: "project", Origin: "top-level"}},
		{Name: "skill:lint", Description: "lint it", Source: "skill", SourceInfo: SourceInfo{Path: "/u/lint/SKILL.md", Source: "local", Scope: "user", Origin: "top-level"}},
	}
	if len(cmds) != 2 || cmds[0] != wantCmds[0] || cmds[1] != wantCmds[1] {
		t.Fatalf("commands %+v", cmds)
	}
	if err := h.CheckImage("image 1", "image/png", []byte("not a png")); err == nil || !strings.HasPrefix(err.Error(), "image 1 starts as image/png") {
		t.Fatalf("CheckImage: %v", err)
	}
	if err := h.CheckImage("image 1", "image/webp", []byte("x")); err != nil {
		t.Fatalf("CheckImage of webp: %v", err)
	}
}

// SetAutoCompaction rebuilds the Runtime with compaction switched, for
// the later Runtimes too.
func TestAssemblyHostAutoCompaction(t *testing.T) {
	a := fauxAssembly(t, false)
	h := NewHost(a, HostConfig{})
	cur := h.First()
	leaf := say(t, cur.Runtime, "hi")
	if !h.AutoCompaction() {
		t.Fatal("automatic compaction off by default")
	}
	o, err := h.SetAutoCompaction(false, Want{Leaf: leaf, Thinking: ai.ThinkingMedium})
	cur = switchTo(t, cur.Runtime, o, err)
	if h.AutoCompaction() || cur.Runtime.Leaf() != leaf || cur.Thinking != ai.ThinkingMedium || cur.File != a.File() {
		t.Fatalf("after switching off: on %v, %+v", h.AutoCompaction(), cur)
	}
	o, err = h.Open(Want{Leaf: leaf})
	cur = switchTo(t, cur.Runtime, o, err)
	if h.AutoCompaction() {
		t.Fatal("a later Runtime switched compaction back on")
	}
	if _, err := h.SetAutoCompaction(true, Want{Leaf: "nosuch"}); err == nil || a.Runtime() != cur.Runtime {
		t.Fatalf("a leaf not in the session: %v", err)
	}
	o, err = h.SetAutoCompaction(true, Want{Leaf: leaf})
	switchTo(t, cur.Runtime, o, err)
	if !h.AutoCompaction() {
		t.Fatal("compaction not switched on")
	}
}

// Export writes the session's page where ExportDest says; "-" and a
// refused destination are errors, and a session kept nowhere is named
// by its id.
func TestAssemblyHostExport(t *testing.T) {
	a := fauxAssembly(t, false)
	dir := t.TempDir()
	var asked []string
	h := NewHost(a, HostConfig{ExportDest: func(out, file string) (string, error) {
		asked = append(asked, out+"|"+file)
		switch {
		case out == "refused":
			return "", errors.New("outputPath refused")
		case out != "":
			return out, nil
		}
		return filepath.Join(dir, "page.html"), nil
	}})
	say(t, a.Runtime(), "hi")
	store := a.Runtime().Session()
	if _, err := h.Export(store, a.File(), "-"); err == nil || !strings.Contains(err.Error(), "stdout carries the protocol") {
		t.Fatalf("export to stdout: %v", err)
	}
	if _, err := h.Export(store, a.File(), "refused"); err == nil || err.Error() != "outputPath refused" {
		t.Fatalf("refused destination: %v", err)
	}
	dest, err := h.Export(store, "", "")
	if err != nil || dest != filepath.Join(dir, "page.html") {
		t.Fatalf("export: %q %v", dest, err)
	}
	if want := "|" + store.Header().ID + ".jsonl"; asked[len(asked)-1] != want {
		t.Fatalf("ExportDest asked %q, want %q", asked[len(asked)-1], want)
	}
	if st, err := os.Stat(dest); err != nil || (goruntime.GOOS != "windows" && st.Mode().Perm() != 0o600) {
		t.Fatalf("page mode: %v %v", st.Mode(), err)
	}
	page, err := os.ReadFile(dest)
	if err != nil || !bytes.Contains(page, []byte("<html")) || !bytes.Contains(page, []byte("hello")) {
		t.Fatalf("page (%v): %.200s", err, page)
	}
	missing := filepath.Join(dir, "nosuch", "x.html")
	if _, err := h.Export(store, a.File(), missing); err == nil || !strings.HasPrefix(err.Error(), "outputPath "+missing+": ") {
		t.Fatalf("a page that cannot be written: %v", err)
	}
}

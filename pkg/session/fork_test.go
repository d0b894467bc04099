package session

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"

	"gopi/internal/fdcheck"
	"gopi/pkg/ai"
)

func TestValidSessionID(t *testing.T) {
	for _, id := range []string{"a", "my.id_1", "A-b.c_d9", "01a2363d-b762-7556-b1b1-efd3749c0574"} {
		if !ValidSessionID(id) {
			t.Errorf("%q refused", id)
		}
	}
	for _, id := range []string{"", "-a", "a-", ".a", "a.", "a/b", "a b", "é", "a\n"} {
		if ValidSessionID(id) {
			t.Errorf("%q accepted", id)
		}
	}
}

// A new session's id is a UUIDv7, as pi's are (time-ordered).
func TestDefaultSessionIDIsUUIDv7(t *testing.T) {
	fdcheck.Check(t)
	s, err := NewSessionIn(t.TempDir(), "/p", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	u, err := uuid.Parse(s.Header().ID)
	if err != nil || u.Version() != 7 {
		t.Errorf("id %q: version %v, %v", s.Header().ID, u.Version(), err)
	}
	o := testOptions()
	o.ID = "chosen.id"
	m := NewMemoryStore("/p", o)
	if m.Header().ID != "chosen.id" {
		t.Errorf("chosen id: %q", m.Header().ID)
	}
}

// Fork copies every entry of a session into a new one naming it as its
// parent; nothing is on disk until the first append, which writes the
// header, the copied lines as they were, and the new entry.
func TestFork(t *testing.T) {
	fdcheck.Check(t)
	dir := t.TempDir()
	src := filepath.Join("testdata", "pi", "v16.jsonl")
	raw, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	o := testOptions()
	o.ID = "forked"
	s, err := Fork(src, filepath.Join(dir, "out"), "/work", o)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	abs, _ := filepath.Abs(src)
	if h := s.Header(); h.ParentSession != abs || h.ID != "forked" || h.Cwd != "/work" {
		t.Errorf("header %+v", h)
	}
	entries := s.Entries()
	if len(entries) != 16 || entries[15].ID != "c0e123f5" {
		t.Fatalf("%d entries", len(entries))
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "out", "*.jsonl")); len(m) != 0 {
		t.Errorf("the fork is on disk before its first entry: %v", m)
	}
	if _, err := s.Append(context.Background(), MessageEntry("c0e123f5", ai.UserText("more", 1))); err != nil {
		t.Fatal(err)
	}
	matches, _ := filepath.Glob(filepath.Join(dir, "out", "*_forked.jsonl"))
	if len(matches) != 1 {
		t.Fatalf("files: %v", matches)
	}
	got, err := os.ReadFile(matches[0])
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(got), "\n")
	body := string(raw[strings.IndexByte(string(raw), '\n')+1:])
	if len(lines) != 19 || strings.Join(lines[1:17], "") != body || !strings.Contains(lines[17], `"text":"more"`) {
		t.Errorf("fork file:\n%s", got)
	}
	if f, err := ReadFile(matches[0]); err != nil || len(f.Entries) != 17 || len(f.Warnings) != 0 {
		t.Errorf("read back: %v", err)
	}
	// FindID finds it by its exact id only.
	if in, err := FindID(filepath.Join(dir, "out"), "forked"); err != nil || in.Path != matches[0] {
		t.Errorf("FindID: %v %v", in, err)
	}
	if _, err := FindID(filepath.Join(dir, "out"), "fork"); !errors.Is(err, ErrNotFound) {
		t.Errorf("FindID of a prefix: %v", err)
	}
	if p, err := ResolveIn(filepath.Join(dir, "out"), "fork"); err != nil || p != matches[0] {
		t.Errorf("ResolveIn of a prefix: %q %v", p, err)
	}
}

func TestForkRefusals(t *testing.T) {
	fdcheck.Check(t)
	dir := t.TempDir()
	if _, err := Fork(filepath.Join(dir, "missing.jsonl"), dir, "/w", testOptions()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing source: %v", err)
	}
	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(bad, []byte("not a session\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Fork(bad, dir, "/w", testOptions()); !errors.Is(err, ErrInvalidHeader) {
		t.Errorf("not a session: %v", err)
	}
	if _, err := Fork(dir, dir, "/w", testOptions()); !errors.Is(err, ErrNotRegular) {
		t.Errorf("a folder: %v", err)
	}
	des, _ := os.ReadDir(dir)
	if len(des) != 1 {
		t.Errorf("refused forks left files: %v", des)
	}
}

// ListIn keeps the sessions of one working directory, newest first.
func TestListIn(t *testing.T) {
	fdcheck.Check(t)
	dir := t.TempDir()
	o := testOptions()
	for _, cwd := range []string{"/a", "/b", "/a"} {
		s, err := NewSessionIn(dir, cwd, Options{Now: o.Now, NewID: o.NewID})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Append(context.Background(), MessageEntry("", ai.UserText(cwd, 1))); err != nil {
			t.Fatal(err)
		}
		s.Close()
	}
	list, err := ListIn(dir, "/a")
	if err != nil || len(list) != 2 || list[0].Header.Cwd != "/a" || list[1].Header.Cwd != "/a" {
		t.Fatalf("ListIn: %v %+v", err, list)
	}
	if list, err := ListIn(filepath.Join(dir, "none"), "/a"); err != nil || len(list) != 0 {
		t.Errorf("missing folder: %v %v", list, err)
	}
}

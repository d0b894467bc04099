package session

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"gopi/internal/fdcheck"
)

// TestBranchAsPi forks a session with two branches and labels as pi 1.6's
// rpc fork did (testdata/pi/branch: pi's own file for "fork before
// aaaa0009", its thinking_level_change line left out, which pi's runtime
// adds and is no part of the copy): only the path, labels left out of it
// and re-made after it, parents re-chained, written at once.
func TestBranchAsPi(t *testing.T) {
	fdcheck.Check(t)
	dir := t.TempDir()
	src := filepath.Join("testdata", "pi", "branch", "src.jsonl")
	s, err := Branch(src, "aaaa0008", dir, "/w", testOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	abs, _ := filepath.Abs(src)
	if h := s.Header(); h.ParentSession != abs || h.Cwd != "/w" {
		t.Errorf("header %+v", h)
	}
	got := jsonLines(t, s.Path())
	want := jsonLines(t, filepath.Join("testdata", "pi", "branch", "fork-aaaa0009.jsonl"))
	if len(got) != len(want) {
		t.Fatalf("%d lines, pi wrote %d", len(got), len(want))
	}
	for i := 1; i < len(got); i++ { // the header's id, time and paths differ
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("line %d:\n got %v\nwant %v", i+1, got[i], want[i])
		}
	}
	if n, _ := Newest(s.Entries()); n.Type != TypeLabel || n.TargetID != "aaaa0006" {
		t.Errorf("newest entry %+v, want the last label", n)
	}
}

// TestBranchEmpty: a fork before the first message is an empty session
// whose parent is the source, written only with its first entry.
func TestBranchEmpty(t *testing.T) {
	fdcheck.Check(t)
	dir := t.TempDir()
	s, err := Branch(filepath.Join("testdata", "pi", "branch", "src.jsonl"), "", dir, "/w", testOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if len(s.Entries()) != 0 || s.Header().ParentSession == "" {
		t.Errorf("entries %d, header %+v", len(s.Entries()), s.Header())
	}
	if _, err := os.Stat(s.Path()); !os.IsNotExist(err) {
		t.Errorf("an empty fork is on disk: %v", err)
	}
}

// jsonLines reads a JSONL file with the label entries' ids (new in each
// copy) replaced by their order: L1, L2...
func jsonLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	names := map[any]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if m["type"] == "label" {
			names[m["id"]] = "L" + string(rune('0'+len(names)+1))
			m["id"] = names[m["id"]]
		}
		if n, ok := names[m["parentId"]]; ok {
			m["parentId"] = n
		}
		out = append(out, m)
	}
	return out
}

package session

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopi/internal/golden"
	"gopi/pkg/ai"
)

// writeGoldenSession appends one entry of every type through a FileStore.
func writeGoldenSession(t *testing.T, path string) {
	t.Helper()
	s, err := Create(path, "/home/u/proj", testOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	label, name, yes := "start", "demo", true
	steps := []Entry{
		ModelChangeEntry("", "anthropic", "claude-sonnet-4-5"),
		ThinkingLevelEntry("00000001", ai.ThinkingHigh),
		MessageEntry("00000002", ai.UserText("read a.go <please> & thanks", 1772359201000)),
		MessageEntry("00000003", ai.Message{Role: ai.RoleAssistant, Content: []ai.Content{ai.ToolCallContent("call_1", "read", []byte(`{"path":"a.go"}`))},
			API: "anthropic-messages", Provider: "anthropic", Model: "claude-sonnet-4-5", StopReason: ai.StopToolUse, Timestamp: 1772359202000}),
		MessageEntry("00000004", ai.Message{Role: ai.RoleToolResult, ToolCallID: "call_1", ToolName: "read", Content: []ai.Content{ai.TextContent("package a\n")}, Timestamp: 1772359203000}),
		{Type: TypeCompaction, ParentID: Ref("00000005"), Summary: "## Goal\nread", FirstKeptEntryID: "00000004", TokensBefore: 42, Details: []byte(`{"readFiles":["a.go"],"modifiedFiles":[]}`)},
		{Type: TypeBranchSummary, ParentID: Ref("00000003"), FromID: "00000006", Summary: "went elsewhere", FromHook: &yes},
		{Type: TypeCustom, ParentID: Ref("00000007"), CustomType: "ext", Data: []byte(`{"n":1}`)},
		{Type: TypeCustomMessage, ParentID: Ref("00000008"), CustomType: "note", Content: []ai.Content{ai.TextContent("hello")}, ContentString: true, Display: true},
		{Type: TypeLabel, ParentID: Ref("00000009"), TargetID: "00000003", Label: &label},
		{Type: TypeSessionInfo, ParentID: Ref("0000000a"), Name: &name},
	}
	for _, e := range steps {
		if _, err := s.Append(context.Background(), e); err != nil {
			t.Fatal(err)
		}
	}
}

func TestGoldenWrittenSession(t *testing.T) {
	path := filepath.Join(tempDir(t), "s.jsonl")
	writeGoldenSession(t, path)
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, golden.Path(t), got)
	st, _ := os.Stat(path)
	if st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", st.Mode().Perm())
	}
	f, err := ReadFile(path)
	if err != nil || len(f.Warnings) != 0 || len(f.Entries) != 11 {
		t.Fatalf("reread: %v %v %d entries", err, f.Warnings, len(f.Entries))
	}
	if _, err := os.Stat(LockPath(path)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lock file left behind: %v", err)
	}
}

func TestNewSessionLayout(t *testing.T) {
	root := tempDir(t)
	s, err := NewSession(root, "/home/u/my:proj", testOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	want := filepath.Join(root, "--home-u-my-proj--", "2026-03-01T10-00-01-000Z_0b6f2a5e-1111-4c3a-9d6e-2f0c8a7b9e10.jsonl")
	if s.Path() != want {
		t.Fatalf("path %s, want %s", s.Path(), want)
	}
	if _, err := os.Stat(s.Path()); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("file exists before the first append")
	}
	if _, err := s.Append(t.Context(), MessageEntry("", ai.UserText("hi", 1))); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(filepath.Dir(want))
	if st.Mode().Perm() != 0o700 {
		t.Errorf("dir mode %v", st.Mode().Perm())
	}
	list, err := List(root, "/home/u/my:proj")
	if err != nil || len(list) != 1 || list[0].Path != want {
		t.Fatalf("List: %v %+v", err, list)
	}
	if p, err := Resolve(root, "0b6f2a5e"); err != nil || p != want {
		t.Fatalf("Resolve: %q %v", p, err)
	}
	if _, err := Resolve(root, "ffff"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Resolve unknown: %v", err)
	}
}

func TestLockSameProcess(t *testing.T) {
	path := filepath.Join(tempDir(t), "s.jsonl")
	writeGoldenSession(t, path)
	a, err := Open(path, Options{PID: 4242})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	_, err = Open(path, Options{})
	var le *LockedError
	if !errors.As(err, &le) || !errors.Is(err, ErrLocked) || le.PID != 4242 {
		t.Fatalf("second open: %v", err)
	}
	if !strings.Contains(err.Error(), "process 4242") {
		t.Errorf("error does not name the holder: %v", err)
	}
	if _, err := ReadFile(path); err != nil {
		t.Errorf("a reader needs no lock: %v", err)
	}
}

// A second process gets ErrLocked naming this process's pid at once.
func TestLockTwoProcesses(t *testing.T) {
	path := filepath.Join(tempDir(t), "s.jsonl")
	writeGoldenSession(t, path)
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	out, err := childCmd(t, "lock", path).CombinedOutput()
	var ee interface{ ExitCode() int }
	if !errors.As(err, &ee) || ee.ExitCode() != 3 {
		t.Fatalf("child: %v: %s", err, out)
	}
	if want := fmt.Sprintf("locked by process %d", os.Getpid()); !strings.Contains(string(out), want) {
		t.Errorf("child said %q, want %q", out, want)
	}
	s.Close()
	if out, err := childCmd(t, "lock", path).CombinedOutput(); err != nil {
		t.Fatalf("after close: %v: %s", err, out)
	}
}

// failFile fails the Nth write or sync.
type failFile struct {
	WriteFile
	writes, syncs       int
	failWrite, failSync int
	partial             bool
}

var errDisk = errors.New("no space left on device (injected)")

func (f *failFile) Write(p []byte) (int, error) {
	f.writes++
	if f.writes == f.failWrite {
		if f.partial {
			n, _ := f.WriteFile.Write(p[:len(p)/2])
			return n, errDisk
		}
		return 0, errDisk
	}
	return f.WriteFile.Write(p)
}

func (f *failFile) Sync() error {
	f.syncs++
	if f.syncs == f.failSync {
		return errDisk
	}
	return f.WriteFile.Sync()
}

func TestDiskErrors(t *testing.T) {
	tests := []struct {
		name string
		ff   failFile
	}{
		{"write fails", failFile{failWrite: 3}},
		{"partial write", failFile{failWrite: 3, partial: true}},
		{"fsync fails", failFile{failSync: 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(tempDir(t), "s.jsonl")
			ff := tt.ff
			opts := testOptions()
			opts.OpenFile = func(name string, flag int, perm os.FileMode) (WriteFile, error) {
				f, err := os.OpenFile(name, flag, perm)
				ff.WriteFile = f
				return &ff, err
			}
			s, err := Create(path, "/p", opts)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			parent := ""
			for i := range 2 {
				e, err := s.Append(t.Context(), MessageEntry(parent, ai.UserText(fmt.Sprint(i), 1)))
				if err != nil {
					t.Fatal(err)
				}
				parent = e.ID
			}
			if _, err := s.Append(t.Context(), MessageEntry(parent, ai.UserText("lost", 1))); !errors.Is(err, errDisk) {
				t.Fatalf("third append: %v, want the disk error", err)
			}
			if n := len(s.Entries()); n != 2 {
				t.Errorf("%d entries after the failure, want 2", n)
			}
			if _, err := s.Append(t.Context(), MessageEntry(parent, ai.UserText("after", 1))); !errors.Is(err, ErrBroken) {
				t.Errorf("append after failure: %v, want ErrBroken", err)
			}
		})
	}
}

// A torn tail is reported and the next append starts on a fresh line.
func TestTornTailThenAppend(t *testing.T) {
	path := filepath.Join(tempDir(t), "s.jsonl")
	writeGoldenSession(t, path)
	appendRaw(t, path, `{"type":"message","id":"torn0001","parentId":"0000000b","timestamp":"x","message":{"role":"us`)
	s, err := Open(path, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	w := s.Warnings()
	if len(w) != 1 || w[0].Kind != WarnTornLine || w[0].Line != 13 || w[0].Offset <= 0 {
		t.Fatalf("warnings %v", w)
	}
	if _, err := s.Append(t.Context(), MessageEntry("0000000b", ai.UserText("next", 1))); err != nil {
		t.Fatal(err)
	}
	s.Close()
	f, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Entries) != 12 || len(f.Warnings) != 1 || f.Warnings[0].Kind != WarnCorruptLine || f.Warnings[0].Line != 13 {
		t.Fatalf("%d entries, warnings %v", len(f.Entries), f.Warnings)
	}
}

// A last line that holds a whole entry but lacks its newline is kept (as
// pi keeps it), the next append writes the newline first, and every later
// read sees the same entries: the newest leaf does not change under -c.
func TestCompleteTailWithoutNewlineIsKept(t *testing.T) {
	path := filepath.Join(tempDir(t), "s.jsonl")
	writeGoldenSession(t, path)
	appendRaw(t, path, `{"type":"message","id":"tail0001","parentId":"0000000b","timestamp":"2026-03-01T10:00:12.000Z","message":{"role":"user","content":"last","timestamp":1}}`)
	s, err := Open(path, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	if w := s.Warnings(); len(w) != 0 {
		t.Fatalf("warnings %v", w)
	}
	if n, _ := Newest(s.Entries()); n.ID != "tail0001" {
		t.Fatalf("newest entry %s", n.ID)
	}
	if _, err := s.Append(t.Context(), MessageEntry("tail0001", ai.UserText("next", 2))); err != nil {
		t.Fatal(err)
	}
	s.Close()
	f, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Entries) != 13 || len(f.Warnings) != 0 || f.Entries[11].ID != "tail0001" || f.Entries[12].Parent() != "tail0001" {
		t.Fatalf("%d entries, warnings %v", len(f.Entries), f.Warnings)
	}
}

func appendRaw(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

func TestReadProblems(t *testing.T) {
	header := `{"type":"session","version":3,"id":"u","timestamp":"t","cwd":"/"}` + "\n"
	e1 := `{"type":"message","id":"00000001","parentId":null,"timestamp":"t","message":{"role":"user","content":"a","timestamp":1}}` + "\n"
	e3 := `{"type":"message","id":"00000003","parentId":"00000002","timestamp":"t","message":{"role":"user","content":"c","timestamp":3}}` + "\n"
	big := `{"type":"message","id":"00000004","parentId":"00000003","timestamp":"t","message":{"role":"toolResult","toolCallId":"c","toolName":"read","content":[{"type":"text","text":"` + strings.Repeat("y", 5<<20) + `"}],"isError":false,"timestamp":4}}` + "\n"
	tests := []struct {
		name      string
		data      string
		wantErr   error
		entries   int
		warnKinds []string
		warnLines []int
	}{
		{"empty file", "", ErrInvalidHeader, 0, nil, nil},
		{"no header", e1, ErrInvalidHeader, 0, nil, nil},
		{"garbage header", "{nope\n" + e1, ErrInvalidHeader, 0, nil, nil},
		{"fine", header + e1, nil, 1, nil, nil},
		{"garbage middle", header + e1 + "garbage\n" + e3, nil, 2, []string{WarnCorruptLine}, []int{3}},
		{"NUL bytes middle", header + e1 + "\x00\x00\x00\n" + e3, nil, 2, []string{WarnCorruptLine}, []int{3}},
		{"torn tail", header + e1 + e3[:20], nil, 1, []string{WarnTornLine}, []int{3}},
		{"complete tail without newline", header + e1 + strings.TrimSuffix(e3, "\n"), nil, 2, nil, nil},
		{"5 MB line", header + e1 + e3 + big, nil, 3, nil, nil},
		{"blank lines", header + "\n" + e1 + "\n\n", nil, 1, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(tempDir(t), "s.jsonl")
			if err := os.WriteFile(path, []byte(tt.data), 0o600); err != nil {
				t.Fatal(err)
			}
			f, err := ReadFile(path)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) || !strings.Contains(err.Error(), path) {
					t.Fatalf("err %v, want %v naming the file", err, tt.wantErr)
				}
				if _, err := Open(path, Options{}); !errors.Is(err, tt.wantErr) {
					t.Fatalf("Open: %v", err)
				}
				if got, _ := os.ReadFile(path); !bytes.Equal(got, []byte(tt.data)) {
					t.Fatal("file changed")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(f.Entries) != tt.entries {
				t.Errorf("%d entries, want %d", len(f.Entries), tt.entries)
			}
			if len(f.Warnings) != len(tt.warnKinds) {
				t.Fatalf("warnings %v, want %v", f.Warnings, tt.warnKinds)
			}
			for i, w := range f.Warnings {
				if w.Kind != tt.warnKinds[i] || w.Line != tt.warnLines[i] || !strings.HasPrefix(w.String(), fmt.Sprintf("%s:%d: ", path, w.Line)) {
					t.Errorf("warning %d: %+v", i, w)
				}
			}
		})
	}
}

func TestAppendChecks(t *testing.T) {
	s := NewMemoryStore("/p", testOptions())
	e, err := s.Append(t.Context(), MessageEntry("", ai.UserText("a", 1)))
	if err != nil || e.ID != "00000001" || e.Timestamp != "2026-03-01T10:00:02.000Z" {
		t.Fatalf("%+v %v", e, err)
	}
	if _, err := s.Append(t.Context(), Entry{Type: TypeLabel, ID: "00000001"}); !errors.Is(err, ErrDuplicateID) {
		t.Errorf("duplicate: %v", err)
	}
	if _, err := s.Append(t.Context(), MessageEntry("nope", ai.UserText("b", 1))); !errors.Is(err, ErrMissingParent) {
		t.Errorf("missing parent: %v", err)
	}
	opts := testOptions()
	opts.NewID = func() string { return "00000001" }
	s2 := NewMemoryStore("/p", opts)
	s2.Append(t.Context(), MessageEntry("", ai.UserText("a", 1)))
	if _, err := s2.Append(t.Context(), MessageEntry("", ai.UserText("b", 1))); err == nil {
		t.Error("an id source stuck on one id must fail")
	}
}

// Regression: opening /dev/zero (or any huge first line) read it whole
// looking for a header and ran out of memory. A device is now refused
// before it is read at all.
func TestNonSessionFilesFailFast(t *testing.T) {
	if _, err := ReadFile("/dev/zero"); !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "/dev/zero is a character device") {
		t.Fatalf("/dev/zero: %v", err)
	}
	p := filepath.Join(tempDir(t), "big.jsonl")
	if err := os.WriteFile(p, bytes.Repeat([]byte("x"), 2*maxHeaderLine), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(p); !errors.Is(err, ErrInvalidHeader) || !strings.Contains(err.Error(), "longer than") {
		t.Fatalf("huge first line: %v", err)
	}
}

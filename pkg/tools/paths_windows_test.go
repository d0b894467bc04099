package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The file tools take Windows paths: absolute with a drive letter and
// backslashes, relative with either slash; edit keeps CRLF line endings.
func TestWindowsFileToolsPathsAndCRLF(t *testing.T) {
	env := testEnv(t)
	abs := filepath.Join(env.Cwd, "sub", "notes.txt")
	if !filepath.IsAbs(abs) || filepath.VolumeName(abs) == "" || !strings.Contains(abs, `\`) {
		t.Fatalf("not a Windows path: %q", abs)
	}
	res := runTool(t, env, NewWrite(), map[string]any{"path": abs, "content": "one\r\nold line\r\nthree\r\n"})
	if res.IsError {
		t.Fatalf("write: %s", text(res))
	}
	res = runTool(t, env, NewEdit(), map[string]any{"path": "sub/notes.txt", "oldText": "old line\nthree", "newText": "new line\nthree\nfour"})
	if res.IsError {
		t.Fatalf("edit: %s", text(res))
	}
	got, err := os.ReadFile(abs)
	if err != nil {
		t.Fatal(err)
	}
	if want := "one\r\nnew line\r\nthree\r\nfour\r\n"; string(got) != want {
		t.Errorf("after edit %q, want %q (CRLF kept)", got, want)
	}
	res = runTool(t, env, NewRead(), map[string]any{"path": `sub\notes.txt`})
	if res.IsError || !strings.Contains(text(res), "new line") {
		t.Errorf("read with a backslash: %q", text(res))
	}
	res = runTool(t, env, NewLs(), map[string]any{"path": "sub"})
	if res.IsError || !strings.Contains(text(res), "notes.txt") {
		t.Errorf("ls: %q", text(res))
	}
	res = runTool(t, env, NewGrep(), map[string]any{"pattern": "new line"})
	if res.IsError || !strings.Contains(text(res), "notes.txt") {
		t.Errorf("grep: %q", text(res))
	}
	res = runTool(t, env, NewFind(), map[string]any{"pattern": "**/*.txt"})
	if res.IsError || !strings.Contains(text(res), "sub/notes.txt") {
		t.Errorf("find: %q", text(res))
	}
	res = runTool(t, env, NewRead(), map[string]any{"path": "NUL"})
	if !res.IsError {
		t.Errorf("read NUL (a device) succeeded: %q", text(res))
	}
}

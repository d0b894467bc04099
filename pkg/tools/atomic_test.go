package tools

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"gopi/internal/atomicfile"
)

type change struct {
	tool Tool
	args map[string]any
}

// changers are write and edit with the same change asked of each: the
// file "f.txt" holding "old line\n" becomes "new line\n".
func changers(ops replaceOps) []change {
	return []change{
		{&WriteTool{ops: ops}, map[string]any{"path": "f.txt", "content": "new line\n"}},
		{&EditTool{ops: ops}, map[string]any{"path": "f.txt", "oldText": "old", "newText": "new"}},
	}
}

// TestWriteNewFileMode pins that a new file gets the mode os.WriteFile
// would give it (0644 less the umask).
func TestWriteNewFileMode(t *testing.T) {
	env := testEnv(t)
	ref := filepath.Join(t.TempDir(), "ref")
	os.WriteFile(ref, nil, 0o644)
	res := runTool(t, env, NewWrite(), map[string]any{"path": "new.txt", "content": "x"})
	if res.IsError {
		t.Fatal(text(res))
	}
	got, _ := os.Stat(filepath.Join(env.Cwd, "new.txt"))
	want, _ := os.Stat(ref)
	if got.Mode() != want.Mode() {
		t.Errorf("mode %v, os.WriteFile gives %v", got.Mode(), want.Mode())
	}
}

// TestReplaceThroughSymlink pins that writing or editing through a
// symbolic link changes the file it points to and leaves the link a link
// (a rename over the link's own path would replace the link).
func TestReplaceThroughSymlink(t *testing.T) {
	for _, c := range changers(replaceOps{}) {
		t.Run(c.tool.Spec().Name, func(t *testing.T) {
			env := testEnv(t)
			os.Mkdir(filepath.Join(env.Cwd, "real"), 0o755)
			target := filepath.Join(env.Cwd, "real", "target.txt")
			os.WriteFile(target, []byte("old line\n"), 0o640)
			os.Symlink("target.txt", filepath.Join(env.Cwd, "real", "hop"))
			os.Symlink("real/hop", filepath.Join(env.Cwd, "f.txt"))
			res := runTool(t, env, c.tool, c.args)
			if res.IsError {
				t.Fatal(text(res))
			}
			wantFile(t, target, "new line\n")
			wantLink(t, filepath.Join(env.Cwd, "f.txt"), "real/hop")
			wantLink(t, filepath.Join(env.Cwd, "real", "hop"), "target.txt")
			if st, _ := os.Stat(target); st.Mode() != 0o640 {
				t.Errorf("target mode %v", st.Mode())
			}
			wantEntries(t, filepath.Join(env.Cwd, "real"), "hop", "target.txt")
		})
	}
}

// TestWriteThroughDanglingSymlink pins the decision for a link to a file
// that does not exist yet: write creates that file (and its folder), as
// opening the link with O_CREAT would, and the link stays a link.
func TestWriteThroughDanglingSymlink(t *testing.T) {
	env := testEnv(t)
	os.Symlink("later/made.txt", filepath.Join(env.Cwd, "link"))
	res := runTool(t, env, NewWrite(), map[string]any{"path": "link", "content": "made"})
	if res.IsError || text(res) != "Successfully wrote 4 bytes to link" {
		t.Fatalf("got %v %q", res.IsError, text(res))
	}
	wantFile(t, filepath.Join(env.Cwd, "later", "made.txt"), "made")
	wantLink(t, filepath.Join(env.Cwd, "link"), "later/made.txt")
}

// fullDisk takes room bytes, then fails like a full disk.
type fullDisk struct {
	w    io.Writer
	room int
}

func (d *fullDisk) Write(p []byte) (int, error) {
	if len(p) <= d.room {
		d.room -= len(p)
		return d.w.Write(p)
	}
	n, _ := d.w.Write(p[:d.room])
	d.room = 0
	return n, syscall.ENOSPC
}

// TestReplaceFailureLeavesOldBytes pins promise 11 and the bug where edit
// reported a write error after truncating the file as a successful edit:
// a failure at any step before the rename (full disk midway, fsync, the
// rename itself) is an error result, the file keeps its old bytes and
// mode, and no temporary file is left behind.
func TestReplaceFailureLeavesOldBytes(t *testing.T) {
	failures := []struct {
		name string
		ops  replaceOps
		want string
	}{
		{"disk full midway", replaceOps{writer: func(w io.Writer) io.Writer { return &fullDisk{w: w, room: 3} }}, "no space left on device"},
		{"fsync", replaceOps{syncFile: func(*os.File) error { return syscall.EIO }}, "input/output error"},
		{"rename", replaceOps{rename: func(string, string) error { return syscall.EXDEV }}, "invalid cross-device link"},
	}
	for _, f := range failures {
		for _, c := range changers(f.ops) {
			t.Run(f.name+"/"+c.tool.Spec().Name, func(t *testing.T) {
				env := testEnv(t)
				p := filepath.Join(env.Cwd, "f.txt")
				os.WriteFile(p, []byte("old line\n"), 0o600)
				res := runTool(t, env, c.tool, c.args)
				if !res.IsError || res.Details != nil {
					t.Fatalf("got %v %q, details %v", res.IsError, text(res), res.Details)
				}
				wantContains(t, text(res), "Cannot write f.txt: ", f.want, "The file was left as it was.")
				if strings.Contains(text(res), "Successfully") {
					t.Errorf("failure reported as a success: %s", text(res))
				}
				wantFile(t, p, "old line\n")
				if st, _ := os.Stat(p); st.Mode() != 0o600 {
					t.Errorf("mode %v", st.Mode())
				}
				wantEntries(t, env.Cwd, "f.txt")
			})
		}
	}
}

// TestWriteNewFileFailureLeavesNothing pins that a failed write of a new
// file leaves no file and no temporary file.
func TestWriteNewFileFailureLeavesNothing(t *testing.T) {
	env := testEnv(t)
	w := &WriteTool{ops: replaceOps{writer: func(w io.Writer) io.Writer { return &fullDisk{w: w} }}}
	res := runTool(t, env, w, map[string]any{"path": "new.txt", "content": "data"})
	if !res.IsError {
		t.Fatalf("got %q", text(res))
	}
	wantContains(t, text(res), "Cannot write new.txt: ", "no space left on device")
	wantEntries(t, env.Cwd)
}

// TestReplaceSteps pins the order that makes a replace durable: the
// temporary file is fsynced, renamed over the target, then the target's
// folder is fsynced.
func TestReplaceSteps(t *testing.T) {
	for i, c := range changers(replaceOps{}) {
		t.Run(c.tool.Spec().Name, func(t *testing.T) {
			env := testEnv(t)
			p := filepath.Join(env.Cwd, "f.txt")
			os.WriteFile(p, []byte("old line\n"), 0o644)
			var steps []string
			ops := replaceOps{
				syncFile: func(f *os.File) error { steps = append(steps, "sync "+f.Name()); return f.Sync() },
				rename: func(from, to string) error {
					steps = append(steps, "rename "+from+" "+to)
					return os.Rename(from, to)
				},
				syncDir: func(dir string) error { steps = append(steps, "syncdir "+dir); return atomicfile.SyncDir(dir) },
			}
			if res := runTool(t, env, changers(ops)[i].tool, c.args); res.IsError {
				t.Fatal(text(res))
			}
			if len(steps) != 3 {
				t.Fatalf("steps %q", steps)
			}
			tmp := strings.TrimPrefix(steps[0], "sync ")
			if !strings.HasPrefix(filepath.Base(tmp), ".f.txt.gopi-tmp-") || filepath.Dir(tmp) != env.Cwd {
				t.Errorf("temporary file %s", tmp)
			}
			want := []string{"sync " + tmp, "rename " + tmp + " " + p, "syncdir " + env.Cwd}
			if !slices.Equal(steps, want) {
				t.Errorf("steps\n%q\nwant\n%q", steps, want)
			}
			wantFile(t, p, "new line\n")
		})
	}
}

// TestReplaceUnsyncedFolder pins that a folder fsync failing after the
// rename reports the change, which happened, with a warning.
func TestReplaceUnsyncedFolder(t *testing.T) {
	for _, c := range changers(replaceOps{syncDir: func(string) error { return syscall.EIO }}) {
		t.Run(c.tool.Spec().Name, func(t *testing.T) {
			env := testEnv(t)
			p := filepath.Join(env.Cwd, "f.txt")
			os.WriteFile(p, []byte("old line\n"), 0o644)
			res := runTool(t, env, c.tool, c.args)
			if res.IsError {
				t.Fatal(text(res))
			}
			wantContains(t, text(res), "Successfully", "Warning: the new content is in place, but sync folder "+env.Cwd+": input/output error")
			wantFile(t, p, "new line\n")
		})
	}
}

func wantFile(t *testing.T, p, want string) {
	t.Helper()
	got, err := os.ReadFile(p)
	if err != nil || string(got) != want {
		t.Errorf("%s holds %q (%v), want %q", filepath.Base(p), got, err, want)
	}
}

func wantLink(t *testing.T, p, dest string) {
	t.Helper()
	got, err := os.Readlink(p)
	if err != nil || got != dest {
		t.Errorf("%s: link to %q (%v), want a link to %q", filepath.Base(p), got, err, dest)
	}
}

// wantEntries checks the names in dir: no temporary file left behind.
func wantEntries(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if !slices.Equal(got, names) {
		t.Errorf("%s holds %q, want %q", dir, got, names)
	}
}

// TestReplaceLongName pins the temporary file's name for a target whose
// name is near the 255-byte limit: it repeats at most 200 bytes of the
// name, cut where a character starts, so it is valid UTF-8 and short
// enough to be created.
func TestReplaceLongName(t *testing.T) {
	for _, name := range []string{"a" + strings.Repeat("é", 124), strings.Repeat("é", 100), strings.Repeat("b", 199)} {
		env := testEnv(t)
		p := filepath.Join(env.Cwd, name)
		os.WriteFile(p, []byte("old line\n"), 0o644)
		var tmp string
		ops := replaceOps{syncFile: func(f *os.File) error { tmp = filepath.Base(f.Name()); return f.Sync() }}
		res := runTool(t, env, &EditTool{ops: ops}, map[string]any{"path": name, "oldText": "old", "newText": "new"})
		if res.IsError {
			t.Fatal(text(res))
		}
		kept := name
		if len(kept) > 200 {
			kept = name[:199] // byte 200 is inside an "é"
		}
		if !strings.HasPrefix(tmp, "."+kept+".gopi-tmp-") {
			t.Errorf("temporary name %q for %d-byte name", tmp, len(name))
		}
		wantFile(t, p, "new line\n")
	}
}

// TestWriteThroughAbsoluteDanglingSymlink: a dangling link with an
// absolute destination leads write to that path too.
func TestWriteThroughAbsoluteDanglingSymlink(t *testing.T) {
	env := testEnv(t)
	dest := filepath.Join(env.Cwd, "sub", "made.txt")
	os.Mkdir(filepath.Join(env.Cwd, "sub"), 0o755)
	os.Symlink(dest, filepath.Join(env.Cwd, "hop"))
	os.Symlink("hop", filepath.Join(env.Cwd, "link"))
	res := runTool(t, env, NewWrite(), map[string]any{"path": "link", "content": "made"})
	if res.IsError {
		t.Fatal(text(res))
	}
	wantFile(t, dest, "made")
	wantLink(t, filepath.Join(env.Cwd, "link"), "hop")
	wantLink(t, filepath.Join(env.Cwd, "hop"), dest)
}

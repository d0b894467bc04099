package tools

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWrite(t *testing.T) {
	env := testEnv(t)
	os.Mkdir(filepath.Join(env.Cwd, "adir"), 0o755)
	exec := filepath.Join(env.Cwd, "run.sh")
	os.WriteFile(exec, []byte("old"), 0o755)
	tests := []struct {
		name, path, content string
		wantErr             bool
		want                string
		file                string // checked when set
	}{
		{name: "new file", path: "a.txt", content: "hello", want: "Successfully wrote 5 bytes to a.txt", file: "a.txt"},
		{name: "parents made", path: "x/y/z.txt", content: "deep", want: "Successfully wrote 4 bytes to x/y/z.txt", file: "x/y/z.txt"},
		{name: "bytes not runes", path: "u.txt", content: "héllo", want: "Successfully wrote 6 bytes to u.txt", file: "u.txt"},
		{name: "empty", path: "e.txt", content: "", want: "Successfully wrote 0 bytes to e.txt", file: "e.txt"},
		{name: "overwrite keeps mode", path: "run.sh", content: "new", want: "Successfully wrote 3 bytes to run.sh", file: "run.sh"},
		{name: "absolute", path: filepath.Join(env.Cwd, "abs.txt"), content: "x", want: "Successfully wrote 1 bytes to " + filepath.Join(env.Cwd, "abs.txt"), file: "abs.txt"},
		{name: "directory", path: "adir", content: "x", wantErr: true, want: "Cannot write adir: it is a folder. Choose a file path."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := runTool(t, env, NewWrite(), map[string]any{"path": tc.path, "content": tc.content})
			if res.IsError != tc.wantErr || text(res) != tc.want {
				t.Fatalf("got %v %q, want %q", res.IsError, text(res), tc.want)
			}
			if tc.file == "" {
				return
			}
			got, err := os.ReadFile(filepath.Join(env.Cwd, tc.file))
			if err != nil || string(got) != tc.content {
				t.Errorf("file holds %q, %v", got, err)
			}
		})
	}
	if st, _ := os.Stat(exec); st.Mode().Perm() != 0o755 {
		t.Errorf("mode changed to %v", st.Mode())
	}
}

// TestPathsIgnoreProcessCwd pins that tools resolve against Env.Cwd only.
func TestPathsIgnoreProcessCwd(t *testing.T) {
	env := testEnv(t)
	other := t.TempDir()
	t.Chdir(other)
	res := runTool(t, env, NewWrite(), map[string]any{"path": "here.txt", "content": "x"})
	if res.IsError {
		t.Fatal(text(res))
	}
	if _, err := os.Stat(filepath.Join(env.Cwd, "here.txt")); err != nil {
		t.Errorf("not written under Env.Cwd: %v", err)
	}
	if _, err := os.Stat(filepath.Join(other, "here.txt")); err == nil {
		t.Errorf("written under the process cwd")
	}
	os.WriteFile(filepath.Join(other, "only-in-process-cwd.txt"), []byte("x"), 0o644)
	if res := runTool(t, env, NewRead(), map[string]any{"path": "only-in-process-cwd.txt"}); !res.IsError {
		t.Errorf("read found a file in the process cwd")
	}
}

func TestResolvePath(t *testing.T) {
	env := &Env{Cwd: "/work/proj", Environ: []string{"HOME=/old", "HOME=/home/u"}}
	tests := []struct{ in, want string }{
		{"a.txt", "/work/proj/a.txt"},
		{"../b", "/work/b"},
		{"/etc/hosts", "/etc/hosts"},
		{"~", "/home/u"},
		{"~/x", "/home/u/x"},
		{"~x", "/work/proj/~x"},
		{"@src/a.go", "/work/proj/src/a.go"},
		{"my\u00A0file", "/work/proj/my file"},
		{"", "/work/proj"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			if got := resolvePath(env, tc.in); got != tc.want {
				t.Errorf("resolvePath(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

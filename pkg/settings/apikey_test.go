package settings

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --api-key-file reads the key (one line end dropped), from the working
// folder when relative; --api-key alone is taken as given.
func TestAPIKey(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{"lf": "sk-1\n", "crlf": "sk-2\r\n", "bare": "sk-3", "cr": "sk-4\r",
		"two": "sk-5\n\n", "empty": "", "newline": "\n", "max": strings.Repeat("k", 64<<10), "over": strings.Repeat("k", 64<<10+1)} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "folder"), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ key, file, cwd, want string }{
		{key: "sk-0", want: "sk-0"},
		{file: "lf", cwd: dir, want: "sk-1"},
		{file: "crlf", cwd: dir, want: "sk-2"},
		{file: filepath.Join(dir, "bare"), cwd: "/nowhere", want: "sk-3"},
		{file: "max", cwd: dir, want: strings.Repeat("k", 64<<10)},
	} {
		got, err := APIKey(c.key, c.file, c.cwd)
		if err != nil || got != c.want {
			t.Errorf("APIKey(%q, %q): %.20q %v", c.key, c.file, got, err)
		}
	}
	for _, c := range []struct{ key, file, want string }{
		{key: "sk-0", file: "lf", want: `--api-key and --api-key-file both give the API key: pass one of them`},
		{file: "missing", want: `--api-key-file DIR/missing: no such file or directory`},
		{file: "folder", want: `--api-key-file DIR/folder is a folder, not a regular file: give a file that holds the key`},
		{file: "over", want: `--api-key-file DIR/over is over 64 KiB: give a file that holds only the key`},
		{file: "empty", want: `--api-key-file DIR/empty is empty: write the key into it`},
		{file: "newline", want: `--api-key-file DIR/newline is empty: write the key into it`},
		{file: "two", want: `the API key in --api-key-file DIR/two holds a control character (a line break?) at byte 4: set it without one`},
		{file: "cr", want: `the API key in --api-key-file DIR/cr holds a control character (a line break?) at byte 4: set it without one`},
	} {
		_, err := APIKey(c.key, c.file, dir)
		usage(t, c.file, err, strings.ReplaceAll(c.want, "DIR", dir))
	}
}

package tools

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"gopi/pkg/ai"
)

func numbered(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

func TestRead(t *testing.T) {
	env := testEnv(t)
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(env.Cwd, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("small.txt", "alpha\nbeta\ngamma")
	write("big.txt", numbered(2500))
	write("wide.txt", strings.Repeat(strings.Repeat("x", 99)+"\n", 1000)) // 100 KB
	write("longline.txt", "short\n"+strings.Repeat("y", 60*1024)+"\nafter")
	write("nul.bin", "abc\x00def")
	write("latin1.txt", strings.Repeat("caf\xe9 ", 100))
	write("crlf.txt", "a\r\nb\r\n")
	write("bad-utf8-sparse.txt", "ok \xff line\nnext\n")
	os.Mkdir(filepath.Join(env.Cwd, "dir"), 0o755)
	tests := []struct {
		name    string
		args    map[string]any
		wantErr bool
		want    []string
		exact   string
	}{
		{name: "whole file", args: map[string]any{"path": "small.txt"}, exact: "alpha\nbeta\ngamma"},
		{name: "offset limit", args: map[string]any{"path": "small.txt", "offset": 2, "limit": 1}, exact: "beta\n\n[1 more lines in file. Use offset=3 to continue.]"},
		{name: "offset to end", args: map[string]any{"path": "small.txt", "offset": 3}, exact: "gamma"},
		{name: "offset past end", args: map[string]any{"path": "small.txt", "offset": 4}, wantErr: true, want: []string{"Offset 4 is beyond end of file (3 lines total)"}},
		{name: "line limit notice", args: map[string]any{"path": "big.txt"}, want: []string{"line 2000\n\n[Showing lines 1-2000 of 2501. Use offset=2001 to continue.]"}},
		{name: "continue", args: map[string]any{"path": "big.txt", "offset": 2001}, want: []string{"line 2001\n", "line 2500\n"}},
		{name: "byte limit notice", args: map[string]any{"path": "wide.txt"}, want: []string{"[Showing lines 1-512 of 1001 (50.0KB limit). Use offset=513 to continue.]"}},
		{name: "long first line", args: map[string]any{"path": "longline.txt", "offset": 2}, want: []string{"[Line 2 is 60.0KB, exceeds 50.0KB limit. Use bash: sed -n '2p' longline.txt | head -c 51200]"}},
		{name: "long later line", args: map[string]any{"path": "longline.txt"}, want: []string{"short\n\n[Showing lines 1-1 of 3 (50.0KB limit). Use offset=2 to continue.]"}},
		{name: "crlf kept", args: map[string]any{"path": "crlf.txt"}, exact: "a\r\nb\r\n"},
		{name: "nul binary", args: map[string]any{"path": "nul.bin"}, wantErr: true, want: []string{"binary file", "NUL"}},
		{name: "latin1 binary", args: map[string]any{"path": "latin1.txt"}, wantErr: true, want: []string{"binary file", "UTF-8"}},
		{name: "few bad bytes replaced", args: map[string]any{"path": "bad-utf8-sparse.txt"}, exact: "ok \uFFFD line\nnext\n"},
		{name: "missing", args: map[string]any{"path": "nope.txt"}, wantErr: true, want: []string{"File not found: nope.txt"}},
		{name: "directory", args: map[string]any{"path": "dir"}, wantErr: true, want: []string{"is a folder"}},
		{name: "absolute path", args: map[string]any{"path": filepath.Join(env.Cwd, "small.txt"), "limit": 1}, want: []string{"alpha\n\n[2 more lines"}},
		{name: "at prefix", args: map[string]any{"path": "@small.txt"}, exact: "alpha\nbeta\ngamma"},
		{name: "tilde is HOME", args: map[string]any{"path": "~/small.txt"}, exact: "alpha\nbeta\ngamma"},
		{name: "missing path arg", args: map[string]any{}, wantErr: true, want: []string{"Invalid arguments for tool read", "path"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := runTool(t, env, NewRead(), tc.args)
			if res.IsError != tc.wantErr {
				t.Fatalf("IsError = %v: %s", res.IsError, clip(text(res)))
			}
			if tc.exact != "" && text(res) != tc.exact {
				t.Errorf("got %q, want %q", clip(text(res)), tc.exact)
			}
			wantContains(t, text(res), tc.want...)
		})
	}
}

func TestReadImages(t *testing.T) {
	env := testEnv(t)
	tests := []struct{ name, data, mime string }{
		{"a.png", "\x89PNG\r\n\x1a\n\x00\x00rest", "image/png"},
		{"a.jpg", "\xff\xd8\xff\xe0\x00\x10JFIF", "image/jpeg"},
		{"a.gif", "GIF89a\x01\x00", "image/gif"},
		{"a.webp", "RIFF\x10\x00\x00\x00WEBPVP8 ", "image/webp"},
		{"png-named.txt", "\x89PNG\r\n\x1a\nxyz", "image/png"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			os.WriteFile(filepath.Join(env.Cwd, tc.name), []byte(tc.data), 0o644)
			res := runTool(t, env, NewRead(), map[string]any{"path": tc.name})
			if res.IsError || len(res.Content) != 2 {
				t.Fatalf("result %+v", res)
			}
			img := res.Content[1]
			if res.Content[0].Text != "Read image file ["+tc.mime+"]" || img.Type != ai.TypeImage || img.MimeType != tc.mime {
				t.Errorf("content %+v", res.Content)
			}
			if got, _ := base64.StdEncoding.DecodeString(img.Data); string(got) != tc.data {
				t.Errorf("data round trip failed")
			}
		})
	}
}

// Reading an image while the model in use takes none says so in the
// result's details, as pi 1.6's read does: the model is asked at the
// call (a switch during a run is seen), the image stays in the result,
// and nothing is said when the model takes images or is not known.
func TestReadImageUnsupportedByModel(t *testing.T) {
	env := testEnv(t)
	os.WriteFile(filepath.Join(env.Cwd, "a.png"), []byte("\x89PNG\r\n\x1a\n\x00\x00rest"), 0o644)
	os.WriteFile(filepath.Join(env.Cwd, "a.txt"), []byte("text\n"), 0o644)
	details := func(path string) string {
		t.Helper()
		res := runTool(t, env, NewRead(), map[string]any{"path": path})
		if res.IsError {
			t.Fatalf("read %s: %+v", path, res)
		}
		if path == "a.png" && (len(res.Content) != 2 || res.Content[1].Type != ai.TypeImage) {
			t.Fatalf("read %s: the image is not in the result: %+v", path, res.Content)
		}
		if res.Details == nil {
			return ""
		}
		b, err := json.Marshal(res.Details)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if got := details("a.png"); got != "" {
		t.Errorf("no model known: details %s, want none", got)
	}
	inUse := ai.Info{ID: "o3-mini"}
	env.Model = func() ai.Info { return inUse }
	if got, want := details("a.png"), `{"imageUnsupportedByModel":"o3-mini"}`; got != want {
		t.Errorf("a model taking no images: details %s, want %s", got, want)
	}
	if got := details("a.txt"); got != "" {
		t.Errorf("a text file: details %s, want none", got)
	}
	inUse = ai.Info{ID: "gpt-4.1", Images: true}
	if got := details("a.png"); got != "" {
		t.Errorf("switched to a model taking images: details %s, want none", got)
	}
}

// TestReadBounded pins that read never loads a whole huge file or device:
// the bytes it allocates stay bounded (a time bound would fail on a loaded
// machine).
func TestReadBounded(t *testing.T) {
	env := testEnv(t)
	sparse := filepath.Join(env.Cwd, "sparse.txt")
	if err := os.WriteFile(sparse, []byte(numbered(3000)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(sparse, 200<<20); err != nil {
		t.Fatal(err)
	}
	allZero := filepath.Join(env.Cwd, "zeros")
	f, _ := os.Create(allZero)
	f.Truncate(200 << 20)
	f.Close()
	tests := []struct {
		name, path string
		wantErr    bool
		want       []string
	}{
		{"dev zero is a device", "/dev/zero", true, []string{"Cannot read /dev/zero: it is a character device, not a regular file"}},
		{"sparse zeros", "zeros", true, []string{"binary"}},
		{"sparse text head", "sparse.txt", false, []string{"line 2000\n\n[Showing lines 1-2000 of more than", "Use offset=2001 to continue.]"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			res := runTool(t, env, NewRead(), map[string]any{"path": tc.path})
			runtime.ReadMemStats(&after)
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 20<<20 {
				t.Errorf("allocated %d MB", grew>>20)
			}
			if res.IsError != tc.wantErr {
				t.Fatalf("IsError = %v: %s", res.IsError, clip(text(res)))
			}
			wantContains(t, text(res), tc.want...)
		})
	}
}

func TestReadCancelled(t *testing.T) {
	env := testEnv(t)
	os.WriteFile(filepath.Join(env.Cwd, "a.txt"), []byte("x"), 0o644)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res := runToolCtx(t, ctx, env, NewRead(), map[string]any{"path": "a.txt"}, nil)
	if !res.IsError || text(res) != errAborted {
		t.Fatalf("got %+v", res)
	}
}

// TestReadBinaryEdges pins what decides a binary file: the first 8 KiB
// only, a NUL in them, or more than one byte in ten not UTF-8; a
// character cut by the end of those 8 KiB is not counted as invalid.
func TestReadBinaryEdges(t *testing.T) {
	ascii := func(n int) string { return strings.Repeat(strings.Repeat("a", 63)+"\n", n/64+1)[:n] }
	bad := strings.Repeat("\xff", 819)
	for _, tc := range []struct {
		name   string
		data   string
		binary bool
	}{
		{"NUL as the 8192nd byte", ascii(8191) + "\x00rest\n", true},
		{"NUL as the 8193rd byte", ascii(8192) + "\x00rest\n", false},
		{"one byte in ten invalid", strings.Repeat("\xff", 10) + ascii(90), false},
		{"eleven bytes in a hundred invalid", strings.Repeat("\xff", 11) + ascii(89), true},
		{"819 invalid in 8 KiB and a character cut at its end", bad + ascii(8191-819) + "é and more\n", false},
		{"820 invalid in 8 KiB", bad + "\xff" + ascii(8191-820) + "é and more\n", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := testEnv(t)
			if err := os.WriteFile(filepath.Join(env.Cwd, "f"), []byte(tc.data), 0o644); err != nil {
				t.Fatal(err)
			}
			res := runTool(t, env, NewRead(), map[string]any{"path": "f"})
			if got := res.IsError && strings.Contains(text(res), "looks like a binary file"); got != tc.binary {
				t.Errorf("binary %v, want %v: %q", got, tc.binary, clip(text(res)))
			}
		})
	}
}

//go:build unix

package resources

import (
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"
	"time"
)

// readLimit bounds how long a test waits for ReadFile: a read that
// blocks (the bug: a named pipe opened without O_NONBLOCK) fails the test
// instead of hanging it.
const readLimit = 30 * time.Second

func readWithin(t *testing.T, fsys fs.FS, p string, limit int64) ([]byte, error) {
	t.Helper()
	type result struct {
		b   []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		b, err := ReadFile(fsys, p, limit)
		done <- result{b, err}
	}()
	select {
	case r := <-done:
		return r.b, r.err
	case <-time.After(readLimit):
		t.Fatalf("ReadFile(%s) still blocked after %v", p, readLimit)
		return nil, nil
	}
}

// special makes a named pipe, a socket, a link to /dev/zero and files at
// and over the bound in a temporary folder.
func special(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", filepath.Join(dir, "sock"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	for name, target := range map[string]string{"zero": "/dev/zero", "fifo-link": filepath.Join(dir, "fifo")} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	for name, size := range map[string]int{"at-bound": 1000, "over-bound": 1001} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(strings.Repeat("x", size)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestReadFileRefusesWhatIsNotASmallRegularFile(t *testing.T) {
	t.Parallel()
	dir := special(t)
	tests := []struct{ name, want string }{
		{"fifo", "is a named pipe (FIFO), not a regular file"},
		{"fifo-link", "is a named pipe (FIFO), not a regular file"},
		{"sock", "is a socket, not a regular file"},
		{"zero", "is a character device, not a regular file"},
		{"over-bound", "is 1001 bytes, larger than the 1000 bytes allowed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, fsys := range []fs.FS{nil, os.DirFS("/")} {
				b, err := readWithin(t, fsys, filepath.Join(dir, tt.name), 1000)
				if !errors.Is(err, ErrRefused) || err.Error() != tt.want {
					t.Fatalf("fs %v: got %d bytes, error %v; want refused: %s", fsys, len(b), err, tt.want)
				}
			}
		})
	}
	b, err := readWithin(t, nil, filepath.Join(dir, "at-bound"), 1000)
	if err != nil || len(b) != 1000 {
		t.Fatalf("a file at the bound: %d bytes, %v", len(b), err)
	}
	if _, err := readWithin(t, nil, filepath.Join(dir, "missing"), 1000); !errors.Is(err, fs.ErrNotExist) || errors.Is(err, ErrRefused) {
		t.Fatalf("a missing file: %v, want not-exist (not refused)", err)
	}
}

// refusedProject makes a repository whose AGENTS.md, SYSTEM.md and one
// template are named pipes, whose APPEND_SYSTEM.md is a link to /dev/zero,
// and whose one skill and one template are over MaxFileSize, next to a
// usable CLAUDE.md, skill and template.
func refusedProject(t *testing.T) string {
	t.Helper()
	proj := filepath.Join(t.TempDir(), "proj")
	big := strings.Repeat("x", MaxFileSize+1)
	files := map[string]string{
		".git/HEAD":                  "ref: refs/heads/main\n",
		"CLAUDE.md":                  "the CLAUDE.md next to the refused AGENTS.md",
		".gopi/skills/big/SKILL.md":  "---\ndescription: huge\n---\n" + big,
		".gopi/skills/fine/SKILL.md": "---\ndescription: a usable skill\n---\nbody",
		".gopi/prompts/big.md":       big,
		".gopi/prompts/fine.md":      "fine $1",
	}
	for name, data := range files {
		p := filepath.Join(proj, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"AGENTS.md", ".gopi/prompts/pipe.md", ".gopi/SYSTEM.md"} {
		if err := syscall.Mkfifo(filepath.Join(proj, name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("/dev/zero", filepath.Join(proj, ".gopi", "APPEND_SYSTEM.md")); err != nil {
		t.Fatal(err)
	}
	return proj
}

// Every kind of discovered resource that is a named pipe, a device or
// over MaxFileSize is skipped with its path and why, and the rest still
// loads.
func TestLoadSkipsRefusedResources(t *testing.T) {
	t.Parallel()
	proj := refusedProject(t)
	done := make(chan error, 1)
	var c *Catalog
	go func() {
		var err error
		c, err = Load(Options{Cwd: proj, Now: fixedNow, ActiveTools: []string{"read"}})
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(readLimit):
		t.Fatalf("Load still blocked after %v", readLimit)
	}
	wants := map[string]string{
		"AGENTS.md":                 "is a named pipe (FIFO), not a regular file; make it a regular file of at most 1 MiB, or remove it",
		".gopi/SYSTEM.md":           "is a named pipe (FIFO), not a regular file",
		".gopi/APPEND_SYSTEM.md":    "is a character device, not a regular file",
		".gopi/prompts/pipe.md":     "is a named pipe (FIFO), not a regular file",
		".gopi/prompts/big.md":      "larger than the 1 MiB allowed",
		".gopi/skills/big/SKILL.md": "larger than the 1 MiB allowed",
	}
	for name, want := range wants {
		if !hasSkip(c, kindFor(name), filepath.Join(proj, name), want) {
			t.Errorf("%s is not skipped with %q:\n%s", name, want, listing(c))
		}
	}
	if len(c.ContextFiles) != 1 || !strings.Contains(c.ContextFiles[0].Content, "next to the refused") {
		t.Errorf("context files %+v: want the CLAUDE.md beside the refused AGENTS.md", c.ContextFiles)
	}
	if len(c.Skills) != 1 || c.Skills[0].Name != "fine" || len(c.Templates) != 1 || c.Templates[0].Name != "fine" {
		t.Errorf("the usable skill and template did not load:\n%s", listing(c))
	}
	if c.Base != "" || c.Append != "" {
		t.Errorf("base %q append %q: the refused files were used", c.Base, c.Append)
	}
}

// A --system-prompt naming a refused file is an error, not text.
func TestPromptFlagNamingARefusedFileIsAnError(t *testing.T) {
	t.Parallel()
	proj := refusedProject(t)
	for _, opts := range []Options{
		{Cwd: proj, SystemPrompt: ".gopi/SYSTEM.md"},
		{Cwd: proj, AppendSystemPrompt: filepath.Join(proj, ".gopi", "prompts", "big.md")},
	} {
		_, err := Load(opts)
		var pe *PromptFileError
		if !errors.As(err, &pe) || !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "names "+proj) {
			t.Errorf("Load(%+v): %v, want a PromptFileError naming the file", opts, err)
		}
	}
}

func kindFor(name string) Kind {
	switch {
	case strings.Contains(name, "APPEND_SYSTEM.md"):
		return KindAppend
	case strings.Contains(name, "SYSTEM.md"):
		return KindSystem
	case strings.Contains(name, "/skills/"):
		return KindSkill
	case strings.Contains(name, "/prompts/"):
		return KindTemplate
	}
	return KindContext
}

// The project's .gopi and .pi folders are found from any folder below the
// repository root, nearest first, .gopi before .pi; nothing above the
// root is read, and a .gopi folder that is $GOPI_HOME stays the user's.
func TestProjectFoldersWalkUpToTheRepositoryRoot(t *testing.T) {
	t.Parallel()
	skill := func(desc string) *fstest.MapFile {
		return &fstest.MapFile{Data: []byte("---\ndescription: " + desc + "\n---\nbody\n")}
	}
	text := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	fsys := fstest.MapFS{
		"w/.gopi/skills/outside/SKILL.md":  skill("above the repository root"),
		"w/.gopi/prompts/outside.md":       text("above the root"),
		"w/r/.git/HEAD":                    text("ref: refs/heads/main"),
		"w/r/.gopi/skills/deploy/SKILL.md": skill("the root's deploy"),
		"w/r/.gopi/skills/lint/SKILL.md":   skill("the root's lint"),
		"w/r/.gopi/prompts/review.md":      text("root review"),
		"w/r/.gopi/prompts/fix.md":         text("root fix"),
		"w/r/.gopi/SYSTEM.md":              text("root system"),
		"w/r/.pi/skills/deploy/SKILL.md":   skill("pi's deploy"),
		"w/r/.pi/skills/pionly.md":         skill("a pi-only skill"),
		"w/r/.pi/prompts/fix.md":           text("pi fix"),
		"w/r/.pi/prompts/pitpl.md":         text("pi template"),
		"w/r/.pi/APPEND_SYSTEM.md":         text("pi append"),
		"w/r/a/.gopi/prompts/review.md":    text("nearer review"),
		"w/r/a/.pi/skills/lint/SKILL.md":   skill("a nearer pi lint"),
		"w/r/a/b/keep":                     text("x"),
	}
	c := mustLoad(t, Options{FS: fsys, Cwd: "/w/r/a/b", Now: fixedNow})
	var got []string
	for _, it := range c.Found {
		got = append(got, string(it.Kind)+" "+it.Name+" "+it.Path)
	}
	want := []string{
		"system  /w/r/.gopi/SYSTEM.md",
		"append  /w/r/.pi/APPEND_SYSTEM.md",
		"skill deploy /w/r/.gopi/skills/deploy/SKILL.md",
		"skill lint /w/r/.gopi/skills/lint/SKILL.md",
		"skill pionly /w/r/.pi/skills/pionly.md",
		"template review /w/r/a/.gopi/prompts/review.md",
		"template fix /w/r/.gopi/prompts/fix.md",
		"template pitpl /w/r/.pi/prompts/pitpl.md",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("found\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, shadowed := range []string{"/w/r/.pi/skills/deploy/SKILL.md", "/w/r/a/.pi/skills/lint/SKILL.md", "/w/r/.gopi/prompts/review.md", "/w/r/.pi/prompts/fix.md"} {
		if !hasSkip(c, kindFor(shadowed), shadowed, "is already taken by") {
			t.Errorf("%s is not listed as shadowed:\n%s", shadowed, listing(c))
		}
	}

	// outside a repository only the working directory's own folders count
	// (a .gopi in a shared parent such as /tmp is not the project's), and a
	// .gopi folder that is $GOPI_HOME is the user's, read once as such
	home := fstest.MapFS{
		"h/.gopi/skills/mine/SKILL.md":      skill("the user's"),
		"h/src/.gopi/skills/above/SKILL.md": skill("a parent's, outside any repository"),
		"h/src/x/.pi/skills/here/SKILL.md":  skill("the working directory's"),
	}
	c = mustLoad(t, Options{FS: home, Cwd: "/h/src/x", GopiHome: "/h/.gopi", Now: fixedNow})
	if got := skillSources(c); got != "here:project mine:user" || len(c.Skipped) != 0 {
		t.Errorf("skills %s, want here:project mine:user\n%s", got, listing(c))
	}
	c = mustLoad(t, Options{FS: home, Cwd: "/h", GopiHome: "/h/.gopi", Now: fixedNow})
	if got := skillSources(c); got != "mine:user" || len(c.Skipped) != 0 {
		t.Errorf("skills %s, want mine:user\n%s", got, listing(c))
	}
}

func skillSources(c *Catalog) string {
	var got []string
	for _, s := range c.Skills {
		got = append(got, s.Name+":"+s.Source)
	}
	return strings.Join(got, " ")
}

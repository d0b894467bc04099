package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
)

// expectTimeout bounds every wait for output; a slow race-enabled
// binary stays well within it.
const expectTimeout = 30 * time.Second

// gopiBinary is the binary the chat tests drive: the copy of the test
// binary that TestMain (testscript) put in PATH as gopi, or, when the
// tests run without it, one built here.
func gopiBinary(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("gopi"); err == nil && strings.Contains(p, "testscript-main") {
		return p
	}
	bin := filepath.Join(t.TempDir(), "gopi")
	if out, err := exec.Command("go", "build", "-o", bin, "gopi").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// chatEnv is one test's folders: the working directory, HOME and GOPI_HOME.
type chatEnv struct {
	dir, home, gopiHome string
	extra               []string // further variables, NAME=value
}

func newChatEnv(t *testing.T) chatEnv {
	t.Helper()
	root := t.TempDir()
	e := chatEnv{dir: filepath.Join(root, "work"), home: filepath.Join(root, "home"), gopiHome: filepath.Join(root, "gopihome")}
	for _, d := range []string{e.dir, e.home, e.gopiHome} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

func (e chatEnv) environ() []string {
	return append([]string{"HOME=" + e.home, "GOPI_HOME=" + e.gopiHome, "PATH=" + os.Getenv("PATH"), "TERM=xterm", "NO_COLOR=1"}, e.extra...)
}

// script writes a faux model script and returns its path.
func (e chatEnv) script(t *testing.T, js string) string {
	t.Helper()
	p := filepath.Join(e.home, "script.json")
	if err := os.WriteFile(p, []byte(js), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// ptyProc is gopi running in a pseudo-terminal, with an expect-style
// reader of its output.
type ptyProc struct {
	t       *testing.T
	cmd     *exec.Cmd
	tty     *os.File
	mu      sync.Mutex
	out     []byte
	seen    int // output before this offset was matched already
	changed chan struct{}
	done    chan struct{}
	exit    error
}

func startPty(t *testing.T, e chatEnv, args ...string) *ptyProc {
	t.Helper()
	cmd := exec.Command(gopiBinary(t), args...)
	cmd.Dir, cmd.Env = e.dir, e.environ()
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 120})
	if err != nil {
		t.Fatal(err)
	}
	p := &ptyProc{t: t, cmd: cmd, tty: tty, changed: make(chan struct{}, 1), done: make(chan struct{})}
	go p.read()
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			_ = p.cmd.Process.Kill()
			<-p.done
		}
		tty.Close()
	})
	return p
}

func (p *ptyProc) read() {
	buf := make([]byte, 4096)
	for {
		n, err := p.tty.Read(buf)
		p.mu.Lock()
		p.out = append(p.out, buf[:n]...)
		p.mu.Unlock()
		select {
		case p.changed <- struct{}{}:
		default:
		}
		if err != nil {
			p.exit = p.cmd.Wait()
			close(p.done)
			return
		}
	}
}

// expect waits until s appears in the output after what was matched so
// far, and moves past it.
func (p *ptyProc) expect(s string) {
	p.t.Helper()
	deadline := time.After(expectTimeout)
	for {
		p.mu.Lock()
		i := bytes.Index(p.out[p.seen:], []byte(s))
		if i >= 0 {
			p.seen += i + len(s)
		}
		p.mu.Unlock()
		if i >= 0 {
			return
		}
		select {
		case <-p.changed:
		case <-p.done:
			p.mu.Lock()
			found := bytes.Contains(p.out[p.seen:], []byte(s))
			p.mu.Unlock()
			if !found {
				p.t.Fatalf("gopi exited (%v) before %q appeared; output:\n%s", p.exit, s, p.screen())
			}
		case <-deadline:
			p.t.Fatalf("no %q within %s; output:\n%s", s, expectTimeout.String(), p.screen())
		}
	}
}

// screen is the output so far without terminal control sequences.
func (p *ptyProc) screen() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return regexp.MustCompile(`\x1b\[[0-9;?]*[a-zA-Z]`).ReplaceAllString(string(p.out), "")
}

func (p *ptyProc) send(s string) {
	p.t.Helper()
	if _, err := p.tty.Write([]byte(s)); err != nil {
		p.t.Fatal(err)
	}
}

// wait waits for the process to exit and returns its exit code.
func (p *ptyProc) wait() int {
	p.t.Helper()
	select {
	case <-p.done:
	case <-time.After(expectTimeout):
		p.t.Fatalf("gopi did not exit; output:\n%s", p.screen())
	}
	var ee *exec.ExitError
	if errors.As(p.exit, &ee) {
		return ee.ExitCode()
	}
	if p.exit != nil {
		p.t.Fatal(p.exit)
	}
	return 0
}

// entry is a session line as the chat tests read it.
type entry struct {
	Type     string `json:"type"`
	ID       string `json:"id"`
	ParentID string `json:"parentId"`
	Message  *struct {
		Role       string `json:"role"`
		StopReason string `json:"stopReason"`
		Content    any    `json:"content"`
	} `json:"message"`
}

func (e entry) role() string {
	if e.Message == nil {
		return ""
	}
	return e.Message.Role
}

// text is the message's text blocks joined.
func (e entry) text() string {
	if e.Message == nil {
		return ""
	}
	if s, ok := e.Message.Content.(string); ok {
		return s
	}
	var parts []string
	blocks, _ := e.Message.Content.([]any)
	for _, b := range blocks {
		if m, ok := b.(map[string]any); ok && m["type"] == "text" {
			parts = append(parts, m["text"].(string))
		}
	}
	return strings.Join(parts, "")
}

// sessionEntries reads the one session file under GOPI_HOME and checks
// that every entry's parent is in it.
func sessionEntries(t *testing.T, e chatEnv) (string, []entry) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(e.gopiHome, "sessions", "*", "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("want one session file, found %v", files)
	}
	f, err := os.Open(files[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []entry
	ids := map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var en entry
		if err := json.Unmarshal(sc.Bytes(), &en); err != nil {
			t.Fatalf("session line %q: %v", sc.Text(), err)
		}
		if en.Type == "session" {
			continue
		}
		if en.ParentID != "" && !ids[en.ParentID] {
			t.Fatalf("entry %s has an unknown parent %s", en.ID, en.ParentID)
		}
		ids[en.ID] = true
		out = append(out, en)
	}
	return files[0], out
}

// find returns the index of the first entry with role and text.
func find(t *testing.T, es []entry, role, text string) int {
	t.Helper()
	for i, e := range es {
		if e.role() == role && strings.Contains(e.text(), text) {
			return i
		}
	}
	t.Fatalf("no %s entry with %q in %+v", role, text, es)
	return -1
}

//go:build unix

package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chzyer/readline"
	"github.com/creack/pty"

	"gopi/pkg/exitcode"
)

// A panic of the chat's display after set-up (it asks the terminal's
// width as it draws the run's events, on the Agent's goroutine, which
// recovers a subscriber's panic) ends the chat: exit 1 with the panic on
// stderr, the terminal's modes restored, and the session file whole,
// with what was written before. The chat does not go on waiting for
// input under a display that no longer works.
func TestChatDisplayPanicExitsInternal(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	defer tty.Close()
	if err := pty.Setsize(ptmx, &pty.Winsize{Rows: 40, Cols: 120}); err != nil {
		t.Fatal(err)
	}
	cooked, err := readline.GetState(int(tty.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	var boom atomic.Bool
	old := chatWidth
	chatWidth = func() int {
		if boom.Load() {
			panic("the terminal went away")
		}
		return 120
	}
	defer func() { chatWidth = old }()

	home, cwd := t.TempDir(), t.TempDir()
	script := filepath.Join(home, "script.json")
	if err := os.WriteFile(script, []byte(`[{"text": "first answer"}, {"text": "second answer"}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(cwd, "s.jsonl")
	var stderr bytes.Buffer
	sys := System{Stdin: tty, Stdout: tty, Stderr: &stderr, StdinTTY: true, StdoutTTY: true,
		Environ: []string{"HOME=" + home, "GOPI_HOME=" + filepath.Join(home, ".gopi"), "NO_COLOR=1", "TERM=xterm"},
		Getwd:   func() (string, error) { return cwd, nil }, Now: time.Now}
	code := make(chan int, 1)
	go func() {
		code <- Main([]string{"chat", "--provider", "faux", "--model", script, "--no-tools", "--session", file}, sys)
	}()

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var mu sync.Mutex
	var seen []byte
	changed := make(chan struct{}, 1)
	read := make(chan struct{})
	go func() {
		defer close(read)
		buf := make([]byte, 4096)
		for {
			n, err := ptmx.Read(buf)
			mu.Lock()
			seen = append(seen, buf[:n]...)
			mu.Unlock()
			select {
			case changed <- struct{}{}:
			default:
			}
			if err != nil {
				return
			}
		}
	}()
	// The reader ends when the last descriptor of the terminal closes.
	// The line editor's reader, stopped, still waits in a read of it:
	// a line typed ends that read.
	defer func() {
		tty.Close()
		ptmx.WriteString("\n")
		select {
		case <-read:
		case <-time.After(30 * time.Second):
			t.Error("the terminal is still read after the chat ended")
		}
	}()
	expect := func(s string) {
		t.Helper()
		for {
			mu.Lock()
			ok := bytes.Contains(seen, []byte(s))
			mu.Unlock()
			if ok {
				return
			}
			select {
			case <-changed:
			case c := <-code:
				t.Fatalf("gopi exited %d before %q showed; stderr %q", c, s, stderr.String())
			case <-ctx.Done():
				mu.Lock()
				defer mu.Unlock()
				t.Fatalf("no %q; output %q", s, seen)
			}
		}
	}
	expect("› ")
	if raw, err := readline.GetState(int(tty.Fd())); err != nil || reflect.DeepEqual(raw, cooked) {
		t.Fatalf("the terminal is not raw during the chat (%v)", err)
	}
	if _, err := ptmx.WriteString("hello\r"); err != nil {
		t.Fatal(err)
	}
	expect("first answer")
	expect("ctx ")
	boom.Store(true)
	if _, err := ptmx.WriteString("again\r"); err != nil {
		t.Fatal(err)
	}
	var c int
	select {
	case c = <-code:
	case <-ctx.Done():
		ptmx.WriteString("\x04") // Ctrl-D ends a chat still waiting for input, so the test ends
		t.Fatal("the chat did not exit after its display panicked")
	}
	if c != exitcode.Internal || !strings.Contains(stderr.String(), "gopi: internal error") || !strings.Contains(stderr.String(), "the terminal went away") {
		t.Fatalf("exit %d, stderr %q; want %d and the panic", c, stderr.String(), exitcode.Internal)
	}
	if after, err := readline.GetState(int(tty.Fd())); err != nil || !reflect.DeepEqual(after, cooked) {
		t.Errorf("the terminal's modes were not restored (%v)", err)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasSuffix(data, []byte("\n")) {
		t.Errorf("the session file ends in a torn line:\n%s", data)
	}
	var texts []string
	for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		var e struct {
			Message *struct {
				Role    string `json:"role"`
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"message"`
		}
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("a session line is not JSON (%v): %s", err, line)
		}
		if e.Message != nil && len(e.Message.Content) > 0 {
			texts = append(texts, e.Message.Role+": "+e.Message.Content[0].Text)
		}
	}
	if len(texts) < 2 || texts[0] != "user: hello" || texts[1] != "assistant: first answer" {
		t.Errorf("session messages %q, want the first exchange kept", texts)
	}
}

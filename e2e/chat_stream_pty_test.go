package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"
)

// heldProvider is a fake Anthropic server for a chat test, playing
// replies (fakeprovider_test.go's kinds: slow and hold keep the stream
// open until the chat aborts it).
func heldProvider(t *testing.T, e chatEnv, replies string) []string {
	t.Helper()
	p := newFakeProvider(filepath.Join(e.home, "requests"))
	t.Cleanup(p.srv.Close)
	if err := p.load(replies); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.gopiHome, "settings.json"), []byte(`{"retry": {"maxAttempts": 1}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	return []string{"chat", "--provider", "anthropic", "--model", "claude-sonnet-4-5", "--base-url", p.srv.URL, "--api-key", "sk-ant-test-key"}
}

// expectMatch waits until re matches the output without control
// sequences.
func (p *ptyProc) expectMatch(re *regexp.Regexp) {
	p.t.Helper()
	deadline := time.Now().Add(expectTimeout)
	for !re.MatchString(p.screen()) {
		if time.Now().After(deadline) {
			p.t.Fatalf("no match for %s within %s; output:\n%s", re, expectTimeout, p.screen())
		}
		select {
		case <-p.changed:
		case <-p.done:
			if !re.MatchString(p.screen()) {
				p.t.Fatalf("gopi exited (%v) before %s matched; output:\n%s", p.exit, re, p.screen())
			}
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// The answer streams: its first words show while the stream is still
// open (the fake server sends them and holds the rest), not a terminal
// line at a time. (gopi chat --help says the answer streams; a line was
// written only once its newline or the answer's end arrived.)
func TestChatStreamsTheAnswerAsItArrives(t *testing.T) {
	t.Parallel()
	e := newChatEnv(t)
	args := heldProvider(t, e, "slow Partial words of an answer still arriving")
	p := startPty(t, e, args...)
	p.expect("/help")
	p.send("tell me\r")
	p.expect("Partial words of an answer still arriving")
	p.send("\x03") // the stream never ends: abort it
	p.expect("aborted")
	p.expect("ctx ")
	p.send("\x04")
	if code := p.wait(); code != 0 {
		t.Fatalf("exit %d; output:\n%s", code, p.screen())
	}
}

// Before the first token there is a sign of life: a spinner saying the
// model is thinking, and one naming the tool while a tool runs. (Nothing
// showed until the first line of the answer.)
func TestChatShowsASpinnerWhileWaiting(t *testing.T) {
	t.Parallel()
	e := newChatEnv(t)
	args := heldProvider(t, e, "hold")
	p := startPty(t, e, args...)
	p.expect("/help")
	p.send("are you there\r")
	p.expectMatch(regexp.MustCompile(`[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] thinking…`))
	p.send("\x03")
	p.expect("aborted")
	p.expect("ctx ")

	sc := e.script(t, `[{"toolCalls": [{"name": "bash", "arguments": {"command": "sleep 60"}}]}]`)
	p2 := startPty(t, e, "chat", "--provider", "faux", "--model", sc)
	p2.expect("/help")
	p2.send("wait for it\r")
	p2.expectMatch(regexp.MustCompile(`[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] bash: sleep 60`))
	p2.send("\x03")
	p2.expect("aborted")
	p2.send("\x04")
	p.send("\x04")
	for _, q := range []*ptyProc{p, p2} {
		if code := q.wait(); code != 0 {
			t.Fatalf("exit %d; output:\n%s", code, q.screen())
		}
	}
}

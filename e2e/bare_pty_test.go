package e2e

import (
	"strings"
	"testing"
)

// Bare gopi with chat's flags on a terminal chats with them (the root
// command refused every flag).
func TestBareGopiWithFlagsChatsOnATerminal(t *testing.T) {
	t.Parallel()
	e := newChatEnv(t)
	sc := e.script(t, `[{"text": "chatting with flags"}]`)
	p := startPty(t, e, "--provider", "faux", "--model", sc, "--no-tools", "--sandbox", "read-only")
	p.expect("gopi chat · faux/")
	p.expect(" · sandbox read-only · ")
	p.send("hello\r")
	p.expect("chatting with flags")
	p.expect("ctx ")
	p.send("\x04")
	if code := p.wait(); code != 0 {
		t.Fatalf("exit %d; output:\n%s", code, p.screen())
	}
	_, es := sessionEntries(t, e)
	find(t, es, "user", "hello")
}

// Bare gopi with a prompt on a terminal starts a chat with it, as pi does;
// so does gopi chat PROMPT.
func TestAPromptOnATerminalStartsTheChat(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{}, {"chat"}} {
		e := newChatEnv(t)
		sc := e.script(t, `[{"text": "first answer"}, {"text": "second answer"}]`)
		p := startPty(t, e, append(args, "--provider", "faux", "--model", sc, "why", "is", "the", "build", "red?")...)
		p.expect("gopi chat · faux/")
		p.expect("› why is the build red?")
		p.expect("first answer")
		p.expect("ctx ")
		p.send("and then?\r")
		p.expect("second answer")
		p.expect("ctx ")
		p.send("\x04")
		if code := p.wait(); code != 0 {
			t.Fatalf("gopi %v: exit %d; output:\n%s", args, code, p.screen())
		}
		_, es := sessionEntries(t, e)
		first, answer := find(t, es, "user", "why is the build red?"), find(t, es, "assistant", "first answer")
		if es[answer].ParentID != es[first].ID {
			t.Fatalf("gopi %v: the first prompt is not the one answered: %+v", args, es)
		}
	}
}

// A flag only run has asks for a run, also on a terminal.
func TestBareGopiWithJSONRunsOnATerminal(t *testing.T) {
	t.Parallel()
	e := newChatEnv(t)
	sc := e.script(t, `[{"text": "ran, not chatted"}]`)
	p := startPty(t, e, "--provider", "faux", "--model", sc, "--json", "a prompt")
	p.expect(`"type":"result"`)
	if code := p.wait(); code != 0 {
		t.Fatalf("exit %d; output:\n%s", code, p.screen())
	}
	if strings.Contains(p.screen(), "gopi chat ·") || !strings.Contains(p.screen(), "ran, not chatted") {
		t.Fatalf("not a run:\n%s", p.screen())
	}
}

// pi's -p (--print) runs the prompt and exits, also on a terminal.
func TestBareGopiWithPrintRunsOnATerminal(t *testing.T) {
	t.Parallel()
	for _, flag := range []string{"-p", "--print"} {
		e := newChatEnv(t)
		sc := e.script(t, `[{"text": "printed, not chatted"}]`)
		p := startPty(t, e, flag, "--provider", "faux", "--model", sc, "a prompt")
		p.expect("printed, not chatted")
		if code := p.wait(); code != 0 {
			t.Fatalf("%s: exit %d; output:\n%s", flag, code, p.screen())
		}
		if strings.Contains(p.screen(), "gopi chat ·") {
			t.Fatalf("%s: a chat, not a run:\n%s", flag, p.screen())
		}
	}
}

// A provider's error is said once, with its class (the answer's own
// error line and the run's report both said it).
func TestChatSaysAProviderErrorOnce(t *testing.T) {
	t.Parallel()
	e := newChatEnv(t)
	sc := e.script(t, `[{"text": "partial", "error": "the server fell over"}]`)
	p := startPty(t, e, "chat", "--provider", "faux", "--model", sc)
	p.expect("/help")
	p.send("hello\r")
	p.expect("the server fell over")
	p.expect("ctx ")
	p.send("/model nowhere/x\r")
	p.expect(`unknown provider "nowhere"`)
	p.send("/leaf zzzz\r")
	p.expect("/leaf: ")
	p.send("\x04")
	if code := p.wait(); code != 0 {
		t.Fatalf("exit %d; output:\n%s", code, p.screen())
	}
	screen := p.screen()
	for _, msg := range []string{"the server fell over", `unknown provider "nowhere"`, `no entry "zzzz"`} {
		if n := strings.Count(screen, msg); n != 1 {
			t.Errorf("%q said %d times:\n%s", msg, n, screen)
		}
	}
	if !strings.Contains(screen, "error: server: the server fell over") {
		t.Errorf("the error does not name its class once:\n%s", screen)
	}
}

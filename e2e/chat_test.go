package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gopi/pkg/sandbox"
)

func TestChatConversationOfTwoPrompts(t *testing.T) {
	t.Parallel()
	e := newChatEnv(t)
	sc := e.script(t, `[{"thinking": "pondering the question deeply", "text": "first answer"}, {"text": "second answer"}]`)
	p := startPty(t, e, "chat", "--provider", "faux", "--model", sc)
	p.expect("/help")
	p.send("hello there\r")
	p.expect("∴ thinking (4 words): pondering the question deeply")
	p.expect("first answer")
	p.expect("ctx ")
	p.send("and again\r")
	p.expect("second answer")
	p.expect("ctx ")
	p.send("/session\r")
	p.expect("tokens  ↑")
	p.send("\x04")
	if code := p.wait(); code != 0 {
		t.Fatalf("exit %d; output:\n%s", code, p.screen())
	}
	_, es := sessionEntries(t, e)
	u1, a1 := find(t, es, "user", "hello there"), find(t, es, "assistant", "first answer")
	u2, a2 := find(t, es, "user", "and again"), find(t, es, "assistant", "second answer")
	if !(u1 < a1 && a1 < u2 && u2 < a2) || es[u2].ParentID != es[a1].ID || es[a2].ParentID != es[u2].ID {
		t.Fatalf("not one conversation: %+v", es)
	}
}

func TestChatSteeringWhileAToolRuns(t *testing.T) {
	t.Parallel()
	e := newChatEnv(t)
	sc := e.script(t, `[{"toolCalls": [{"name": "bash", "arguments": {"command": "sleep 1"}}]}, {"text": "steered answer"}]`)
	p := startPty(t, e, "chat", "--provider", "faux", "--model", sc)
	p.expect("/help")
	p.send("run the slow thing\r")
	p.expect("[bash: sleep 1] steer ›")
	p.send("also look at the docs\r")
	p.expect("queued (steering): also look at the docs")
	p.expect("✓ bash: sleep 1")
	p.expect("› also look at the docs")
	p.expect("steered answer")
	p.expect("ctx ")
	p.send("\x04")
	if code := p.wait(); code != 0 {
		t.Fatalf("exit %d; output:\n%s", code, p.screen())
	}
	_, es := sessionEntries(t, e)
	tool := find(t, es, "toolResult", "")
	steer := find(t, es, "user", "also look at the docs")
	answer := find(t, es, "assistant", "steered answer")
	if !(tool < steer && steer < answer) || es[steer].ParentID != es[tool].ID {
		t.Fatalf("the steering is not between the tool result and the answer: %+v", es)
	}
}

func TestChatCtrlCAbortsMidStreamAndTheSessionResumes(t *testing.T) {
	t.Parallel()
	e := newChatEnv(t)
	sc := e.script(t, `[{"text": "line one\nline two\nline three\nline four\nline five\nline six\n", "chunkSize": 9, "delayMs": 150}]`)
	p := startPty(t, e, "chat", "--provider", "faux", "--model", sc)
	p.expect("/help")
	p.send("tell me a long story\r")
	p.expect("line one")
	p.send("\x03")
	p.expect("aborted")
	p.expect("ctx ")
	p.send("carry on\r") // the script is played out: the model echoes
	p.expect("carry on")
	p.expect("ctx ")
	p.send("\x03")
	p.expect("press Ctrl-C again")
	p.send("\x03")
	if code := p.wait(); code != 0 {
		t.Fatalf("exit %d; output:\n%s", code, p.screen())
	}
	file, es := sessionEntries(t, e)
	aborted := find(t, es, "assistant", "line one")
	if es[aborted].Message.StopReason != "aborted" || strings.Contains(es[aborted].text(), "line six") {
		t.Fatalf("the aborted answer: %+v", es[aborted])
	}
	next := find(t, es, "user", "carry on")
	if es[next].ParentID != es[aborted].ID {
		t.Fatalf("the next prompt does not continue from the aborted answer: %+v", es)
	}
	echo := e.script(t, `[]`)
	run := exec.Command(gopiBinary(t), "run", "--provider", "faux", "--model", echo, "--session", file, "-c", "resumed fine")
	run.Dir, run.Env = e.dir, e.environ()
	out, err := run.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "resumed fine") {
		t.Fatalf("resume: %v\n%s", err, out)
	}
}

func TestChatTreeThenLeafBranches(t *testing.T) {
	t.Parallel()
	e := newChatEnv(t)
	sc := e.script(t, `[{"text": "answer one"}, {"text": "answer two"}]`)
	p := startPty(t, e, "chat", "--provider", "faux", "--model", sc)
	p.expect("/help")
	p.send("first\r")
	p.expect("answer one")
	p.expect("ctx ")
	p.send("second\r")
	p.expect("answer two")
	p.expect("ctx ")
	_, es := sessionEntries(t, e)
	branchFrom := es[find(t, es, "assistant", "answer one")].ID
	p.send("/tree\r")
	p.expect(branchFrom)
	p.expect("you are at")
	p.send("/leaf " + branchFrom + "\r")
	p.expect("continuing from " + branchFrom)
	p.send("on a branch\r")
	p.expect("ctx ")
	p.send("/quit\r")
	if code := p.wait(); code != 0 {
		t.Fatalf("exit %d; output:\n%s", code, p.screen())
	}
	_, es = sessionEntries(t, e)
	branch := es[find(t, es, "user", "on a branch")]
	if branch.ParentID != branchFrom {
		t.Fatalf("the branch hangs under %s, not %s: %+v", branch.ParentID, branchFrom, es)
	}
	find(t, es, "user", "second") // the old branch is kept
}

func TestBareGopiOnATerminalChats(t *testing.T) {
	t.Parallel()
	e := newChatEnv(t)
	if err := os.WriteFile(filepath.Join(e.gopiHome, "settings.json"), []byte(`{"provider": "faux"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startPty(t, e) // no arguments
	p.expect("gopi chat · ")
	// the banner says the run's sandbox and where its build caches are
	p.expect(" · sandbox workspace-write (build caches in " + filepath.Join(sandbox.RealPath(e.gopiHome), "cache") + "/")
	p.send("\x04")
	if code := p.wait(); code != 0 {
		t.Fatalf("exit %d; output:\n%s", code, p.screen())
	}
}

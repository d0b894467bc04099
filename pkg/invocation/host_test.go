package invocation

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"gopi/pkg/ai"
	"gopi/pkg/assemble"
	"gopi/pkg/mode"
	"gopi/pkg/settings"
)

// sessionOf are agent options continuing file from leaf ("": none given).
func sessionOf(file, leaf string) settings.AgentOptions {
	return settings.AgentOptions{Session: assemble.SessionSettings{Path: file, Leaf: leaf}}
}

// A conversation's first prompt is its words and @file arguments, read
// before the session opens.
func TestConversationReadsTheFirstPrompt(t *testing.T) {
	p, cwd, _, _ := proc(t, fauxSettings(t, ""))
	write(t, filepath.Join(cwd, "notes.txt"), "the notes")
	h, err := p.Conversation(context.Background(), Agent{Args: []string{"@notes.txt", "read", "this"}, Flags: flags()}, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if h.Words != "read this" || !strings.Contains(h.Files, "the notes") || h.Settings.Cwd != cwd || h.Assembly.Runtime() == nil {
		t.Fatalf("words %q files %q cwd %q", h.Words, h.Files, h.Settings.Cwd)
	}
	if !h.Settings.ClampThinking || !h.Settings.Session.Newest || !h.Settings.Telemetry.Prompts {
		t.Errorf("a conversation's settings %+v", h.Settings.Session)
	}
}

// A conversation's first prompt never reads stdin (it is the terminal,
// or rpc's protocol).
func TestConversationLeavesStdinAlone(t *testing.T) {
	p, _, _, _ := proc(t, fauxSettings(t, ""))
	p.Stdin, p.StdinTTY = strings.NewReader("from stdin"), false
	h, err := p.Conversation(context.Background(), Agent{Args: []string{"hi"}, Flags: flags()}, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if h.Words != "hi" || h.Files != "" {
		t.Fatalf("words %q files %q", h.Words, h.Files)
	}
}

// A conversation continues a session from its newest entry, where gopi
// run asks for --leaf.
func TestConversationContinuesTheNewestEntry(t *testing.T) {
	p, _, out, _ := proc(t, fauxSettings(t, ""))
	if err := run(p, RunOptions{Mode: mode.JSON}, "first"); err != nil {
		t.Fatal(err)
	}
	r := oneResult(t, out.String())
	h, err := p.Conversation(context.Background(), Agent{Options: sessionOf(r.Session.File, ""), Flags: flags()}, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if got := mode.SessionOf(h.Assembly); got == nil || got.LeafID != r.Session.LeafID {
		t.Fatalf("continued from %+v, want %s", got, r.Session.LeafID)
	}
}

// A refused opening leaves nothing open: the session can be opened again
// at once.
func TestConversationRefusedClosesEverything(t *testing.T) {
	p, _, out, _ := proc(t, fauxSettings(t, ""))
	if err := run(p, RunOptions{Mode: mode.JSON}, "first"); err != nil {
		t.Fatal(err)
	}
	file := oneResult(t, out.String()).Session.File
	h, err := p.Conversation(context.Background(), Agent{Options: sessionOf(file, ""), Args: []string{"@missing.txt"}, Flags: flags()}, 0, nil)
	if h != nil || ClassOf(err) != ai.ClassUsage || !strings.Contains(err.Error(), "missing.txt") {
		t.Fatalf("host %v: %v", h, err)
	}
	// Refused once the session is open (and locked): its lock is let go.
	if h, err := p.Conversation(context.Background(), Agent{Options: sessionOf(file, "nosuchentry"), Flags: flags()}, 0, nil); h != nil || ClassOf(err) != ai.ClassUsage {
		t.Fatalf("an unknown --leaf: host %v: %v", h, err)
	}
	h, err = p.Conversation(context.Background(), Agent{Options: sessionOf(file, ""), Flags: flags()}, 0, nil)
	if err != nil {
		t.Fatalf("the session stayed locked: %v", err)
	}
	h.Close()
	if _, err := p.Conversation(context.Background(), Agent{CwdFlag: filepath.Join(file, "x"), Flags: flags()}, 0, nil); ClassOf(err) != ai.ClassUsage {
		t.Errorf("a bad --cwd: %v", err)
	}
}

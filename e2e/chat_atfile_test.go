package e2e

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gopi chat @FILE... reads its file arguments as gopi run does (and pi's
// interactive mode its initial message): text inlined with its path
// before the words, an image attached to the first prompt.
func TestChatAtFileArgumentsGoInTheFirstPrompt(t *testing.T) {
	t.Parallel()
	e := newChatEnv(t)
	if err := os.WriteFile(filepath.Join(e.dir, "notes.txt"), []byte("remember the milk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var img bytes.Buffer
	if err := png.Encode(&img, image.NewRGBA(image.Rect(0, 0, 4, 4))); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.dir, "dot.png"), img.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	sc := e.script(t, `[{"text": "the note says milk"}]`)
	p := startPty(t, e, "chat", "--provider", "faux", "--model", sc, "@notes.txt", "@dot.png", "what", "does it say?")
	p.expect("the note says milk")
	p.expect("ctx ")
	p.send("\x04")
	if code := p.wait(); code != 0 {
		t.Fatalf("exit %d; output:\n%s", code, p.screen())
	}
	_, es := sessionEntries(t, e)
	u := es[find(t, es, "user", "what does it say?")]
	want := `<file name="` + filepath.Join(e.dir, "notes.txt") + "\">\nremember the milk\n\n</file>\n" +
		`<file name="` + filepath.Join(e.dir, "dot.png") + "\"></file>\nwhat does it say?"
	if got := u.text(); got != want {
		t.Errorf("first prompt text\n%q\nwant\n%q", got, want)
	}
	blocks, _ := u.Message.Content.([]any)
	last, _ := blocks[len(blocks)-1].(map[string]any)
	if len(blocks) != 2 || last["type"] != "image" || last["mimeType"] != "image/png" {
		t.Errorf("first prompt blocks %v: want its text, then the png", blocks)
	}
}

// A missing @FILE is a usage error before the terminal is taken: exit 2,
// nothing sent, no session written.
func TestChatMissingAtFileIsAUsageError(t *testing.T) {
	t.Parallel()
	e := newChatEnv(t)
	sc := e.script(t, `[{"text": "never"}]`)
	p := startPty(t, e, "chat", "--provider", "faux", "--model", sc, "@absent.txt", "read it")
	if code := p.wait(); code != 2 {
		t.Fatalf("exit %d, want 2; output:\n%s", code, p.screen())
	}
	if out := p.screen(); !strings.Contains(out, "absent.txt") {
		t.Errorf("the message does not name the file:\n%s", out)
	}
	if files, _ := filepath.Glob(filepath.Join(e.gopiHome, "sessions", "*", "*.jsonl")); len(files) != 0 {
		t.Errorf("session written: %v", files)
	}
}

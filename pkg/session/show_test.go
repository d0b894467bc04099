package session

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"gopi/pkg/ai"
)

func showEntries() []Entry {
	entries := []Entry{
		MessageEntry("", ai.UserText("hello\nthere\n", 1)),
		MessageEntry("", ai.Message{Role: ai.RoleAssistant, StopReason: ai.StopToolUse, Content: []ai.Content{
			{Type: ai.TypeThinking, Thinking: "let me\nthink"},
			ai.TextContent("looking"),
			ai.ToolCallContent("c1", "read", []byte(`{"path":"a.go"}`)),
			{Type: ai.TypeImage, MimeType: "image/png"},
		}, ErrorMessage: "cut short"}),
		ModelChangeEntry("", "anthropic", "claude"),
		MessageEntry("", ai.UserText("other branch", 2)),
	}
	ids := []string{"aaaa0001", "bbbb0002", "cccc0003", "dddd0004"}
	parents := []string{"", "aaaa0001", "bbbb0002", "aaaa0001"}
	for i := range entries {
		entries[i].ID = ids[i]
		if parents[i] != "" {
			entries[i].ParentID = Ref(parents[i])
		}
	}
	return entries
}

func TestShowThePathToALeaf(t *testing.T) {
	var b bytes.Buffer
	var warned []Warning
	if err := Show(&b, showEntries(), "cccc", func(w Warning) { warned = append(warned, w) }); err != nil {
		t.Fatal(err)
	}
	want := "── aaaa0001 user\nhello\nthere\n\n" +
		"── bbbb0002 assistant\n(thinking) let me think\nlooking\n→ read {\"path\":\"a.go\"}\n[image image/png]\nerror: cut short\n\n" +
		"── cccc0003 model_change\n" + Says(showEntries()[2], 0) + "\n\n"
	if b.String() != want || len(warned) != 0 {
		t.Errorf("shown:\n%q\nwant:\n%q (warnings %v)", b.String(), want, warned)
	}
	// without a leaf: the newest entry
	b.Reset()
	if err := Show(&b, showEntries(), "", nil); err != nil || !strings.HasSuffix(b.String(), "── dddd0004 user\nother branch\n\n") || strings.Contains(b.String(), "bbbb0002") {
		t.Errorf("newest: %q %v", b.String(), err)
	}
}

func TestShowRefusals(t *testing.T) {
	var b bytes.Buffer
	if err := Show(&b, nil, "x", nil); err != nil || b.String() != "(no entries)\n" {
		t.Errorf("empty: %q %v", b.String(), err)
	}
	b.Reset()
	if err := Show(&b, showEntries(), "ffff", nil); !errors.Is(err, ErrUnknownLeaf) || b.Len() != 0 {
		t.Errorf("unknown leaf: %v, wrote %q", err, b.String())
	}
	// a lost parent is warned about before the path is printed
	entries := showEntries()[:2]
	entries[1].ParentID = Ref("gone0000")
	var warned []Warning
	err := Show(&b, entries, "bbbb0002", func(w Warning) {
		if b.Len() != 0 {
			t.Error("warned after printing")
		}
		warned = append(warned, w)
	})
	if err != nil || len(warned) != 1 || warned[0].Kind != WarnGap || !strings.HasPrefix(b.String(), "── bbbb0002 assistant\n") {
		t.Errorf("gap: %v %v %q", err, warned, b.String())
	}
	if err := Show(failingWriter{}, showEntries(), "", nil); err == nil {
		t.Error("a write error is lost")
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("closed") }

// Thinking is one line of at most 200 characters.
func TestShowBoundsThinking(t *testing.T) {
	long := strings.Repeat("think ", 50)
	e := MessageEntry("", ai.Message{Role: ai.RoleAssistant, Content: []ai.Content{{Type: ai.TypeThinking, Thinking: long}}})
	e.ID = "aaaa0001"
	var b bytes.Buffer
	if err := Show(&b, []Entry{e}, "", nil); err != nil {
		t.Fatal(err)
	}
	if want := "── aaaa0001 assistant\n(thinking) " + OneLine(long, 200) + "\n\n"; b.String() != want {
		t.Errorf("got %q\nwant %q", b.String(), want)
	}
}

func TestWriteTree(t *testing.T) {
	f := &File{Path: "/s.jsonl", Header: Header{ID: "s1"}, Entries: showEntries()}
	var b bytes.Buffer
	if err := WriteTree(&b, f, false); err != nil || !strings.HasPrefix(b.String(), "session s1  /s.jsonl\n   aaaa0001 user") {
		t.Errorf("drawn: %q %v", b.String(), err)
	}
	b.Reset()
	if err := WriteTree(&b, f, true); err != nil || !strings.HasPrefix(b.String(), `[{"id":"aaaa0001","kind":"user"`) {
		t.Errorf("JSON: %q %v", b.String(), err)
	}
	b.Reset()
	if err := WriteTree(&b, &File{}, true); err != nil || b.String() != "[]\n" {
		t.Errorf("empty JSON: %q %v", b.String(), err)
	}
}

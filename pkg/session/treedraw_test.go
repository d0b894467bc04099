package session

import (
	"encoding/json"
	"strings"
	"testing"

	"gopi/pkg/ai"
)

func TestDrawTree(t *testing.T) {
	label := "good"
	entries := []Entry{
		MessageEntry("", ai.UserText("hello\nthere", 1)),
		MessageEntry("", ai.Message{Role: ai.RoleAssistant, StopReason: ai.StopStop, Content: []ai.Content{ai.TextContent("hi")}}),
		MessageEntry("", ai.UserText("again", 2)),
		{Type: TypeLabel, TargetID: "bbbb0002", Label: &label},
	}
	ids := []string{"aaaa0001", "bbbb0002", "cccc0003", "dddd0004"}
	parents := []string{"", "aaaa0001", "aaaa0001", "bbbb0002"}
	for i := range entries {
		entries[i].ID = ids[i]
		if parents[i] != "" {
			entries[i].ParentID = Ref(parents[i])
		}
	}
	var b strings.Builder
	if err := DrawTree(&b, "s1", "/s.jsonl", TreeNodes(entries)); err != nil {
		t.Fatal(err)
	}
	want := "session s1  /s.jsonl\n" +
		"   aaaa0001 user        hello there\n" +
		"   ├─ bbbb0002 assistant   hi [good]\n" +
		"=> │  dddd0004 label       good\n" +
		" * └─ cccc0003 user        again\n"
	if b.String() != want {
		t.Errorf("drawn:\n%s\nwant:\n%s", b.String(), want)
	}
	js, _ := json.Marshal(TreeNodes(entries)[:1])
	if string(js) != `[{"id":"aaaa0001","kind":"user","preview":"hello there","depth":0,"leaf":false,"newest":false}]` {
		t.Errorf("json %s", js)
	}
}

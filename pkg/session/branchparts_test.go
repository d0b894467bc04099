package session

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"gopi/internal/fdcheck"
	"gopi/pkg/ai"
)

// TestRelink: labels leave the path, each entry hangs from the one kept
// before it, a compaction kept from a label keeps from the entry after
// it, and the copies share nothing with the path.
func TestRelink(t *testing.T) {
	label := "start"
	path := []Entry{
		{Type: TypeMessage, ID: "m1", Message: &ai.Message{Role: ai.RoleUser}},
		{Type: TypeLabel, ID: "l1", ParentID: Ref("m1"), TargetID: "m1", Label: &label},
		{Type: TypeLabel, ID: "l2", ParentID: Ref("l1"), TargetID: "m1", Label: &label},
		{Type: TypeMessage, ID: "m2", ParentID: Ref("l2"), Message: &ai.Message{Role: ai.RoleAssistant}},
		{Type: TypeCompaction, ID: "c1", ParentID: Ref("m2"), FirstKeptEntryID: "l1"},
		{Type: TypeCompaction, ID: "c2", ParentID: Ref("c1"), FirstKeptEntryID: "m2"},
	}
	got := relink(path)
	var ids, parents, kept []string
	for _, e := range got {
		p := ""
		if e.ParentID != nil {
			p = *e.ParentID
		}
		ids, parents, kept = append(ids, e.ID), append(parents, p), append(kept, e.FirstKeptEntryID)
	}
	if want := []string{"m1", "m2", "c1", "c2"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("ids %v, want %v", ids, want)
	}
	if want := []string{"", "m1", "m2", "c1"}; !reflect.DeepEqual(parents, want) {
		t.Errorf("parents %v, want %v", parents, want)
	}
	if want := []string{"", "", "m2", "m2"}; !reflect.DeepEqual(kept, want) {
		t.Errorf("first kept %v, want %v", kept, want)
	}
	got[0].Message.Role = "changed"
	if path[0].Message.Role != ai.RoleUser || *path[3].ParentID != "l2" || path[4].FirstKeptEntryID != "l1" {
		t.Errorf("relink changed the path: %+v", path)
	}
}

// TestCurrentLabels: a target's newest label wins in place (its time
// too), a cleared label goes, and one set again after a clear comes last.
func TestCurrentLabels(t *testing.T) {
	set := func(target, text, at string) Entry {
		e := Entry{Type: TypeLabel, TargetID: target, Timestamp: at}
		if text != "-" {
			e.Label = &text
		}
		return e
	}
	entries := []Entry{
		set("a", "one", "t1"),
		{Type: TypeMessage, ID: "m1"},
		set("b", "two", "t2"),
		set("c", "three", "t3"),
		set("a", "uno", "t4"),   // relabelled in place
		set("a", "-", "t5"),     // cleared: b and c move up
		set("b", "", "t6"),      // an empty label clears too
		set("a", "again", "t7"), // set after the clear: last
		set("d", "-", "t8"),     // clearing what has no label does nothing
		set("c", "tres", "t9"),
	}
	want := []currentLabel{{TargetID: "c", Timestamp: "t9", label: "tres"}, {TargetID: "a", Timestamp: "t7", label: "again"}}
	if got := currentLabels(entries); !reflect.DeepEqual(got, want) {
		t.Errorf("labels %+v, want %+v", got, want)
	}
}

// TestBranchNoConversation: a path without a user or assistant message
// (a tool result is neither) is not written until the first Append, as
// for any new session.
func TestBranchNoConversation(t *testing.T) {
	fdcheck.Check(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "src.jsonl")
	lines := `{"type":"session","version":3,"id":"01a2363d-b762-7556-b1b1-efd3749c0999","timestamp":"2026-12-02T10:12:24.038Z","cwd":"/w"}
{"type":"model_change","id":"aaaa0001","parentId":null,"timestamp":"2026-12-02T10:12:24.783Z","provider":"p","modelId":"m"}
{"type":"label","id":"aaaa0002","parentId":"aaaa0001","timestamp":"2026-12-02T10:12:25.000Z","targetId":"aaaa0001","label":"here"}
{"type":"message","id":"aaaa0003","parentId":"aaaa0002","timestamp":"2026-12-02T10:12:26.000Z","message":{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[],"isError":false,"timestamp":1}}
`
	if err := os.WriteFile(src, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Branch(filepath.Join(dir, "none.jsonl"), "aaaa0001", filepath.Join(dir, "out"), "/w", testOptions()); err == nil {
		t.Error("a fork of a file that does not exist: no error")
	}
	if _, err := Branch(src, "ffff0000", filepath.Join(dir, "out"), "/w", testOptions()); err == nil {
		t.Error("a fork from an entry the file does not hold: no error")
	}
	used := testOptions()
	used.NewID = func() string { return "aaaa0001" } // the label's new id is never free
	if _, err := Branch(src, "aaaa0003", filepath.Join(dir, "out"), "/w", used); err == nil {
		t.Error("a fork whose label finds no free id: no error")
	}
	s, err := Branch(src, "aaaa0003", filepath.Join(dir, "out"), "/w", testOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := os.Stat(s.Path()); !os.IsNotExist(err) {
		t.Errorf("a fork without a message is on disk: %v", err)
	}
	es := s.Entries()
	if len(es) != 3 || es[1].ID != "aaaa0003" || *es[1].ParentID != "aaaa0001" ||
		es[2].Type != TypeLabel || *es[2].ParentID != "aaaa0003" || *es[2].Label != "here" {
		t.Errorf("entries %+v", es)
	}
}

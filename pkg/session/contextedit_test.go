package session

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"gopi/pkg/ai"
)

// A file pi 1.6 wrote (a thinking answer, a read tool call, a retried
// request with its context_edit, a compaction, an answer after it) gives
// the messages pi 1.6 sent for its last request: its leading system
// message, the failed attempt the edit omits and the entries before the
// compaction's first kept one reach no message.
func TestPi16Fixture(t *testing.T) {
	t.Parallel()
	f, err := ReadFile(filepath.Join("testdata", "pi", "v16.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Warnings) != 0 {
		t.Fatalf("warnings: %v", f.Warnings)
	}
	path, _, err := PathTo(f.Entries, "e0279354") // the last prompt
	if err != nil {
		t.Fatal(err)
	}
	got := BuildContext(path, Budget{})
	want := "user: " + CompactionSummaryPrefix + "No prior history.\n\n---\n\n**Turn Context (split turn):**\n\nSUMMARY OF THE SESSION" + CompactionSummarySuffix + "\n" +
		"assistant: thinking | first answer\nuser: read a.txt\nassistant: call read\ntoolResult: hello\n\nassistant: I listed them\n" +
		"user: third question\nassistant: third answer\nuser: after compaction\n"
	if b := brief(got.Messages); b != want {
		t.Errorf("context:\n%s\nwant:\n%s", b, want)
	}
	if s := ModelStateOf(path); s != (ModelState{"anthropic", "claude-sonnet-4-5", ai.ThinkingMedium}) {
		t.Errorf("settings %+v", s)
	}
	// Before the compaction, the same file's path to the retried answer:
	// the system message and the failed attempt are left out.
	path, _, err = PathTo(f.Entries, "f952891d")
	if err != nil {
		t.Fatal(err)
	}
	got = BuildContext(path, Budget{})
	want = "user: first question\nassistant: thinking | first answer\nuser: read a.txt\nassistant: call read\ntoolResult: hello\n\n" +
		"assistant: I listed them\nuser: third question\nassistant: third answer\n"
	if b := brief(got.Messages); b != want {
		t.Errorf("context before compaction:\n%s\nwant:\n%s", b, want)
	}
	// Every entry is written back with every field pi wrote, each with
	// its value (gopi orders fields and escapes strings its own way).
	raw, err := os.ReadFile(filepath.Join("testdata", "pi", "v16.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")[1:]
	for i, e := range f.Entries {
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		var got, want any
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(lines[i]), &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("entry %s written back as\n%s\nwant\n%s", e.ID, b, lines[i])
		}
	}
}

// edits builds a path from lines of "id parent json-fields" for a test.
func editPath(t *testing.T, lines ...string) []Entry {
	t.Helper()
	var out []Entry
	for _, l := range lines {
		var e Entry
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("%s: %v", l, err)
		}
		out = append(out, e)
	}
	return out
}

const (
	eUser1 = `{"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"first","timestamp":1}}`
	eAsst1 = `{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"assistant","content":[{"type":"text","text":"one"}],"api":"anthropic-messages","provider":"anthropic","model":"m","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":2}}`
	eCall  = `{"type":"message","id":"a2","parentId":"a1","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"read","arguments":{}}],"api":"anthropic-messages","provider":"anthropic","model":"m","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"toolUse","timestamp":3}}`
	eRes   = `{"type":"message","id":"r1","parentId":"a2","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[{"type":"text","text":"big output"}],"isError":false,"timestamp":4}}`
	eCust  = `{"type":"custom_message","customType":"x","content":"note","display":true,"id":"cm","parentId":"r1","timestamp":"2026-01-01T00:00:04.000Z"}`
	eSys   = `{"type":"message","id":"s1","parentId":"cm","timestamp":"2026-01-01T00:00:05.000Z","message":{"role":"system","content":"","sections":{"preamble":"You are pi."},"toolsAdded":[{"name":"read","description":"r","parameters":{}}],"timestamp":5}}`
)

func editLine(id, parent, target, replacement string) string {
	return `{"type":"context_edit","id":"` + id + `","parentId":"` + parent + `","timestamp":"2026-01-01T00:01:00.000Z","targetId":"` + target + `","replacement":` + replacement + `}`
}

func TestContextEdits(t *testing.T) {
	t.Parallel()
	base := []string{eUser1, eAsst1, eCall, eRes, eCust, eSys}
	tests := []struct {
		name  string
		lines []string
		want  string
	}{
		{"system message sends nothing", nil,
			"user: first\nassistant: one\nassistant: call read\ntoolResult: big output\nuser: note\n"},
		{"null omits", []string{editLine("e1", "s1", "a1", "null")},
			"user: first\nassistant: call read\ntoolResult: big output\nuser: note\n"},
		{"string on a tool result becomes a text block", []string{editLine("e1", "s1", "r1", `{"content":"[cleared]"}`)},
			"user: first\nassistant: one\nassistant: call read\ntoolResult: [cleared]\nuser: note\n"},
		{"blocks on a user message", []string{editLine("e1", "s1", "u1", `{"content":[{"type":"text","text":"FIRST"}]}`)},
			"user: FIRST\nassistant: one\nassistant: call read\ntoolResult: big output\nuser: note\n"},
		{"custom message edited", []string{editLine("e1", "s1", "cm", `{"content":"NOTE"}`)},
			"user: first\nassistant: one\nassistant: call read\ntoolResult: big output\nuser: NOTE\n"},
		{"the latest edit wins", []string{editLine("e1", "s1", "a1", "null"), editLine("e2", "e1", "a1", `{"content":"ONE"}`)},
			"user: first\nassistant: ONE\nassistant: call read\ntoolResult: big output\nuser: note\n"},
		{"an edit of a system message changes nothing", []string{editLine("e1", "s1", "s1", `{"content":"x"}`)},
			"user: first\nassistant: one\nassistant: call read\ntoolResult: big output\nuser: note\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := editPath(t, append(append([]string(nil), base...), tt.lines...)...)
			got := BuildContext(path, Budget{})
			if b := brief(got.Messages); b != tt.want {
				t.Errorf("context:\n%s\nwant:\n%s", b, tt.want)
			}
		})
	}
}

// An edit is branch-relative: an edit on another branch, or one that a
// compaction left before its first kept entry, changes nothing.
func TestContextEditsBranchAndCompaction(t *testing.T) {
	t.Parallel()
	all := editPath(t, eUser1, eAsst1, eCall, eRes,
		editLine("e1", "a1", "a1", "null"), // a branch off a1
		`{"type":"message","id":"u2","parentId":"e1","timestamp":"2026-01-01T00:02:00.000Z","message":{"role":"user","content":"other","timestamp":9}}`,
	)
	path, _, err := PathTo(all, "r1")
	if err != nil {
		t.Fatal(err)
	}
	if b := brief(BuildContext(path, Budget{}).Messages); !strings.Contains(b, "assistant: one") {
		t.Errorf("the other branch's edit was applied:\n%s", b)
	}
	path, _, err = PathTo(all, "u2")
	if err != nil {
		t.Fatal(err)
	}
	if b := brief(BuildContext(path, Budget{}).Messages); b != "user: first\nuser: other\n" {
		t.Errorf("the branch's own edit:\n%s", b)
	}

	comp := `{"type":"compaction","id":"k1","parentId":"r2","timestamp":"2026-01-01T00:03:00.000Z","summary":"S","firstKeptEntryId":"a2","tokensBefore":10}`
	old := `{"type":"compaction","id":"k0","parentId":"a2","timestamp":"2026-01-01T00:02:30.000Z","summary":"OLD","firstKeptEntryId":"a2","tokensBefore":5}`
	r2 := strings.Replace(strings.Replace(eRes, `"id":"r1","parentId":"a2"`, `"id":"r2","parentId":"k0"`, 1), "c1", "c1", 1)
	path = editPath(t, eUser1, editLine("e0", "u1", "a2", `{"content":"EDITED BEFORE"}`),
		strings.Replace(eAsst1, `"parentId":"u1"`, `"parentId":"e0"`, 1), eCall, old, r2, comp)
	got := brief(BuildContext(path, Budget{}).Messages)
	want := "user: " + CompactionSummaryPrefix + "S" + CompactionSummarySuffix + "\nassistant: call read\ntoolResult: big output\n"
	if got != want {
		t.Errorf("after compaction:\n%s\nwant:\n%s", got, want)
	}
}

func TestContextEditEntryRoundTrip(t *testing.T) {
	t.Parallel()
	e, err := ContextEditEntry("p1", "t1", []ai.Content{ai.TextContent("x")})
	if err != nil {
		t.Fatal(err)
	}
	e.ID, e.Timestamp = "e1", "2026-01-01T00:00:00.000Z"
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"context_edit","id":"e1","parentId":"p1","timestamp":"2026-01-01T00:00:00.000Z","targetId":"t1","replacement":{"content":[{"type":"text","text":"x"}]}}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	var back Entry
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.TargetID != "t1" || string(back.Data) != `{"content":[{"type":"text","text":"x"}]}` || back.Extra != nil {
		t.Errorf("read back %+v", back)
	}
	omit, _ := ContextEditEntry("p1", "t1", nil)
	omit.ID, omit.Timestamp = "e2", "2026-01-01T00:00:00.000Z"
	if b, _ := json.Marshal(omit); !strings.HasSuffix(string(b), `"targetId":"t1","replacement":null}`) {
		t.Errorf("omission written as %s", b)
	}
}

package session

import (
	"fmt"
	"gopi/pkg/ai"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestSessionCandidates(t *testing.T) {
	root := t.TempDir()
	a := "0190aaaa-0000-7000-8000-000000000001"
	b := "0190bbbb-0000-7000-8000-000000000002"
	writeListed(t, root, "/p", a, t0, lineUser)
	writeListed(t, root, "/p", b, t0.Add(time.Minute))
	writeListed(t, root, "/q", "0190cccc-0000-7000-8000-000000000003", t0)
	got := SessionCandidates(root, "/p", "", nil)
	local := func(tm time.Time) string { return tm.Local().Format("2006-01-02 15:04") }
	want := []Candidate{{b, local(t0.Add(time.Minute))}, {a, local(t0) + " · first question about the build"}}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	if got := SessionCandidates(root, "/p", "0190a", nil); len(got) != 1 || got[0].Value != a {
		t.Errorf("prefix: %q", got)
	}
	if got := SessionCandidates(root, "/none", "", nil); got != nil {
		t.Errorf("no sessions: %q", got)
	}
}

func TestSessionCandidatesAreBounded(t *testing.T) {
	root := t.TempDir()
	reads := 0
	for i := range MaxSessionCandidates + 3 {
		writeListed(t, root, "/p", fmt.Sprintf("0190%04d-0000-7000-8000-000000000000", i), t0.Add(time.Duration(i)*time.Minute))
	}
	got := SessionCandidates(root, "/p", "", func(p string) (*File, error) { reads++; return ReadFile(p) })
	if len(got) != MaxSessionCandidates || reads != MaxSessionCandidates || got[0].Value != fmt.Sprintf("0190%04d-0000-7000-8000-000000000000", MaxSessionCandidates+2) {
		t.Errorf("%d offered, %d read, first %q", len(got), reads, got[0].Value)
	}
}

func TestLeafCandidates(t *testing.T) {
	root := t.TempDir()
	a := "0190aaaa-0000-7000-8000-000000000001"
	path := writeListed(t, root, "/p", a, t0, lineUser, lineAssistant, lineUser2)
	writeListed(t, root, "/p", "0190bbbb-0000-7000-8000-000000000002", t0.Add(time.Minute), lineName)
	want := []Candidate{{"cccc0003", "user: second"}, {"bbbb0002", "assistant: an answer"}, {"aaaa0001", "user: first question about the build"}}
	for _, ref := range []string{a, "0190aa", path} {
		if got := LeafCandidates(root, "/p", ref, false, ""); !slices.Equal(got, want) {
			t.Errorf("--session %s: %q", ref, got)
		}
	}
	if got := LeafCandidates(root, "/p", a, true, "b"); !slices.Equal(got, want[1:2]) {
		t.Errorf("prefix: %q", got)
	}
	// -c alone: the newest session of the folder
	if got := LeafCandidates(root, "/p", "", true, ""); len(got) != 1 || got[0].Value != "dddd0004" {
		t.Errorf("latest: %q", got)
	}
	for _, c := range []struct {
		ref    string
		latest bool
		cwd    string
	}{{"", false, "/p"}, {"ffff", false, "/p"}, {"", true, "/none"}, {"0190", false, "/p"}} {
		if got := LeafCandidates(root, c.cwd, c.ref, c.latest, ""); got != nil {
			t.Errorf("%+v: %q", c, got)
		}
	}
}

// A leaf's description is its kind and first words, one line of at most
// 60 characters.
func TestLeafCandidateDescriptionsAreBounded(t *testing.T) {
	root := t.TempDir()
	long := strings.Repeat("word ", 30)
	a := "0190aaaa-0000-7000-8000-000000000001"
	writeListed(t, root, "/p", a, t0, `{"type":"message","id":"aaaa0001","parentId":null,"timestamp":"2026-03-01T10:00:01.000Z","message":{"role":"user","content":"`+long+`","timestamp":1}}`)
	got := LeafCandidates(root, "/p", a, false, "")
	kind, preview := Preview(MessageEntry("", ai.UserText(long, 1)), 60)
	if want := OneLine(kind+": "+preview, 60); len(got) != 1 || got[0].Description != want || len([]rune(want)) != 60 {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestLeafCandidatesAreBounded(t *testing.T) {
	root := t.TempDir()
	lines := []string{}
	parent := "null"
	for i := range MaxLeafCandidates + 5 {
		id := fmt.Sprintf("e%07d", i)
		lines = append(lines, fmt.Sprintf(`{"type":"message","id":"%s","parentId":%s,"timestamp":"2026-03-01T10:00:01.000Z","message":{"role":"user","content":"m%d","timestamp":1}}`, id, parent, i))
		parent = `"` + id + `"`
	}
	a := "0190aaaa-0000-7000-8000-000000000001"
	writeListed(t, root, "/p", a, t0, lines...)
	got := LeafCandidates(root, "/p", a, false, "")
	if len(got) != MaxLeafCandidates || got[0].Value != fmt.Sprintf("e%07d", MaxLeafCandidates+4) {
		t.Errorf("%d offered, first %q", len(got), got[0])
	}
}

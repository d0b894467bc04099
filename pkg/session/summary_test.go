package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"gopi/pkg/ai"
)

// writeListed writes a session file of cwd under root with the given id,
// changed at mod, holding lines (raw entries after the header).
func writeListed(t *testing.T, root, cwd, id string, mod time.Time, lines ...string) string {
	t.Helper()
	path := SessionPath(root, cwd, mod, id)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	body := `{"type":"session","version":3,"id":"` + id + `","timestamp":"2026-03-01T10:00:00.000Z","cwd":"` + cwd + `"}` + "\n"
	for _, l := range lines {
		body += l + "\n"
	}
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, mod, mod); err != nil {
		t.Fatal(err)
	}
	return path
}

const (
	lineUser      = `{"type":"message","id":"aaaa0001","parentId":null,"timestamp":"2026-03-01T10:00:01.000Z","message":{"role":"user","content":"first\nquestion about the build","timestamp":1}}`
	lineAssistant = `{"type":"message","id":"bbbb0002","parentId":"aaaa0001","timestamp":"2026-03-01T10:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"an answer"}],"stopReason":"stop","timestamp":2}}`
	lineUser2     = `{"type":"message","id":"cccc0003","parentId":"bbbb0002","timestamp":"2026-03-01T10:00:03.000Z","message":{"role":"user","content":"second","timestamp":3}}`
	lineName      = `{"type":"session_info","id":"dddd0004","parentId":"cccc0003","timestamp":"2026-03-01T10:00:04.000Z","name":"a named session with a long name indeed"}`
)

var t0 = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)

func TestListAllEveryFolderNewestFirst(t *testing.T) {
	root := t.TempDir()
	a := writeListed(t, root, "/p", "0190aaaa-0000-7000-8000-000000000001", t0)
	b := writeListed(t, root, "/q", "0190bbbb-0000-7000-8000-000000000002", t0.Add(2*time.Minute))
	c := writeListed(t, root, "/p", "0190cccc-0000-7000-8000-000000000003", t0.Add(time.Minute))
	// not a session: a bad header, a file beside the folders, a folder named .jsonl
	bad := filepath.Join(filepath.Dir(a), "2026_bad.jsonl")
	_ = os.WriteFile(bad, []byte("not json\n"), 0o600)
	_ = os.WriteFile(filepath.Join(root, "x.jsonl"), []byte(""), 0o600)
	infos, err := ListAll(root)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, in := range infos {
		got = append(got, in.Path)
	}
	if !slices.Equal(got, []string{b, c, a}) {
		t.Fatalf("ListAll: %q", got)
	}
	if infos[0].Header.Cwd != "/q" || infos[0].Size == 0 || !infos[0].ModTime.Equal(t0.Add(2*time.Minute)) {
		t.Errorf("info %+v", infos[0])
	}
	if infos, err := ListAll(filepath.Join(root, "none")); err != nil || infos != nil {
		t.Errorf("missing root: %v %v", infos, err)
	}
	if _, err := ListAll(filepath.Join(root, "x.jsonl")); err == nil {
		t.Errorf("a file as the root lists")
	}
}

func TestSummarize(t *testing.T) {
	root := t.TempDir()
	id := "0190aaaa-0000-7000-8000-000000000001"
	path := writeListed(t, root, "/p", id, t0, lineUser, lineAssistant, lineUser2, lineName)
	infos, _ := List(root, "/p")
	var read []string
	s, ok := Summarize(infos[0], func(p string) (*File, error) { read = append(read, p); return ReadFile(p) })
	want := Summary{ID: id, File: path, Cwd: "/p", Modified: "2026-03-01 10:00", Entries: 4,
		FirstPrompt: "first question about the build", NewestLeaf: "dddd0004", Name: "a named session with a long name indeed"}
	if !ok || s != want || !slices.Equal(read, []string{path}) {
		t.Fatalf("Summarize: %+v %v (read %q)\nwant %+v", s, ok, read, want)
	}
	if _, ok := Summarize(infos[0], func(string) (*File, error) { return nil, errors.New("no") }); ok {
		t.Error("an unreadable session is summarised")
	}
	// no entries: no prompt, no leaf; nil reads with ReadFile
	empty := writeListed(t, root, "/e", "0190eeee-0000-7000-8000-000000000009", t0)
	s, ok = Summarize(Info{Path: empty, ModTime: t0}, nil)
	if !ok || s.Entries != 0 || s.FirstPrompt != "" || s.NewestLeaf != "" || s.Name != "" {
		t.Errorf("empty: %+v %v", s, ok)
	}
}

func TestShortID(t *testing.T) {
	cases := []struct {
		id    string
		scope []string
		want  string
	}{
		{"0190aaaa-1111-7000", []string{"0190aaaa-1111-7000"}, "0190aaaa"},
		{"0190aaaa-1111-7000", []string{"0190aaaa-1111-7000", "0190aaab-0000"}, "0190aaaa"},
		{"0190aaaa-1111-7000", []string{"0190aaaa-1111-7000", "0190aaaa-2222"}, "0190aaaa-1"}, // never ends at '-'
		{"0190aaaa-1111-7000", []string{"0190aaaa-1111-7000", "0190aaaa-1111-7000"}, "0190aaaa-1111-7000"},
		{"abc", nil, "abc"},
		{"0190aaaa-1111-7000", []string{"0190aaaa-1112"}, "0190aaaa-1111"},
	}
	for _, c := range cases {
		if got := ShortID(c.id, c.scope); got != c.want {
			t.Errorf("ShortID(%q, %q) = %q, want %q", c.id, c.scope, got, c.want)
		}
	}
}

func TestIDsInAndSummaries(t *testing.T) {
	root := t.TempDir()
	a := "0190aaaa-1111-7000-8000-000000000001"
	b := "0190aaaa-2222-7000-8000-000000000002"
	writeListed(t, root, "/p", a, t0, lineUser)
	writeListed(t, root, "/q", b, t0.Add(time.Minute))
	_ = os.WriteFile(filepath.Join(SessionDir(root, "/q"), "noid.jsonl"), []byte("x\n"), 0o600)
	ids := IDsIn(root)
	slices.Sort(ids)
	if !slices.Equal(ids, []string{"", a, b}) {
		t.Fatalf("IDsIn: %q", ids)
	}
	infos, _ := ListAll(root)
	rows := Summaries(root, infos, nil)
	if len(rows) != 2 || rows[0].ID != b || rows[0].ShortID != "0190aaaa-2" || rows[1].ShortID != "0190aaaa-1" || rows[1].FirstPrompt != "first question about the build" {
		t.Fatalf("Summaries: %+v", rows)
	}
	// a file whose name holds no id is shortened by its header's id
	if got := fileSessionID("/x/noid.jsonl", "fallback"); got != "fallback" {
		t.Errorf("fileSessionID: %q", got)
	}
	if got := fileSessionID("/x/2026_.jsonl", "fallback"); got != "fallback" {
		t.Errorf("fileSessionID of an empty id: %q", got)
	}
}

func TestWriteSummaries(t *testing.T) {
	rows := []Summary{
		{ID: "id-1", ShortID: "id-1", Cwd: "/p", Modified: "2026-03-01 10:00", Entries: 4, NewestLeaf: "dddd0004", Name: "a named session with a long name indeed", FirstPrompt: "first"},
		{ID: "id-22", ShortID: "id-22", Cwd: "/longer/folder", Modified: "2026-03-01 10:01", Entries: 12, NewestLeaf: "eeee0005", FirstPrompt: "second"},
	}
	var b bytes.Buffer
	if err := WriteSummaries(&b, rows, false, false); err != nil {
		t.Fatal(err)
	}
	want := "ID     MODIFIED          ENTRIES  NEWEST LEAF  NAME                            FIRST PROMPT\n" +
		"id-1   2026-03-01 10:00  4        dddd0004     a named session with a long n…  first\n" +
		"id-22  2026-03-01 10:01  12       eeee0005     -                               second\n"
	if b.String() != want {
		t.Errorf("table:\n%s\nwant:\n%s", b.String(), want)
	}
	b.Reset()
	_ = WriteSummaries(&b, rows, false, true)
	if lines := strings.Split(b.String(), "\n"); !strings.HasSuffix(lines[0], "  FOLDER          FIRST PROMPT") || !strings.HasSuffix(lines[2], "  -                               /longer/folder  second") {
		t.Errorf("with folders:\n%s", b.String())
	}
	b.Reset()
	_ = WriteSummaries(&b, nil, false, false)
	if b.String() != "no sessions\n" {
		t.Errorf("none: %q", b.String())
	}
	b.Reset()
	_ = WriteSummaries(&b, nil, true, false)
	if b.String() != "[]\n" {
		t.Errorf("none as JSON: %q", b.String())
	}
	b.Reset()
	_ = WriteSummaries(&b, rows[1:], true, false)
	var got []map[string]any
	if err := json.Unmarshal(b.Bytes(), &got); err != nil || len(got) != 1 || got[0]["shortId"] != "id-22" || got[0]["entries"] != 12.0 {
		t.Errorf("JSON %s: %v", b.String(), err)
	}
	if _, named := got[0]["name"]; named {
		t.Errorf("an empty name is left out: %s", b.String())
	}
}

// The first prompt is the first user message's, at most 60 characters,
// whatever comes before it.
func TestSummarizeFirstPromptIsTheUsers(t *testing.T) {
	root := t.TempDir()
	long := strings.Repeat("word ", 20)
	path := writeListed(t, root, "/p", "0190aaaa-0000-7000-8000-000000000001", t0,
		`{"type":"model_change","id":"00000001","parentId":null,"timestamp":"2026-03-01T10:00:01.000Z","provider":"faux","modelId":"demo"}`,
		`{"type":"message","id":"00000002","parentId":"00000001","timestamp":"2026-03-01T10:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"not the prompt"}],"stopReason":"stop","timestamp":2}}`,
		`{"type":"message","id":"00000003","parentId":"00000002","timestamp":"2026-03-01T10:00:03.000Z","message":{"role":"user","content":"`+long+`","timestamp":3}}`)
	s, ok := Summarize(Info{Path: path, ModTime: t0}, nil)
	if _, want := Preview(MessageEntry("", ai.UserText(long, 1)), 60); !ok || s.FirstPrompt != want || len([]rune(want)) != 60 {
		t.Errorf("first prompt %q, want %q", s.FirstPrompt, want)
	}
}

func TestShortIDOfPrefixes(t *testing.T) {
	cases := []struct {
		id    string
		scope []string
		want  string
	}{
		{"0190aaaa-1111", []string{"0190aaaa-1111", "0190aaaa-1111-7000"}, "0190aaaa-1111"}, // the other is longer
		{"0190aaaa-1111-7000", []string{"0190aaaa-1111"}, "0190aaaa-1111-7"},                // a prefix of it
		{"0190aaaa--b", []string{"0190aaaa-"}, "0190aaaa--b"},                               // never at a '-'
		{"x190aaaa-1", []string{"y190aaaa-1"}, "x190aaaa"},
	}
	for _, c := range cases {
		if got := ShortID(c.id, c.scope); got != c.want {
			t.Errorf("ShortID(%q, %q) = %q, want %q", c.id, c.scope, got, c.want)
		}
	}
}

// Names are measured as text, not as HTML.
func TestWriteSummariesMeasuresText(t *testing.T) {
	rows := []Summary{{ShortID: "a", Name: "<b>&amp;"}, {ShortID: "b", Name: "x"}}
	var b bytes.Buffer
	_ = WriteSummaries(&b, rows, false, false)
	lines := strings.Split(b.String(), "\n")
	if len(lines[1]) != len(lines[2]) {
		t.Errorf("aligned as HTML:\n%s", b.String())
	}
}

package export_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"html"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"go.uber.org/goleak"

	"gopi/internal/fdcheck"
	"gopi/pkg/ai"
	"gopi/pkg/export"
	"gopi/pkg/session"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.Cleanup(fdcheck.Main()))
}

// render exports a session file with the given leaf.
func render(t *testing.T, f *session.File, leaf string) string {
	t.Helper()
	var buf bytes.Buffer
	if _, err := export.Render(&buf, f, export.Options{Leaf: leaf}); err != nil {
		t.Fatalf("Render: %v", err)
	}
	return buf.String()
}

func readFixture(t *testing.T) *session.File {
	t.Helper()
	f, err := session.ReadFile("testdata/forked.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// mainColumn is the page without its folded branches and without the
// tree in the side bar: what a reader sees before opening anything.
func mainColumn(t *testing.T, page string) string {
	t.Helper()
	start, end := strings.Index(page, "<main>"), strings.Index(page, "</main>")
	if start < 0 || end < start {
		t.Fatalf("no <main> in the page")
	}
	s := page[start:end]
	for {
		i := strings.Index(s, `<details class="branch"`)
		if i < 0 {
			return s
		}
		depth, j := 0, i
		for {
			open, closing := strings.Index(s[j+1:], "<details"), strings.Index(s[j+1:], "</details>")
			if closing < 0 {
				t.Fatalf("unbalanced <details> in the page")
			}
			if open >= 0 && open < closing {
				depth++
				j += 1 + open
				continue
			}
			j += 1 + closing
			if depth == 0 {
				break
			}
			depth--
		}
		s = s[:i] + s[j+len("</details>"):]
	}
}

// article returns the <article> of one entry.
func article(t *testing.T, page, id string) string {
	t.Helper()
	i := strings.Index(page, `id="e-`+id+`"`)
	if i < 0 {
		t.Fatalf("entry %s is not on the page", id)
	}
	start := strings.LastIndex(page[:i], "<article")
	end := strings.Index(page[i:], "</article>")
	return page[start : i+end]
}

func TestEveryBranchIsOnThePageWithTheNewestPathInTheMainColumn(t *testing.T) {
	fdcheck.Check(t)
	f := readFixture(t)
	page := render(t, f, "")
	for _, e := range f.Entries {
		if n := strings.Count(page, `id="e-`+e.ID+`"`); n != 1 {
			t.Errorf("entry %s is on the page %d times, want once", e.ID, n)
		}
		if !strings.Contains(page, `href="#e-`+e.ID+`"`) {
			t.Errorf("the tree has no link to entry %s", e.ID)
		}
	}
	main := mainColumn(t, page)
	for _, want := range []string{"List the files in the project", "Second branch answer", "e-dddd000b"} {
		if !strings.Contains(main, want) {
			t.Errorf("main column lacks %q", want)
		}
	}
	for _, folded := range []string{"First branch answer", "e-bbbb0005"} {
		if strings.Contains(main, folded) {
			t.Errorf("main column shows %q, which is on the other branch", folded)
		}
		if !strings.Contains(page, folded) {
			t.Errorf("page lacks %q from the other branch", folded)
		}
	}
	if !strings.Contains(article(t, page, "dddd000b"), "leaf") {
		t.Errorf("the newest entry is not marked as the exported one")
	}
	if strings.Contains(article(t, page, "bbbb0006"), "on-path") {
		t.Errorf("an entry of the other branch is marked on the path")
	}
}

func TestLeafChoosesTheMainColumn(t *testing.T) {
	fdcheck.Check(t)
	f := readFixture(t)
	main := mainColumn(t, render(t, f, "bbbb0006"))
	if !strings.Contains(main, "First branch answer") || strings.Contains(main, "Second branch answer") {
		t.Errorf("--leaf bbbb0006: the main column does not follow the first branch:\n%s", main)
	}

	// An entry with children: the path ends there and both branches fold.
	page := render(t, f, "aaaa0004")
	main = mainColumn(t, page)
	if strings.Contains(main, "First branch answer") || strings.Contains(main, "Second branch answer") {
		t.Errorf("--leaf aaaa0004: a branch past the leaf is in the main column")
	}
	if !strings.Contains(main, "continues past the exported entry in 2 branches") {
		t.Errorf("--leaf aaaa0004: no note of the two branches after it")
	}
}

func TestUnknownLeafWritesNothing(t *testing.T) {
	fdcheck.Check(t)
	var buf bytes.Buffer
	_, err := export.Render(&buf, readFixture(t), export.Options{Leaf: "ffff"})
	if !errors.Is(err, session.ErrUnknownLeaf) {
		t.Fatalf("err = %v, want ErrUnknownLeaf", err)
	}
	if buf.Len() != 0 {
		t.Errorf("wrote %d bytes for an unknown leaf", buf.Len())
	}
}

func TestToolCallsResultsAndThinking(t *testing.T) {
	fdcheck.Check(t)
	page := render(t, readFixture(t), "")
	call := article(t, page, "aaaa0002")
	for _, want := range []string{
		`<details class="thinking"><summary>Thinking</summary><div class="text">The user wants a listing; ls will do.</div></details>`,
		`<b>bash</b> <span class="meta">toolu_01</span>`,
		// a string argument of several lines reads as it was written
		"<span class=\"arg-name\">command</span><pre class=\"output\">ls -la\necho done</pre>",
		`<span class="arg-name">timeout</span> <code>30</code>`,
	} {
		if !strings.Contains(call, want) {
			t.Errorf("assistant entry lacks %q:\n%s", want, call)
		}
	}
	result := article(t, page, "aaaa0003")
	if !strings.Contains(result, "result of bash") || !strings.Contains(result, "main.go\nREADME.md\n&lt;/pre&gt;&lt;b&gt;not bold&lt;/b&gt;") {
		t.Errorf("tool result not shown as escaped text:\n%s", result)
	}
	failed := article(t, page, "cccc0009")
	if !strings.Contains(failed, `class="entry tool error`) || !strings.Contains(failed, "Permission denied") {
		t.Errorf("failed tool result not marked as an error:\n%s", failed)
	}
	img := article(t, page, "aaaa0001")
	if !regexp.MustCompile(`<img class="image" src="data:image/png;base64,iVBORw0KGgo[^"]*"`).MatchString(img) {
		t.Errorf("the user's image is not inlined as a data: URL:\n%s", img)
	}
}

const hostile = `</script><script>alert(1)</script><img src=x onerror=alert(2)><style>*{display:none}</style>"'&`

// hostileSession puts the same markup in every place session text reaches
// the page.
func hostileSession() *session.File {
	h := session.Header{Type: "session", Version: 3, ID: "id" + hostile, Timestamp: hostile, Cwd: hostile, ParentSession: hostile}
	args, _ := json.Marshal(map[string]any{"command": hostile, hostile: []string{hostile}})
	es := []session.Entry{
		session.ModelChangeEntry("", hostile, hostile),
		session.MessageEntry("", ai.Message{Role: ai.RoleUser, Content: []ai.Content{
			ai.TextContent(hostile),
			ai.ImageContent(`x"><script>alert(3)</script>`, "image/png"),
			ai.ImageContent("PHN2Zz4=", "image/svg+xml"),
			ai.ImageContent("AAAA", `image/png"><script>alert(4)</script>`),
		}}),
		session.MessageEntry("", ai.Message{Role: ai.RoleAssistant, Model: hostile, Provider: hostile,
			StopReason: ai.StopError, ErrorMessage: hostile, Content: []ai.Content{
				{Type: ai.TypeThinking, Thinking: hostile},
				{Type: ai.TypeToolCall, ID: hostile, Name: hostile, Arguments: args},
				ai.TextContent(hostile),
			}}),
		session.MessageEntry("", ai.Message{Role: ai.RoleToolResult, ToolName: hostile, ToolCallID: hostile,
			Content: []ai.Content{ai.TextContent(hostile)}, Details: json.RawMessage(`{"diff":` + strings.TrimSpace(string(must(json.Marshal(hostile)))) + `}`)}),
		{Type: session.TypeCompaction, Summary: hostile},
		{Type: session.TypeCustomMessage, CustomType: hostile, Content: []ai.Content{ai.TextContent(hostile)}},
		{Type: session.TypeSessionInfo, Name: &[]string{hostile}[0]},
		{Type: session.TypeLabel, TargetID: hostile, Label: &[]string{hostile}[0]},
		{Type: "future_type", Extra: map[string]json.RawMessage{"x": must(json.Marshal(hostile))}},
	}
	for i := range es {
		es[i].ID = strings.Repeat(string(rune('a'+i)), 8)
		if i > 0 {
			es[i].ParentID = session.Ref(es[i-1].ID)
		}
		es[i].Timestamp = hostile
	}
	return &session.File{Header: h, Entries: es}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

func TestSessionTextIsShownAsText(t *testing.T) {
	fdcheck.Check(t)
	page := render(t, hostileSession(), "")
	if regexp.MustCompile(`<script>alert|<img src=x|onerror=alert\(2\)>`).MatchString(page) {
		t.Errorf("hostile markup reached the page unescaped")
	}
	for tag, want := range map[string]int{"<script": 1, "<style": 1, "<img": 0, "<iframe": 0} {
		if n := strings.Count(strings.ToLower(page), tag); n != want {
			t.Errorf("%d %s elements on the page, want %d", n, tag, want)
		}
	}
	if n := strings.Count(page, "&lt;/script&gt;&lt;script&gt;alert(1)"); n < 10 {
		t.Errorf("the hostile text is shown escaped %d times; want it in every place it was put", n)
	}
	if !strings.Contains(page, `[image of type &#34;image/svg&#43;xml&#34; not shown]`) {
		t.Errorf("an SVG image was not refused")
	}
}

func TestContentSecurityPolicyAllowsOnlyThePagesOwnStyleAndScript(t *testing.T) {
	fdcheck.Check(t)
	page := render(t, readFixture(t), "")
	m := regexp.MustCompile(`<meta http-equiv="Content-Security-Policy" content="([^"]*)">`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no Content-Security-Policy")
	}
	csp := html.UnescapeString(m[1])
	if !strings.HasPrefix(csp, "default-src 'none'; img-src data:;") {
		t.Errorf("policy %q does not start by forbidding everything but data: images", csp)
	}
	for _, el := range []string{"style", "script"} {
		body := regexp.MustCompile(`(?s)<` + el + `>(.*?)</` + el + `>`).FindStringSubmatch(page)
		if body == nil {
			t.Fatalf("no <%s> on the page", el)
		}
		sum := sha256.Sum256([]byte(body[1]))
		want := el + "-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
		if !strings.Contains(csp, want) {
			t.Errorf("policy %q does not allow the page's own %s (%s)", csp, el, want)
		}
	}
}

func TestEmptySessionAndLoopedEntries(t *testing.T) {
	fdcheck.Check(t)
	empty := render(t, &session.File{Header: session.Header{ID: "e"}}, "")
	if !strings.Contains(empty, "This session has no entries.") {
		t.Errorf("an empty session does not say so")
	}
	// Two entries that name each other as parent: no root leads to them,
	// and they are still on the page.
	looped := &session.File{Header: session.Header{ID: "l"}, Entries: []session.Entry{
		session.MessageEntry("", ai.UserText("root prompt", 0)),
		session.MessageEntry("bbbbbbbb", ai.UserText("in a loop one", 0)),
		session.MessageEntry("cccccccc", ai.UserText("in a loop two", 0)),
	}}
	for i, id := range []string{"aaaaaaaa", "cccccccc", "bbbbbbbb"} {
		looped.Entries[i].ID = id
	}
	page := render(t, looped, "aaaaaaaa")
	if !strings.Contains(page, "Entries no root leads to") || !strings.Contains(page, "in a loop one") || !strings.Contains(page, "in a loop two") {
		t.Errorf("entries in a parent loop are missing from the page")
	}
}

// A long text is previewed from its start, cut at a character boundary:
// the tree line of a message of two-byte characters and of a tool call
// with a large argument stays valid UTF-8 and ends with an ellipsis.
func TestPreviewsOfLongTextStayValidText(t *testing.T) {
	fdcheck.Check(t)
	long := strings.Repeat("é", 5000)
	args := must(json.Marshal(map[string]string{"content": strings.Repeat("ü", 5000)}))
	f := &session.File{Header: session.Header{ID: "p"}, Entries: []session.Entry{
		session.MessageEntry("", ai.UserText(long, 0)),
		session.MessageEntry("aaaaaaaa", ai.Message{Role: ai.RoleAssistant, Content: []ai.Content{
			{Type: ai.TypeToolCall, ID: "c1", Name: "write", Arguments: args}}}),
	}}
	f.Entries[0].ID, f.Entries[1].ID = "aaaaaaaa", "bbbbbbbb"
	page := render(t, f, "")
	if !utf8.ValidString(page) {
		t.Fatalf("the page is not valid UTF-8")
	}
	if !strings.Contains(page, "</span> "+strings.Repeat("é", 79)+"…</a>") {
		t.Errorf("the tree does not preview the long message as its first 79 characters and …")
	}
	if !strings.Contains(page, `</span> write {&#34;content&#34;:&#34;üü`) {
		t.Errorf("the tree does not preview the tool call by its name and arguments")
	}
	if strings.Count(page, "é") < 5000 {
		t.Errorf("the message itself is not shown whole")
	}
}

package export_test

import (
	"encoding/json"
	"strings"
	"testing"

	"gopi/internal/fdcheck"
	"gopi/pkg/ai"
	"gopi/pkg/session"
)

// chain gives entries ids a1, a2, … and makes each the parent of the
// next unless its parent is already set.
func chain(es ...session.Entry) []session.Entry {
	for i := range es {
		es[i].ID = "a" + string(rune('a'+i/26)) + string(rune('a'+i%26))
		if es[i].ParentID == nil && i > 0 {
			es[i].ParentID = session.Ref(es[i-1].ID)
		}
	}
	return es
}

func strp(s string) *string { return &s }

func TestHeaderSumsTheWholeSession(t *testing.T) {
	fdcheck.Check(t)
	page := render(t, readFixture(t), "")
	for _, want := range []string{
		"<dt>Models</dt><dd>anthropic/claude-opus-4-6</dd>",
		"<dt>Messages</dt><dd>3 user, 5 assistant, 2 tool results</dd>",
		"<dt>Tool calls</dt><dd>2</dd>",
		"<dt>Tokens</dt><dd>↑890 ↓59</dd>",
		"<dt>Cost</dt><dd>$0.012</dd>",
		"<dt>Branches</dt><dd>2</dd>",
		"<dt>Folder</dt><dd>/work/project</dd>",
		`<dt>Path to</dt><dd><a href="#e-dddd000b">dddd000b</a></dd>`,
		"<title>gopi session 5e55a0e1-0000-4000-8000-000000000001</title>",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("header lacks %q", want)
		}
	}
}

func TestEveryKindOfEntryIsShown(t *testing.T) {
	fdcheck.Check(t)
	big := ai.Usage{Input: 12_345, Output: 1_500_000, CacheRead: 2_000, CacheWrite: 999}
	bash := map[string]json.RawMessage{"command": json.RawMessage(`"make test"`), "output": json.RawMessage(`"ok all"`)}
	es := chain(
		session.ModelChangeEntry("", "openai", "gpt-5"),
		session.ThinkingLevelEntry("", ai.ThinkingLevel("high")),
		session.MessageEntry("", ai.Message{Role: ai.RoleUser, Content: []ai.Content{
			ai.TextContent("look at this"), ai.ImageContent("UklGRg==", "image/webp")}}),
		session.MessageEntry("", ai.Message{Role: ai.RoleAssistant, Model: "gpt-5", Provider: "openai", Usage: big,
			StopReason: ai.StopLength, Content: []ai.Content{
				{Type: ai.TypeToolCall, ID: "c9", Name: "odd", Arguments: json.RawMessage(`[1,2]`)},
				{Type: ai.TypeThinking, Thinking: "secret", Redacted: true}}}),
		session.MessageEntry("", ai.Message{Role: ai.RoleToolResult, ToolName: "edit", ToolCallID: "c9",
			Content: []ai.Content{ai.TextContent("edited")}, Details: json.RawMessage(`{"diff":"-old\n+new"}`)}),
		session.MessageEntry("", ai.Message{Role: "bashExecution", Extra: bash}),
		session.Entry{Type: session.TypeCompaction, Summary: "the story so far", TokensBefore: 50_000},
		session.Entry{Type: session.TypeBranchSummary, Summary: "what the other branch did"},
		session.Entry{Type: session.TypeCustomMessage, CustomType: "note", Content: []ai.Content{ai.TextContent("from an extension")}},
		session.Entry{Type: session.TypeSessionInfo, Name: strp("Release prep")},
		session.Entry{Type: session.TypeLabel, TargetID: "aac", Label: strp("start")},
		session.Entry{Type: "future_kind", Extra: map[string]json.RawMessage{"answer": json.RawMessage(`42`)}},
		session.MessageEntry("", ai.Message{Role: ai.RoleAssistant, StopReason: ai.StopError, ErrorMessage: "overloaded"}),
	)
	page := render(t, &session.File{Header: session.Header{ID: "k"}, Entries: es}, "")
	for id, wants := range map[string][]string{
		"aaa": {`<span class="role">model</span>`, "openai/gpt-5"},
		"aab": {"thinking level", "high"},
		"aac": {`src="data:image/webp;base64,UklGRg=="`, "look at this", `<span class="label">[start]</span>`},
		"aad": {"↑12k ↓1.5M", "stopped at the length limit", "(encrypted by the provider)",
			`<span class="arg-name">arguments</span><pre class="output">[1,2]</pre>`},
		"aae": {"result of edit", `<div class="block-title">diff</div>`, "-old\n&#43;new"},
		"aaf": {"bash (user)", "$ make test\nok all"},
		"aag": {"compaction (from 50000 tokens)", "the story so far"},
		"aah": {"branch summary", "what the other branch did"},
		"aai": {"[note]", "from an extension"},
		"aaj": {"session name", "Release prep"},
		"aak": {"start on aac"},
		"aal": {"future_kind", "&#34;answer&#34;: 42"},
		"aam": {`<p class="error-text">error: overloaded</p>`},
	} {
		a := article(t, page, id)
		for _, want := range wants {
			if !strings.Contains(a, want) {
				t.Errorf("entry %s lacks %q:\n%s", id, want, a)
			}
		}
	}
	for _, want := range []string{"<title>Release prep</title>", "<dt>Tokens</dt><dd>↑12k ↓1.5M R2.0k W999</dd>", "<dt>Models</dt><dd>openai/gpt-5</dd>"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

// A folded branch with a fork of its own continues towards its newest
// entry and folds the older side again; a second root is folded above
// the main column; the tree draws the forks as gopi session tree does.
func TestFoldedBranchesFollowTheirNewestEntry(t *testing.T) {
	fdcheck.Check(t)
	u := func(parent, text string) session.Entry { return session.MessageEntry(parent, ai.UserText(text, 0)) }
	es := []session.Entry{
		u("", "root"), u("r0000001", "main path"), u("r0000001", "side start"),
		u("s0000003", "side older"), u("s0000003", "side newer"), u("", "second root"),
	}
	for i, id := range []string{"r0000001", "m0000002", "s0000003", "o0000004", "n0000005", "x0000006"} {
		es[i].ID = id
	}
	page := render(t, &session.File{Header: session.Header{ID: "f"}, Entries: es}, "m0000002")
	main := mainColumn(t, page)
	if !strings.Contains(main, "main path") || strings.Contains(main, "side start") || strings.Contains(main, "second root") {
		t.Errorf("main column is not the path to m0000002:\n%s", main)
	}
	if !strings.Contains(main, "1 other root:") || !strings.Contains(main, "1 other branch leaves here:") {
		t.Errorf("main column does not announce the other root and the branch")
	}
	side := page[strings.Index(page, `id="b-s0000003"`):]
	if !strings.Contains(side[:200], "3 entries · newest n0000005") {
		t.Errorf("the side branch's summary does not count its entries and name its newest:\n%s", side[:200])
	}
	// Inside it, the newer entry continues the branch's column and the
	// older one is folded as a branch of its own.
	if !strings.Contains(side, `id="b-o0000004"`) || strings.Contains(side, `id="b-n0000005"`) {
		t.Errorf("the side branch does not continue towards its newest entry:\n%s", side)
	}
	for _, line := range []string{
		`<li class="on-path"><a href="#e-r0000001"><span class="prefix"></span><span class="kind">user</span> root</a></li>`,
		`<li class="on-path"><a href="#e-m0000002"><span class="prefix">├─ </span>● <span class="kind">user</span> main path</a></li>`,
		`<li><a href="#e-o0000004"><span class="prefix">   ├─ </span>● <span class="kind">user</span> side older</a></li>`,
		`<li><a href="#e-n0000005"><span class="prefix">   └─ </span>● <span class="kind">user</span> side newer</a></li>`,
		`<li><a href="#e-x0000006"><span class="prefix"></span>● <span class="kind">user</span> second root</a></li>`,
	} {
		if !strings.Contains(page, line) {
			t.Errorf("tree lacks %s", line)
		}
	}
}

// Code fences in a message show as code with their language; the text
// around them is the answer's Markdown, and markup inside them stays text.
func TestCodeFencesShowAsCode(t *testing.T) {
	fdcheck.Check(t)
	text := "Run this:\n```go\nfunc main() { fmt.Println(\"<b>hi</b>\") }\n```\nthen\n   ```\nunclosed <i>code</i>"
	es := chain(session.MessageEntry("", ai.Message{Role: ai.RoleAssistant, Content: []ai.Content{ai.TextContent(text)}}))
	a := article(t, render(t, &session.File{Header: session.Header{ID: "c"}, Entries: es}, ""), "aaa")
	for _, want := range []string{
		`<div class="md"><p>Run this:</p></div>`,
		`<pre class="code" data-lang="go"><code>func main() { fmt.Println(&#34;&lt;b&gt;hi&lt;/b&gt;&#34;) }</code></pre>`,
		`<div class="md"><p>then</p></div>`,
		`<pre class="code"><code>unclosed &lt;i&gt;code&lt;/i&gt;</code></pre>`,
	} {
		if !strings.Contains(a, want) {
			t.Errorf("message lacks %s:\n%s", want, a)
		}
	}
}

// A tool's output is shown as it is: a fence in a file it read stays.
func TestToolOutputKeepsItsFences(t *testing.T) {
	fdcheck.Check(t)
	out := "# Title\n```sh\nmake\n```\n"
	es := chain(session.MessageEntry("", ai.Message{Role: ai.RoleToolResult, ToolName: "read", Content: []ai.Content{ai.TextContent(out)}}))
	a := article(t, render(t, &session.File{Header: session.Header{ID: "v"}, Entries: es}, ""), "aaa")
	if !strings.Contains(a, "<pre class=\"output\"># Title\n```sh\nmake\n```\n</pre>") {
		t.Errorf("the tool output is not shown verbatim:\n%s", a)
	}
}

// An answer's Markdown shows as what it means, in a small subset: lines
// and paragraphs, lists, inline code, strong and emphasis, and links to
// http, https and mailto targets or anchors of the page. Everything else
// stays text: markup is escaped, a link to any other scheme shows its text
// and its target, snake_case and a lone star are not emphasis.
func TestAnswerMarkdownIsRenderedSafely(t *testing.T) {
	fdcheck.Check(t)
	text := "# Plan\nFirst **read** the *notes* and `go test ./...`;\nkeep my_var_name as is, 2 * 3.\n\n" +
		"- one [docs](https://go.dev/doc) item\n- two <b>bold</b>\n  continued\n1. first\n2) second\n\n" +
		"[x](javascript:alert(1)) [y](JavaScript:alert(1)) [m](mailto:a@b.c) [z](data:text/html,hi) [a](#e-aaa) [h](http:nohost)\n" +
		"`<script>alert(1)</script>` and _under_ and **un*closed"
	es := chain(session.MessageEntry("", ai.Message{Role: ai.RoleAssistant, Content: []ai.Content{ai.TextContent(text)}}))
	a := article(t, render(t, &session.File{Header: session.Header{ID: "md"}, Entries: es}, ""), "aaa")
	want := `<div class="md"><p class="md-h"><strong>Plan</strong></p>` +
		`<p>First <strong>read</strong> the <em>notes</em> and <code>go test ./...</code>;<br>keep my_var_name as is, 2 * 3.</p>` +
		`<ul><li>one <a href="https://go.dev/doc">docs</a> item</li><li>two &lt;b&gt;bold&lt;/b&gt;<br>continued</li></ul>` +
		`<ol><li>first</li><li>second</li></ol>` +
		`<p>x (javascript:alert(1)) y (JavaScript:alert(1)) <a href="mailto:a@b.c">m</a> z (data:text/html,hi) <a href="#e-aaa">a</a> h (http:nohost)<br>` +
		`<code>&lt;script&gt;alert(1)&lt;/script&gt;</code> and <em>under</em> and *<em>un</em>closed</p></div>` // as CommonMark has it
	if !strings.Contains(a, want) {
		t.Errorf("answer\n%s\nwant\n%s", a, want)
	}
	// A user's prompt stays the text it is.
	es = chain(session.MessageEntry("", ai.Message{Role: ai.RoleUser, Content: []ai.Content{ai.TextContent("**not bold**")}}))
	u := article(t, render(t, &session.File{Header: session.Header{ID: "u"}, Entries: es}, ""), "aaa")
	if !strings.Contains(u, `<div class="text">**not bold**</div>`) {
		t.Errorf("the prompt is not shown as typed:\n%s", u)
	}
}

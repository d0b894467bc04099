package export_test

import (
	"bytes"
	"context"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"gopi/pkg/ai"
	"gopi/pkg/export"
	"gopi/pkg/session"
)

// chromium finds Debian's headless browser. Without it the test fails:
// CI installs it (.ci/run); GOPI_NO_BROWSER=1 skips the browser tests on
// a machine that cannot have one.
func chromium(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("chromium")
	if err == nil {
		return path
	}
	if os.Getenv("GOPI_NO_BROWSER") == "1" {
		t.Skip("chromium not installed and GOPI_NO_BROWSER=1")
	}
	t.Fatalf("chromium not found (%v): install it (apt-get install -y chromium) or set GOPI_NO_BROWSER=1 to skip this test", err)
	return ""
}

// browse runs headless Chromium on the page with a fresh profile and the
// network features off, and returns the document after the page's script
// ran and the console messages the browser logged (a policy violation is
// one). A screenshot goes to the test's artifact folder (go test
// -artifacts keeps it), named in the test's log.
func browse(t *testing.T, bin, pageURL, shotName string) (dom, console string) {
	t.Helper()
	shot := filepath.Join(t.ArtifactDir(), shotName)
	extra := []string{"--dump-dom", "--screenshot=" + shot}
	// Not a timing assertion: a bound on a browser that hangs.
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + t.TempDir(), "--enable-logging=stderr", "--v=0", "--window-size=1280,1400"}, extra...)
	cmd := exec.CommandContext(ctx, bin, append(args, pageURL)...)
	var out, errs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errs
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %s: %v\n%s", strings.Join(extra, " "), err, errs.String())
	}
	if st, err := os.Stat(shot); err != nil || st.Size() == 0 {
		t.Errorf("no screenshot: %v", err)
	}
	t.Logf("screenshot: %s", shot)
	var msgs []string
	for _, l := range strings.Split(errs.String(), "\n") {
		if strings.Contains(l, "CONSOLE") || strings.Contains(l, "Content Security Policy") || strings.Contains(l, "Refused to") {
			msgs = append(msgs, l)
		}
	}
	return out.String(), strings.Join(msgs, "\n")
}

// writePage exports the forked fixture to a file and returns its URL;
// edit changes the page first.
func writePage(t *testing.T, edit func(string) string) string {
	t.Helper()
	var buf bytes.Buffer
	if _, err := export.Render(&buf, readFixture(t), export.Options{}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "session.html")
	if err := os.WriteFile(path, []byte(edit(buf.String())), 0o600); err != nil {
		t.Fatal(err)
	}
	return (&url.URL{Scheme: "file", Path: path}).String()
}

func unchanged(s string) string { return s }

var tags = regexp.MustCompile(`<[^>]*>`)

// text is what a reader reads: the DOM without its tags.
func text(dom string) string {
	r := strings.NewReplacer("&lt;", "<", "&gt;", ">", "&quot;", `"`, "&#39;", "'", "&amp;", "&")
	return r.Replace(tags.ReplaceAllString(dom, ""))
}

func TestBrowserShowsTheSession(t *testing.T) {
	t.Parallel() // no fdcheck here: a browser's run is its own process
	bin := chromium(t)
	page := writePage(t, unchanged)

	dom, console := browse(t, bin, page+"#e-bbbb0006", "export.png")
	if console != "" {
		t.Errorf("the browser reported:\n%s", console)
	}
	if !strings.Contains(dom, `data-script="ran"`) {
		t.Errorf("the page's script did not run (blocked by its own policy?)")
	}
	read := text(dom)
	for _, want := range []string{
		"List the files in the project, please.",   // the prompt
		"The project holds main.go and README.md.", // an answer
		"result of bash", "ls -la\necho done", "Permission denied", // a tool call, its result, a failed one
		"First branch answer: main.go starts the program.", // both branches
		"Second branch answer: the file is write-protected.",
		"Explain main.go </script><script>document.title='pwned'</script>", // session markup shown as text
	} {
		if !strings.Contains(read, want) {
			t.Errorf("the reader does not see %q", want)
		}
	}
	if !strings.Contains(dom, `<pre class="code" data-lang="go"><code>package main</code></pre>`) {
		t.Errorf("the answer's code block is not shown as code")
	}
	if strings.Contains(dom, "<title>pwned") {
		t.Errorf("a script from the session ran")
	}
	// The link to an entry of a folded branch opened that branch.
	if !regexp.MustCompile(`<details class="branch" id="b-bbbb0005" open="">`).MatchString(dom) {
		t.Errorf("the branch holding #e-bbbb0006 is still folded:\n%s", dom)
	}
	if !regexp.MustCompile(`<div class="toolbar" id="toolbar">`).MatchString(dom) {
		t.Errorf("the toolbar was not shown")
	}
}

// The page reads without script: everything is in the document, the
// toolbar (which needs script) stays hidden. --dump-dom needs script, so
// the page's own script is cut out instead of turned off.
func TestBrowserReadsWithoutScript(t *testing.T) {
	t.Parallel()
	bin := chromium(t)
	page := writePage(t, func(s string) string {
		return regexp.MustCompile(`(?s)<script>.*</script>`).ReplaceAllString(s, "")
	})
	dom, console := browse(t, bin, page, "export-noscript.png")
	if console != "" {
		t.Errorf("the browser reported:\n%s", console)
	}
	if strings.Contains(dom, `data-script="ran"`) || strings.Contains(dom, "<script") {
		t.Fatalf("the page still has its script")
	}
	read := text(dom)
	for _, want := range []string{"List the files in the project, please.", "First branch answer", "Second branch answer", "ls -la"} {
		if !strings.Contains(read, want) {
			t.Errorf("without script the reader does not see %q", want)
		}
	}
	if !strings.Contains(dom, `<div class="toolbar" id="toolbar" hidden="">`) {
		t.Errorf("the toolbar shows without the script that works it")
	}
}

// The search box filters the entries: ?search=WORDS in the address fills
// it in, as typing would. Entries without the words are hidden (their
// lines in the tree too), the folded branch holding a match opens, the
// count says how many are left, and the page's policy is not breached.
func TestBrowserSearchFiltersEntries(t *testing.T) {
	t.Parallel()
	bin := chromium(t)
	page := writePage(t, unchanged)
	dom, console := browse(t, bin, page+"?search=starts%20THE%20program", "export-search.png")
	if console != "" {
		t.Errorf("the browser reported:\n%s", console)
	}
	if !strings.Contains(dom, `data-script="ran"`) {
		t.Fatalf("the page's script did not run")
	}
	shown := regexp.MustCompile(`<article class="entry [^"]*" id="(e-[0-9a-f]+)">`).FindAllStringSubmatch(dom, -1)
	hidden := regexp.MustCompile(`<article class="entry [^"]*" id="(e-[0-9a-f]+)" hidden="">`).FindAllStringSubmatch(dom, -1)
	if len(shown) != 1 || shown[0][1] != "e-bbbb0006" || len(hidden) < 5 {
		t.Errorf("shown %v, %d hidden; want only e-bbbb0006 shown", shown, len(hidden))
	}
	if !regexp.MustCompile(`<details class="branch" id="b-bbbb0005" open="">`).MatchString(dom) {
		t.Errorf("the branch holding the match is still folded")
	}
	if !regexp.MustCompile(`<li[^>]* hidden=""><a href="#e-cccc000a">`).MatchString(dom) ||
		regexp.MustCompile(`<li[^>]*hidden=""[^>]*><a href="#e-bbbb0006">`).MatchString(dom) {
		t.Errorf("the tree's lines do not follow the filter")
	}
	if !regexp.MustCompile(`<span id="search-count" [^>]*>1 of \d+ entries</span>`).MatchString(dom) {
		t.Errorf("no count of the entries shown")
	}
	if !strings.Contains(dom, `<input type="search" id="search"`) {
		t.Errorf("no search box")
	}
}

// An answer's Markdown reaches the reader as formatting, and its links
// only with safe targets.
func TestBrowserShowsAnswerMarkdown(t *testing.T) {
	t.Parallel()
	bin := chromium(t)
	answer := "Done:\n- **bold** and *em*\n- `code` and [docs](https://go.dev/doc)\n\n[bad](javascript:document.title='pwned')"
	m := session.MessageEntry("", ai.Message{Role: ai.RoleAssistant, Content: []ai.Content{ai.TextContent(answer)}})
	m.ID = "aaa"
	var buf bytes.Buffer
	if _, err := export.Render(&buf, &session.File{Header: session.Header{ID: "md"}, Entries: []session.Entry{m}}, export.Options{}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "md.html")
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	dom, console := browse(t, bin, (&url.URL{Scheme: "file", Path: path}).String(), "export-markdown.png")
	if console != "" {
		t.Errorf("the browser reported:\n%s", console)
	}
	want := `<div class="md"><p>Done:</p><ul><li><strong>bold</strong> and <em>em</em></li>` +
		`<li><code>code</code> and <a href="https://go.dev/doc">docs</a></li></ul><p>bad (javascript:document.title='pwned')</p></div>`
	if !strings.Contains(dom, want) {
		t.Errorf("the answer is not shown as its Markdown:\n%s", dom)
	}
	if strings.Contains(dom, "<title>pwned") || strings.Contains(dom, `href="javascript`) {
		t.Errorf("an unsafe link reached the page")
	}
}

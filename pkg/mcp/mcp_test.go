package mcp_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"gopi/internal/fdcheck"
	"gopi/pkg/ai"
	"gopi/pkg/mcp"
	"gopi/pkg/tools"
)

// TestMain makes the test binary the stdio test server when asked
// (GOPI_MCP_TEST_SERVER), and otherwise fails the package when its tests
// leave a goroutine or a file descriptor behind.
func TestMain(m *testing.M) {
	if mode, ok := os.LookupEnv("GOPI_MCP_TEST_SERVER"); ok {
		serveStdio(mode)
	}
	goleak.VerifyTestMain(m, goleak.Cleanup(fdMain()))
}

// stdioServer configures the test binary as a stdio server.
func stdioServer(t testing.TB, name, mode string) mcp.Server {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return mcp.Server{Name: name, Command: exe, Env: map[string]string{"GOPI_MCP_TEST_SERVER": mode}}
}

// reports collects what a manager reports.
type reports struct {
	mu   sync.Mutex
	list []mcp.Status
}

func (r *reports) add(st mcp.Status) { r.mu.Lock(); r.list = append(r.list, st); r.mu.Unlock() }

func (r *reports) all() []mcp.Status {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]mcp.Status(nil), r.list...)
}

func start(t testing.TB, opts mcp.Options, servers ...mcp.Server) *mcp.Manager {
	t.Helper()
	if opts.Environ == nil {
		opts.Environ = []string{"PATH=" + os.Getenv("PATH")}
	}
	m := mcp.Start(context.Background(), servers, opts)
	t.Cleanup(func() {
		if left := m.Close(); len(left) > 0 {
			t.Errorf("servers still running after Close: %v", left)
		}
	})
	return m
}

// call runs one tool call through a registry that has the manager's
// tools, as the loop does.
func call(t testing.TB, reg *tools.Registry, name, args string) tools.Result {
	t.Helper()
	return reg.Execute(context.Background(), ai.ToolCallContent("c1", name, json.RawMessage(args)), nil)
}

func registry(t testing.TB, m *mcp.Manager) *tools.Registry {
	t.Helper()
	reg, err := tools.NewRegistry(tools.Env{Cwd: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	reg.AddSource(m)
	return reg
}

func resultText(r tools.Result) string {
	var parts []string
	for _, c := range r.Content {
		if c.Type == ai.TypeText {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func specNames(reg *tools.Registry) []string {
	var names []string
	for _, s := range reg.Specs() {
		names = append(names, s.Name)
	}
	return names
}

func TestStdioToolsAndResults(t *testing.T) {
	fdcheck.Check(t)
	m := start(t, mcp.Options{}, stdioServer(t, "test-srv", ""))
	st := m.Statuses()[0]
	if st.State != mcp.StateStarted {
		t.Fatalf("state %s: %s", st.State, st.Message())
	}
	reg := registry(t, m)
	names := strings.Join(specNames(reg), ",")
	for _, want := range []string{"mcp__test_srv__echo", "mcp__test_srv__add", "mcp__test_srv__image"} {
		if !strings.Contains(names, want) {
			t.Errorf("tools %s: no %s", names, want)
		}
	}
	for _, s := range reg.Specs() {
		if s.Name == "mcp__test_srv__add" && !strings.Contains(string(s.Parameters), `"the first number"`) {
			t.Errorf("add's parameters are not the server's schema: %s", s.Parameters)
		}
	}

	if r := call(t, reg, "mcp__test_srv__echo", `{"text":"hi"}`); r.IsError || resultText(r) != "echo: hi" {
		t.Errorf("echo: %+v", r)
	}
	r := call(t, reg, "mcp__test_srv__add", `{"a":2,"b":3}`)
	d, _ := r.Details.(*mcp.Details)
	if r.IsError || d == nil || string(d.Structured) != `{"sum":5}` || !strings.Contains(resultText(r), `"sum":5`) {
		t.Errorf("add: %+v %+v", r, d)
	}
	r = call(t, reg, "mcp__test_srv__image", `{}`)
	if len(r.Content) != 2 || r.Content[1].Type != ai.TypeImage || r.Content[1].MimeType != "image/png" || r.Content[1].Data == "" {
		t.Errorf("image: %+v", r.Content)
	}
	if r := call(t, reg, "mcp__test_srv__fail", `{}`); !r.IsError || resultText(r) != "the widget is broken" {
		t.Errorf("isError not kept: %+v", r)
	}
	// arguments the schema refuses never reach the server
	r = call(t, reg, "mcp__test_srv__add", `{"a":"two","b":3}`)
	if !r.IsError || !strings.Contains(resultText(r), "Invalid arguments for tool mcp__test_srv__add") || !strings.Contains(resultText(r), "a") {
		t.Errorf("invalid arguments: %+v", r)
	}
	// a large result is bounded like a built-in tool's output
	r = call(t, reg, "mcp__test_srv__big", `{"lines":5000}`)
	text := resultText(r)
	if !strings.Contains(text, "line 2000\n") || strings.Contains(text, "line 2001") || !strings.Contains(text, "[Output truncated") {
		t.Errorf("big result not bounded: %d bytes, tail %q", len(text), text[max(0, len(text)-200):])
	}
}

func TestListChangedBetweenTurns(t *testing.T) {
	fdcheck.Check(t)
	m := start(t, mcp.Options{}, stdioServer(t, "s", ""))
	reg := registry(t, m)
	if strings.Contains(strings.Join(specNames(reg), ","), "mcp__s__grown") {
		t.Fatal("grown offered before it exists")
	}
	if r := call(t, reg, "mcp__s__grow", `{}`); r.IsError {
		t.Fatalf("grow: %+v", r)
	}
	// The notification comes after the answer; each Specs is a new turn.
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(strings.Join(specNames(reg), ","), "mcp__s__grown") {
		if time.Now().After(deadline) {
			t.Fatal("the new tool never reached the list")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if r := call(t, reg, "mcp__s__grown", `{}`); r.IsError || resultText(r) != "grown here" {
		t.Errorf("grown: %+v", r)
	}
}

func TestServerThatDiesMidCall(t *testing.T) {
	fdcheck.Check(t)
	var rep reports
	m := start(t, mcp.Options{Report: rep.add}, stdioServer(t, "w", ""))
	reg := registry(t, m)
	r := call(t, reg, "mcp__w__crash", `{}`)
	text := resultText(r)
	if !r.IsError || !strings.Contains(text, "MCP server w stopped: the server exited with code 7") || !strings.Contains(text, "fatal: the widget store is gone") {
		t.Errorf("crash result: %+v", r)
	}
	if got := rep.all(); len(got) != 1 || got[0].State != mcp.StateDied {
		t.Errorf("reported %+v", got)
	}
	if names := specNames(reg); len(names) != 0 {
		t.Errorf("a dead server's tools are still offered: %v", names)
	}
	if r := call(t, reg, "mcp__w__echo", `{"text":"x"}`); !r.IsError {
		t.Errorf("call to a withdrawn tool: %+v", r)
	}
}

func TestStartFailures(t *testing.T) {
	fdcheck.Check(t)
	bad := stdioServer(t, "exits", "exit")
	missing := mcp.Server{Name: "missing", Command: "no-such-mcp-server-here"}
	unset := stdioServer(t, "unset", "")
	unset.Env["TOKEN"] = "${GOPI_TEST_UNSET_VAR}"
	off := stdioServer(t, "off", "")
	off.Disabled = true
	m := start(t, mcp.Options{}, bad, missing, unset, off)
	sts := m.Statuses()
	want := []struct {
		state  mcp.State
		reason string
	}{
		{mcp.StateFailed, "the server exited with code 3 before it answered"},
		{mcp.StateFailed, `command "no-such-mcp-server-here" not found in PATH`},
		{mcp.StateFailed, "env TOKEN: ${GOPI_TEST_UNSET_VAR} is not set"},
		{mcp.StateDisabled, ""},
	}
	for i, w := range want {
		if sts[i].State != w.state || sts[i].Reason != w.reason {
			t.Errorf("%s: %s %q, want %s %q", sts[i].Server.Name, sts[i].State, sts[i].Reason, w.state, w.reason)
		}
	}
	if !strings.Contains(sts[0].Stderr, "cannot open the widget store") {
		t.Errorf("stderr tail %q", sts[0].Stderr)
	}
	if len(m.Tools()) != 0 {
		t.Error("tools of servers that did not start")
	}
}

func TestHTTPHeadersAndToken(t *testing.T) {
	fdcheck.Check(t)
	var mu sync.Mutex
	var seen []string
	ts := httpServer(t, func(r *http.Request) bool {
		mu.Lock()
		seen = append(seen, r.Header.Get("Authorization")+"|"+r.Header.Get("X-Team"))
		mu.Unlock()
		return r.Header.Get("Authorization") == "Bearer tok-123" && r.Header.Get("X-Team") == "blue"
	})
	env := map[string]string{"DOCS_TOKEN": "tok-123", "TEAM": "blue"}
	getenv := func(k string) string { return env[k] }
	s := mcp.Server{Name: "docs", URL: ts.URL, BearerTokenEnv: "DOCS_TOKEN", Headers: map[string]string{"X-Team": "${TEAM}"}}
	m := start(t, mcp.Options{Getenv: getenv}, s)
	if st := m.Statuses()[0]; st.State != mcp.StateStarted {
		t.Fatalf("%s", st.Message())
	}
	reg := registry(t, m)
	if r := call(t, reg, "mcp__docs__echo", `{"text":"over http"}`); r.IsError || resultText(r) != "echo: over http" {
		t.Errorf("echo: %+v", r)
	}
	mu.Lock()
	for _, h := range seen {
		if h != "Bearer tok-123|blue" {
			t.Errorf("a request without the headers: %q", h)
		}
	}
	mu.Unlock()

	// a wrong token: the server does not start, and the reason holds no token
	env["DOCS_TOKEN"] = "tok-wrong"
	m2 := start(t, mcp.Options{Getenv: getenv}, s)
	st := m2.Statuses()[0]
	if st.State != mcp.StateFailed || strings.Contains(st.Message(), "tok-") {
		t.Errorf("wrong token: %s %q", st.State, st.Message())
	}
	// an unset token variable is named
	delete(env, "DOCS_TOKEN")
	m3 := start(t, mcp.Options{Getenv: getenv}, s)
	if st := m3.Statuses()[0]; st.State != mcp.StateFailed || !strings.Contains(st.Reason, "bearerTokenEnvVar DOCS_TOKEN is not set") {
		t.Errorf("unset token: %s %q", st.State, st.Reason)
	}
}

func TestHTTPServerThatNeverAnswers(t *testing.T) {
	fdcheck.Check(t)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body) // then the server notices the client going away
		<-r.Context().Done()
	}))
	// Close waits for the handlers: gopi must have given up every request.
	defer ts.Close()
	m := start(t, mcp.Options{StartTimeout: 200 * time.Millisecond}, mcp.Server{Name: "mute", URL: ts.URL})
	st := m.Statuses()[0]
	if st.State != mcp.StateFailed || !strings.Contains(st.Reason, "no answer within the start timeout of 200ms") {
		t.Errorf("%s %q", st.State, st.Reason)
	}
}

func TestCallTimeoutAndAbort(t *testing.T) {
	fdcheck.Check(t)
	ts := httpServer(t, nil)
	m := start(t, mcp.Options{CallTimeout: 300 * time.Millisecond}, mcp.Server{Name: "slow", URL: ts.URL})
	reg := registry(t, m)
	r := call(t, reg, "mcp__slow__wait", `{}`)
	if !r.IsError || !strings.Contains(resultText(r), "MCP tool mcp__slow__wait timed out after 300ms") {
		t.Errorf("timeout: %+v", r)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan tools.Result)
	go func() {
		done <- reg.Execute(ctx, ai.ToolCallContent("c2", "mcp__slow__wait", json.RawMessage(`{}`)), nil)
	}()
	cancel()
	if r := <-done; !r.IsError || !strings.Contains(resultText(r), "aborted") {
		t.Errorf("abort: %+v", r)
	}
	// the server still answers after both
	if r := call(t, reg, "mcp__slow__echo", `{"text":"still here"}`); r.IsError {
		t.Errorf("after the timeout: %+v", r)
	}
}

func TestSelect(t *testing.T) {
	fdcheck.Check(t)
	m := start(t, mcp.Options{Select: func(n string) bool { return n == "mcp__s__echo" }}, stdioServer(t, "s", ""))
	if names := specNames(registry(t, m)); len(names) != 1 || names[0] != "mcp__s__echo" {
		t.Errorf("offered %v", names)
	}
	for _, ti := range m.Statuses()[0].Tools {
		if ti.Selected != (ti.Name == "mcp__s__echo") {
			t.Errorf("%s marked offered=%v", ti.Name, ti.Selected)
		}
	}
}

func BenchmarkCallRoundTrip(b *testing.B) {
	m := mcp.Start(context.Background(), []mcp.Server{stdioServer(b, "s", "")}, mcp.Options{Environ: []string{"PATH=" + os.Getenv("PATH")}})
	defer m.Close()
	reg, err := tools.NewRegistry(tools.Env{Cwd: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	reg.AddSource(m)
	reg.Specs()
	c := ai.ToolCallContent("c", "mcp__s__echo", json.RawMessage(`{"text":"hello"}`))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if r := reg.Execute(context.Background(), c, nil); r.IsError {
			b.Fatal(resultText(r))
		}
	}
}

// httpServer serves the test server over streamable HTTP; check may
// refuse a request (it answers 401).
func httpServer(t testing.TB, check func(*http.Request) bool) *httptest.Server {
	srv := testServer()
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if check != nil && !check(r) {
			http.Error(w, "who are you?", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	return ts
}

// A server whose tools/list fails (an error answer, no answer, a schema
// nested 5,000 deep) is a failed start that Close ends: Close once waited
// for a connection watcher that never started.
func TestFailedToolListCloses(t *testing.T) {
	fdcheck.Check(t)
	for _, mode := range []string{"listerror", "listhang", "listdeep", "http listerror", "http listhang"} {
		t.Run(mode, func(t *testing.T) {
			server := stdioServer(t, "l", mode)
			if m, ok := strings.CutPrefix(mode, "http "); ok {
				srv := testServer()
				release := make(chan struct{})
				failList(srv, m, release)
				h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)
				ts := httptest.NewServer(h)
				defer ts.Close()
				defer close(release) // before Close, which waits for the handler
				server = mcp.Server{Name: "l", URL: ts.URL}
			}
			// Only a hang waits out the start timeout; the others must fail
			// by themselves, however loaded the machine is.
			timeout := time.Minute
			if strings.HasSuffix(mode, "listhang") {
				timeout = 2 * time.Second
			}
			m := mcp.Start(context.Background(), []mcp.Server{server},
				mcp.Options{Environ: []string{"PATH=" + os.Getenv("PATH")}, StartTimeout: timeout})
			st := m.Statuses()[0]
			closed := make(chan []string)
			go func() { closed <- m.Close() }()
			select {
			case left := <-closed:
				if len(left) > 0 {
					t.Errorf("still running: %v", left)
				}
			case <-time.After(time.Minute):
				t.Fatal("Close did not return")
			}
			want := map[string]string{
				"listerror":      `listing its tools: calling "tools/list": the tool index is corrupt`,
				"listhang":       "no answer within the start timeout of 2s",
				"listdeep":       "the server exited with code 1 while listing its tools", // it cannot write so deep a schema
				"http listerror": `listing its tools: calling "tools/list": the tool index is corrupt`,
				"http listhang":  "no answer within the start timeout of 2s",
			}[mode]
			if st.State != mcp.StateFailed || !strings.Contains(st.Reason, want) {
				t.Errorf("%s %q, want %q", st.State, st.Reason, want)
			}
		})
	}
}

// A server that redirects to another origin gets neither the bearer
// token nor the configured headers there: they once went along with
// every request the client made, wherever it was sent.
func TestHTTPRedirectKeepsCredentials(t *testing.T) {
	fdcheck.Check(t)
	var mu sync.Mutex
	var leaked []string
	other := httpServer(t, func(r *http.Request) bool {
		mu.Lock()
		defer mu.Unlock()
		if a, x := r.Header.Get("Authorization"), r.Header.Get("X-Team"); a != "" || x != "" {
			leaked = append(leaked, a+"|"+x)
		}
		return true
	})
	redirect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer redirect.Close()
	env := map[string]string{"DOCS_TOKEN": "tok-123"}
	s := mcp.Server{Name: "docs", URL: redirect.URL + "/mcp", BearerTokenEnv: "DOCS_TOKEN", Headers: map[string]string{"X-Team": "blue"}}
	m := start(t, mcp.Options{Getenv: func(k string) string { return env[k] }}, s)
	if st := m.Statuses()[0]; st.State == mcp.StateStarted {
		call(t, registry(t, m), "mcp__docs__echo", `{"text":"x"}`)
	}
	m.Close()
	mu.Lock()
	defer mu.Unlock()
	if len(leaked) > 0 {
		t.Errorf("another origin received the credentials: %q", leaked)
	}
}

// Structured content is bounded like text: a result's details once held
// all of it, however large, and the session file kept it whole although
// the model saw only the bounded text.
func TestStructuredContentBounded(t *testing.T) {
	fdcheck.Check(t)
	m := start(t, mcp.Options{}, stdioServer(t, "s", ""))
	reg := registry(t, m)
	r := call(t, reg, "mcp__s__bigstruct", `{"lines":100000}`)
	d, _ := r.Details.(*mcp.Details)
	if r.IsError || d == nil {
		t.Fatalf("bigstruct: %+v", r)
	}
	if len(d.Structured) > tools.DefaultMaxBytes || d.StructuredBytes < 100000*len(`"line 1",`) {
		t.Errorf("structured content kept: %d bytes, omitted %d", len(d.Structured), d.StructuredBytes)
	}
	if text := resultText(r); !strings.Contains(text, "[Output truncated") {
		t.Errorf("text: %.200q", text)
	}
	r = call(t, reg, "mcp__s__bigstruct", `{"lines":2}`)
	if d, _ := r.Details.(*mcp.Details); d == nil || string(d.Structured) != `{"lines":["line 1","line 2"]}` || d.StructuredBytes != 0 {
		t.Errorf("small structured content: %+v", d)
	}
}

// What a tool adds to every request is bounded, and a schema that is not
// an object is not sent: a 2 MB description is cut, a tool with a huge
// enum or an array for a schema is not offered, and Report says so.
// They were once sent as the server gave them.
func TestToolListBounds(t *testing.T) {
	fdcheck.Check(t)
	var rep reports
	m := start(t, mcp.Options{Report: rep.add}, stdioServer(t, "o", "odd"))
	if st := m.Statuses()[0]; st.State != mcp.StateStarted {
		t.Fatalf("%s", st.Message())
	}
	reg := registry(t, m)
	specs := map[string]ai.ToolSpec{}
	for _, s := range reg.Specs() {
		specs[s.Name] = s
	}
	if _, ok := specs["mcp__o__plain"]; !ok || len(specs) != 2 {
		t.Errorf("offered %v", specNames(reg))
	}
	if d := specs["mcp__o__wordy"].Description; len(d) == 0 || len(d) > 5<<10 || !strings.HasPrefix(d, "many words") {
		t.Errorf("wordy's description: %d bytes", len(d))
	}
	var notes []string
	for _, st := range rep.all() {
		notes = append(notes, st.Reason)
	}
	all := strings.Join(notes, "\n")
	for _, want := range []string{
		`its tool "listy" is not offered: its inputSchema is not a JSON object schema`,
		`the description of its tool "wordy" is 2.1MB: only its first 4.0KB is sent`,
		`its tool "choosy" is not offered: its inputSchema is 1.4MB, over the 64.0KB`,
	} {
		if !strings.Contains(all, want) {
			t.Errorf("no note %q in\n%s", want, all)
		}
	}
}

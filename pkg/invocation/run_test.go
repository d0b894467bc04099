package invocation

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"gopi/pkg/ai"
	"gopi/pkg/assemble"
	"gopi/pkg/exitcode"
	"gopi/pkg/mode"
)

// fauxSettings is a user settings file on the faux model; script, when
// not "", is the model's reply script, written beside it.
func fauxSettings(t *testing.T, script string) string {
	t.Helper()
	if script == "" {
		return `{"provider":"faux"}`
	}
	path := filepath.Join(t.TempDir(), "script.json")
	write(t, path, script)
	b, _ := json.Marshal(map[string]string{"provider": "faux", "model": path})
	return string(b)
}

// result is the one result line of json mode.
type result struct {
	Type       string
	Reason     string
	IsError    bool
	Text       string
	Structured json.RawMessage
	Session    struct{ ID, File, LeafID string }
	Error      struct{ Class, Message string }
}

// oneResult reads stdout as exactly one result line.
func oneResult(t *testing.T, stdout string) result {
	t.Helper()
	if strings.Count(stdout, "\n") != 1 {
		t.Fatalf("want one line, got %q", stdout)
	}
	var r result
	if err := json.Unmarshal([]byte(stdout), &r); err != nil || r.Type != "result" {
		t.Fatalf("not a result line (%v): %q", err, stdout)
	}
	return r
}

// codeOf is the exit code Run's error asks for.
func codeOf(t *testing.T, err error) int {
	t.Helper()
	if err == nil {
		return exitcode.OK
	}
	var e *Exit
	if !errors.As(err, &e) {
		t.Fatalf("not an exit: %v", err)
	}
	return e.Code
}

func run(p *Process, o RunOptions, args ...string) error {
	o.Agent.Args, o.Agent.Flags = args, flags()
	return p.Run(context.Background(), o)
}

func TestRunWritesTheAnswersResultAndItsSession(t *testing.T) {
	p, _, out, _ := proc(t, fauxSettings(t, `{"responses":[{"text":"first answer"},{"text":"second answer"}]}`))
	err := run(p, RunOptions{Mode: mode.JSON}, "one", "two")
	r := oneResult(t, out.String())
	if codeOf(t, err) != exitcode.OK || r.IsError || r.Reason != "stop" || r.Text != "second answer" || r.Session.File == "" {
		t.Fatalf("code %d result %+v", codeOf(t, err), r)
	}
	data, err := os.ReadFile(r.Session.File)
	if err != nil || !strings.Contains(string(data), `"one"`) || !strings.Contains(string(data), `"two"`) {
		t.Fatalf("the session holds %q (%v)", data, err)
	}
	// The Assembly was released: the session is not locked.
	out.Reset()
	err = run(p, RunOptions{Mode: mode.JSON, Agent: Agent{Options: sessionOf(r.Session.File, r.Session.LeafID)}}, "three")
	if codeOf(t, err) != exitcode.OK || oneResult(t, out.String()).Session.File != r.Session.File {
		t.Fatalf("resume: %v %q", err, out)
	}
}

func TestRunPrintModeWritesTheAnswer(t *testing.T) {
	p, _, out, _ := proc(t, fauxSettings(t, `{"responses":[{"text":"plain answer"}]}`))
	p.Signals = true // trapped for the run only (TestMain: no goroutine left)
	if err := run(p, RunOptions{Mode: mode.Print}, "hi"); err != nil || out.String() != "plain answer\n" {
		t.Fatalf("%v: %q", err, out)
	}
}

// A refusal the flags' own checks found is the run's one failure, in
// the mode asked for; nothing is opened.
func TestRunWritesWhatTheFlagsRefused(t *testing.T) {
	p, _, out, _ := proc(t, fauxSettings(t, ""))
	err := run(p, RunOptions{Mode: mode.JSON, Refused: assemble.Usagef("--a and --b contradict")}, "hi")
	r := oneResult(t, out.String())
	if codeOf(t, err) != exitcode.Usage || !r.IsError || r.Error.Class != "usage" || r.Error.Message != "--a and --b contradict" || r.Session.File != "" {
		t.Fatalf("code %d result %+v", codeOf(t, err), r)
	}
	if _, err := os.Stat(filepath.Join(p.Getenv("GOPI_HOME"), "sessions")); !os.IsNotExist(err) {
		t.Error("a refused run opened the sessions folder")
	}
}

func TestRunRefusesAnUnknownMode(t *testing.T) {
	p, _, _, errOut := proc(t, fauxSettings(t, ""))
	err := run(p, RunOptions{Mode: "yaml"}, "hi")
	if codeOf(t, err) != exitcode.Usage || !strings.Contains(errOut.String(), `--mode "yaml": use print`) {
		t.Fatalf("%v: %q", err, errOut)
	}
}

// A failure once the session file exists names it, and events start
// with its header line; one before names none.
func TestRunFailureAfterOpeningNamesTheSession(t *testing.T) {
	p, _, out, _ := proc(t, fauxSettings(t, ""))
	if err := run(p, RunOptions{Mode: mode.JSON}, "first"); err != nil {
		t.Fatal(err)
	}
	file := oneResult(t, out.String()).Session.File
	out.Reset()
	err := run(p, RunOptions{Mode: mode.Events, Agent: Agent{Options: sessionOf(file, "")}}, "again") // no --leaf: refused
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if codeOf(t, err) != exitcode.Usage || len(lines) != 2 || !strings.HasPrefix(lines[0], `{"type":"session"`) {
		t.Fatalf("code %d lines %q", codeOf(t, err), lines)
	}
	if r := oneResult(t, lines[1]+"\n"); r.Session.File != file {
		t.Errorf("the failure names %q", r.Session.File)
	}
	out.Reset()
	err = run(p, RunOptions{Mode: mode.Events}, "@missing.txt")
	if codeOf(t, err) != exitcode.Usage || oneResult(t, out.String()).Session.File != "" {
		t.Fatalf("a missing @file: %v %q", err, out)
	}
}

// The resources are read before the model: a prompt file refused is
// said before a missing key.
func TestRunSaysTheResourcesBeforeTheModel(t *testing.T) {
	p, cwd, out, _ := proc(t, `{"provider":"anthropic","systemPrompt":"big.md"}`)
	write(t, filepath.Join(cwd, "big.md"), strings.Repeat("x", 2<<20))
	err := run(p, RunOptions{Mode: mode.JSON}, "hi")
	if r := oneResult(t, out.String()); codeOf(t, err) != exitcode.Usage || !strings.Contains(r.Error.Message, "big.md") {
		t.Fatalf("code %d result %+v", codeOf(t, err), r)
	}
}

func TestPrintSystemPromptSendsNothing(t *testing.T) {
	p, cwd, out, _ := proc(t, `{"provider":"anthropic","systemPrompt":"be a parrot"}`) // no key: a run would fail
	if err := run(p, RunOptions{Mode: mode.Print, PrintSystemPrompt: true}); err != nil || !strings.HasPrefix(out.String(), "be a parrot") {
		t.Fatalf("%v: %q", err, out)
	}
	out.Reset()
	if err := run(p, RunOptions{Mode: mode.JSON, PrintSystemPrompt: true}); err != nil {
		t.Fatal(err)
	}
	var obj struct {
		Type          string
		SchemaVersion int
		SystemPrompt  string
	}
	if err := json.Unmarshal(out.Bytes(), &obj); err != nil || obj.Type != "system_prompt" || obj.SchemaVersion != mode.SchemaVersion || !strings.HasPrefix(obj.SystemPrompt, "be a parrot") {
		t.Fatalf("%+v (%v): %q", obj, err, out)
	}
	if _, err := os.Stat(filepath.Join(cwd, ".gopi")); !os.IsNotExist(err) {
		t.Error("printing the prompt wrote in the working folder")
	}
}

func TestOutputSchemaChecksTheAnswer(t *testing.T) {
	p, cwd, out, _ := proc(t, fauxSettings(t, `{"responses":[{"text":"{\"n\": 3}"}]}`))
	write(t, filepath.Join(cwd, "schema.json"), `{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)
	err := run(p, RunOptions{Mode: mode.JSON, OutputSchema: "schema.json", OutputRetries: 0}, "count")
	r := oneResult(t, out.String())
	if err != nil || string(r.Structured) != `{"n":3}` {
		t.Fatalf("%v: %+v", err, r)
	}
	out.Reset()
	err = run(p, RunOptions{Mode: mode.JSON, OutputSchema: "nope.json"}, "count")
	if codeOf(t, err) != exitcode.Usage || !strings.Contains(oneResult(t, out.String()).Error.Message, "nope.json") {
		t.Fatalf("a missing schema: %v %q", err, out)
	}
	// An answer that never satisfies the schema exits 9 after the retries.
	p, cwd, out, _ = proc(t, fauxSettings(t, `{"responses":[{"text":"no"},{"text":"still no"}]}`))
	write(t, filepath.Join(cwd, "schema.json"), `{"type":"object"}`)
	err = run(p, RunOptions{Mode: mode.JSON, OutputSchema: "schema.json", OutputRetries: 1}, "count")
	if r := oneResult(t, out.String()); codeOf(t, err) != exitcode.Schema || r.Reason != "schema" {
		t.Fatalf("code %d result %+v", codeOf(t, err), r)
	}
}

// The model's failure is the run's exit code.
func TestRunExitsWithTheFailuresCode(t *testing.T) {
	p, _, out, _ := proc(t, fauxSettings(t, `{"responses":[{"error":"no such key","errorClass":"auth"}]}`))
	err := run(p, RunOptions{Mode: mode.JSON}, "hi")
	if r := oneResult(t, out.String()); codeOf(t, err) != exitcode.Of(ai.ClassAuth, nil) || r.Error.Class != "auth" {
		t.Fatalf("code %d result %+v", codeOf(t, err), r)
	}
}

// --timeout covers reading stdin: an idle pipe ends the run as a timeout.
func TestTimeoutCoversStdin(t *testing.T) {
	p, _, out, _ := proc(t, `{"provider":"faux","timeout":"200ms"}`)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	p.Stdin, p.StdinTTY = r, false
	err = run(p, RunOptions{Mode: mode.JSON}, "hi")
	if res := oneResult(t, out.String()); codeOf(t, err) != exitcode.Timeout || res.Error.Class != "timeout" {
		t.Fatalf("code %d result %+v", codeOf(t, err), res)
	}
	p.Stdin = strings.NewReader("from stdin")
	out.Reset()
	if err := run(p, RunOptions{Mode: mode.JSON, NoStdin: true}, "hi"); err != nil {
		t.Fatalf("--no-stdin read stdin: %v", err)
	}
	// The shortest deadline is one too.
	p, _, out, _ = proc(t, `{"provider":"faux","timeout":"1ns"}`)
	if err := run(p, RunOptions{Mode: mode.JSON}, "hi"); codeOf(t, err) != exitcode.Timeout {
		t.Fatalf("a deadline of 1ns: %v %q", err, out)
	}
}

type brokenWriter struct{}

func (brokenWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// A stdout that fails is said on stderr; the session keeps the run.
func TestRunSaysAStdoutThatFails(t *testing.T) {
	p, _, _, errOut := proc(t, fauxSettings(t, ""))
	p.Stdout = brokenWriter{}
	err := run(p, RunOptions{Mode: mode.JSON}, "hi")
	if codeOf(t, err) != exitcode.Internal || !strings.Contains(errOut.String(), "gopi: writing the output failed: disk full") {
		t.Fatalf("%v: %q", err, errOut)
	}
	err = run(p, RunOptions{Mode: mode.JSON, Refused: assemble.Usagef("bad")}, "hi")
	var e *Exit
	if err == nil || errors.As(err, &e) {
		t.Fatalf("a failure that could not be written: %v", err)
	}
}

// The run's span carries the exit code (telemetry on through OTLP).
func TestRunTracesItsExitCode(t *testing.T) {
	var mu sync.Mutex
	var bodies []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, string(b))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte("{}"))
	}))
	defer srv.Close()
	p, _, _, _ := proc(t, fauxSettings(t, `{"responses":[{"error":"no such key","errorClass":"auth"}]}`),
		"OTEL_EXPORTER_OTLP_ENDPOINT="+srv.URL, "OTEL_EXPORTER_OTLP_PROTOCOL=http/json")
	err := run(p, RunOptions{Mode: mode.JSON}, "hi")
	code := codeOf(t, err)
	p.Environ = append(p.Environ, "GOPI_PROVIDER=faux", "GOPI_MODEL=demo")
	if err := run(p, RunOptions{Mode: mode.JSON}, "hi"); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	all := strings.Join(bodies, "\n")
	for _, c := range []int{code, exitcode.OK} {
		if n := strings.Count(all, `"key":"gopi.run.exit_code","value":{"intValue":"`+itoa(c)+`"}`); n != 1 || code == exitcode.OK {
			t.Errorf("%d spans of exit code %d", n, c)
		}
	}
	if t.Failed() {
		t.Fatalf("code %d, spans %s", code, all)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestWarnSaysEachWarning(t *testing.T) {
	p, _, out, _ := proc(t, fauxSettings(t, ""))
	if err := run(p, RunOptions{Mode: mode.JSON}, "hi"); err != nil {
		t.Fatal(err)
	}
	file := oneResult(t, out.String()).Session.File
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSuffix(string(data), "\n"), "\n")
	last := lines[len(lines)-1]
	write(t, file, string(data)+strings.TrimSuffix(last, "\n")+"\n") // the newest entry's id twice
	h, err := p.Conversation(context.Background(), Agent{Options: sessionOf(file, ""), Flags: flags()}, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	var b strings.Builder
	Warn(&b, h.Assembly.Runtime().Warnings())
	if !strings.HasPrefix(b.String(), "gopi: warning: ") || strings.Count(b.String(), "\n") != len(h.Assembly.Runtime().Warnings()) {
		t.Fatalf("warnings %q", b.String())
	}
}

// sessionText runs args in json mode and returns its session file.
func sessionText(t *testing.T, p *Process, o RunOptions, args ...string) string {
	t.Helper()
	out := p.Stdout.(*bytes.Buffer)
	out.Reset()
	if err := run(p, o, args...); err != nil {
		t.Fatalf("%v: %q", err, out)
	}
	data, err := os.ReadFile(oneResult(t, out.String()).Session.File)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// gopi run's prompt: its words, @file arguments (~ is HOME), templates
// expanded, and stdin when it is not a terminal and not refused.
func TestRunReadsThePrompt(t *testing.T) {
	p, cwd, _, _ := proc(t, fauxSettings(t, ""))
	write(t, filepath.Join(cwd, ".gopi", "prompts", "twice.md"), "$@ and again $@")
	write(t, filepath.Join(p.Getenv("HOME"), "notes.txt"), "notes from home")
	if got := sessionText(t, p, RunOptions{Mode: mode.JSON}, "/twice hop"); !strings.Contains(got, "hop and again hop") {
		t.Errorf("the template was not expanded: %s", got)
	}
	if got := sessionText(t, p, RunOptions{Mode: mode.JSON}, "@~/notes.txt", "read"); !strings.Contains(got, "notes from home") {
		t.Errorf("~ is not HOME: %s", got)
	}
	p.Stdin, p.StdinTTY = strings.NewReader("piped text"), false
	if got := sessionText(t, p, RunOptions{Mode: mode.JSON}, "review"); !strings.Contains(got, "piped text") || !strings.Contains(got, "review") {
		t.Errorf("stdin was not read: %s", got)
	}
	p.Stdin = strings.NewReader("piped text")
	if got := sessionText(t, p, RunOptions{Mode: mode.JSON, NoStdin: true}, "review"); strings.Contains(got, "piped text") {
		t.Errorf("--no-stdin read stdin: %s", got)
	}
	p.Stdin, p.StdinTTY = strings.NewReader("typed text"), true
	if got := sessionText(t, p, RunOptions{Mode: mode.JSON}, "review"); strings.Contains(got, "typed text") {
		t.Errorf("a terminal's stdin was read: %s", got)
	}
}

// The prompt's bound, and the setting that set it, in the refusal.
func TestRunRefusesAPromptOverItsBound(t *testing.T) {
	p, _, out, _ := proc(t, `{"provider":"faux","maxPromptBytes":8}`)
	err := run(p, RunOptions{Mode: mode.JSON}, "hello world")
	if r := oneResult(t, out.String()); codeOf(t, err) != exitcode.Usage || !strings.Contains(r.Error.Message, `larger than 8 bytes, the limit set by "maxPromptBytes" in `+p.Getenv("GOPI_HOME")) {
		t.Fatalf("code %d: %+v", codeOf(t, err), r.Error)
	}
}

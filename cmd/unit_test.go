package cmd

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"gopi/pkg/exitcode"
)

// sysFor returns an in-process System with buffers and a fixed environment.
func sysFor(t *testing.T, cwd string, env ...string) (*System, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	var out, errOut bytes.Buffer
	home := t.TempDir()
	environ := append([]string{"HOME=" + home, "GOPI_HOME=" + filepath.Join(home, ".gopi")}, env...)
	return &System{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut, StdinTTY: true,
		Environ: environ, Getwd: func() (string, error) { return cwd, nil }, Now: time.Now}, &out, &errOut
}

// runMain runs gopi in-process and returns stdout, stderr and the code.
func runMain(t *testing.T, sys *System, args ...string) (string, string, int) {
	t.Helper()
	out, errOut := sys.Stdout.(*bytes.Buffer), sys.Stderr.(*bytes.Buffer)
	out.Reset()
	errOut.Reset()
	code := Main(args, *sys)
	return out.String(), errOut.String(), code
}

func TestSettingsPrecedence(t *testing.T) {
	cwd := t.TempDir()
	sys, _, _ := sysFor(t, cwd)
	home := sys.Getenv("GOPI_HOME")
	write := func(path, body string) {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(home, "settings.json"), `{"provider":"faux","thinking":"low","maxSteps":7}`)
	write(filepath.Join(cwd, ".gopi", "settings.json"), `{"thinking":"medium"}`)
	check := func(name string, env []string, args []string, thinking string, steps int) {
		t.Helper()
		s := *sys
		s.Environ = append(slices.Clone(sys.Environ), env...)
		c := newRunCmd(&s, nil)
		if err := c.ParseFlags(args); err != nil {
			t.Fatal(err)
		}
		got, err := s.AssemblySettings(agent(c, &agentOptions{}))
		if err != nil {
			t.Fatal(err)
		}
		if string(got.Thinking) != thinking || got.MaxSteps != steps {
			t.Errorf("%s: thinking %q steps %d, want %q %d", name, got.Thinking, got.MaxSteps, thinking, steps)
		}
	}
	check("project over global", nil, nil, "medium", 7)
	check("env over project", []string{"GOPI_THINKING=high", "GOPI_MAX_STEPS=9"}, nil, "high", 9)
	check("flag over env", []string{"GOPI_THINKING=high"}, []string{"--thinking", "xhigh", "--max-steps", "3"}, "xhigh", 3)
}

func TestBareReadsNoSettings(t *testing.T) {
	cwd := t.TempDir()
	sys, _, _ := sysFor(t, cwd)
	if err := os.MkdirAll(filepath.Join(cwd, ".gopi"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cwd, ".gopi", "settings.json"), []byte(`{"thinking":"high"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	c := newRunCmd(sys, nil)
	_ = c.ParseFlags([]string{"--bare"})
	s, err := sys.AssemblySettings(agent(c, &agentOptions{resourceFlags: resourceFlags{bare: true}}))
	if err != nil || s.Thinking != "" {
		t.Fatalf("bare read settings: %v %q", err, s.Thinking)
	}
}

func TestMalformedSettingsIsAUsageError(t *testing.T) {
	cwd := t.TempDir()
	sys, _, _ := sysFor(t, cwd)
	_ = os.MkdirAll(filepath.Join(cwd, ".gopi"), 0o700)
	_ = os.WriteFile(filepath.Join(cwd, ".gopi", "settings.json"), []byte(`{"thinking":`), 0o600)
	_, stderr, code := runMain(t, sys, "run", "--provider", "faux", "hi")
	if code != exitcode.Usage || !strings.Contains(stderr, "settings.json") {
		t.Fatalf("code %d stderr %q", code, stderr)
	}
}

func TestRunFauxInProcess(t *testing.T) {
	cwd := t.TempDir()
	_ = os.WriteFile(filepath.Join(cwd, "hello.txt"), []byte("x"), 0o600)
	sys, _, _ := sysFor(t, cwd)
	stdout, stderr, code := runMain(t, sys, "run", "--provider", "faux", "look around")
	// the first session kept says where it went, once (first_run.txtar)
	if code != 0 || !strings.Contains(stdout, "hello.txt") || !strings.HasPrefix(stderr, "gopi: session saved to ") || strings.Count(stderr, "\n") != 1 {
		t.Fatalf("code %d stdout %q stderr %q", code, stdout, stderr)
	}
	stdout, _, code = runMain(t, sys, "run", "--provider", "faux", "--json", "look around")
	var res struct {
		Reason  string
		Steps   int
		Session struct{ File, LeafID string }
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil || code != 0 || res.Reason != "stop" || res.Steps != 2 {
		t.Fatalf("json %q code %d err %v", stdout, code, err)
	}
	if strings.Count(stdout, "\n") != 1 {
		t.Fatalf("json mode wrote %d lines", strings.Count(stdout, "\n"))
	}
	if st, err := os.Stat(res.Session.File); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("session file %v %v", st, err)
	}
}

func TestUsageErrorsSendNothingAndWriteNothing(t *testing.T) {
	cwd := t.TempDir()
	cases := []struct {
		name string
		env  []string
		args []string
		want string
	}{
		{"empty prompt", nil, []string{"run", "--provider", "faux", "  "}, "empty prompt"},
		{"unknown provider", nil, []string{"run", "--provider", "nosuch", "hi"}, `unknown provider "nosuch"`},
		{"missing key", nil, []string{"run", "--provider", "anthropic", "hi"}, "ANTHROPIC_API_KEY"},
		{"no provider at all", nil, []string{"run", "hi"}, "no model provider"},
		{"bad tools", nil, []string{"run", "--provider", "faux", "--tools", "read,teleport", "hi"}, `unknown tool "teleport"`},
		{"bad max steps", nil, []string{"run", "--provider", "faux", "--max-steps", "0", "hi"}, "--max-steps"},
		{"bad timeout", []string{"GOPI_TIMEOUT=soon"}, []string{"run", "--provider", "faux", "hi"}, `GOPI_TIMEOUT "soon"`},
		{"fractional steps", []string{"GOPI_MAX_STEPS=1.5"}, []string{"run", "--provider", "faux", "hi"}, `GOPI_MAX_STEPS "1.5": give a whole number`},
		{"bad mode", nil, []string{"run", "--provider", "faux", "--mode", "xml", "hi"}, `"xml"`},
		{"unknown session", nil, []string{"run", "--provider", "faux", "--session", "ffff", "hi"}, "--session ffff"},
		{"no-session conflict", nil, []string{"run", "--provider", "faux", "--no-session", "-c", "hi"}, "--no-session"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sys, _, _ := sysFor(t, cwd, c.env...)
			_, stderr, code := runMain(t, sys, c.args...)
			if code != exitcode.Usage || !strings.Contains(stderr, c.want) {
				t.Fatalf("code %d stderr %q, want 2 and %q", code, stderr, c.want)
			}
			if _, err := os.Stat(filepath.Join(sys.Getenv("GOPI_HOME"), "sessions")); !os.IsNotExist(err) {
				t.Fatalf("a usage error created the sessions folder (%v)", err)
			}
		})
	}
}

func TestNonEmptySessionNeedsALeaf(t *testing.T) {
	cwd := t.TempDir()
	sys, _, _ := sysFor(t, cwd)
	stdout, _, code := runMain(t, sys, "run", "--provider", "faux", "--json", "first")
	var res struct{ Session struct{ File, LeafID string } }
	if err := json.Unmarshal([]byte(stdout), &res); err != nil || code != 0 {
		t.Fatal(stdout, err)
	}
	before, _ := os.ReadFile(res.Session.File)
	_, stderr, code := runMain(t, sys, "run", "--provider", "faux", "--session", res.Session.File, "second")
	after, _ := os.ReadFile(res.Session.File)
	if code != exitcode.Usage || !strings.Contains(stderr, res.Session.LeafID) || !bytes.Equal(before, after) {
		t.Fatalf("code %d stderr %q (file changed: %v)", code, stderr, !bytes.Equal(before, after))
	}
	_, _, code = runMain(t, sys, "run", "--provider", "faux", "--session", res.Session.File, "--leaf", res.Session.LeafID[:4], "second")
	if code != 0 {
		t.Fatalf("--leaf by prefix: code %d", code)
	}
	_, _, code = runMain(t, sys, "run", "--provider", "faux", "-c", "third")
	if code != 0 {
		t.Fatalf("-c: code %d", code)
	}
}

// A resumed session keeps the model and thinking level it last used
// unless the invocation names others (pi's resume rule).
func TestResumeUsesTheSessionsModelAndThinking(t *testing.T) {
	cwd := t.TempDir()
	sys, _, _ := sysFor(t, cwd)
	stdout, _, code := runMain(t, sys, "run", "--provider", "faux", "--thinking", "high", "--json", "first")
	var res struct{ Session struct{ File string } }
	if err := json.Unmarshal([]byte(stdout), &res); err != nil || code != 0 {
		t.Fatal(stdout, err)
	}
	// No --provider, no key in the environment: the session names faux/demo.
	_, stderr, code := runMain(t, sys, "run", "--session", res.Session.File, "-c", "second")
	if code != 0 {
		t.Fatalf("resume without a provider: code %d stderr %q", code, stderr)
	}
	data, _ := os.ReadFile(res.Session.File)
	if n := strings.Count(string(data), `"type":"thinking_level_change"`); n != 1 {
		t.Fatalf("%d thinking_level_change entries, want 1 (the resumed level is kept):\n%s", n, data)
	}
	if n := strings.Count(string(data), `"type":"model_change"`); n != 1 {
		t.Fatalf("%d model_change entries, want 1", n)
	}
}

// Regression: a key a settings provider declares (apiKeyEnv) reached the
// bash tool's environment, and so the session and stdout.
func TestDeclaredProviderKeyNeverReachesTools(t *testing.T) {
	cwd := t.TempDir()
	script := filepath.Join(cwd, "s.json")
	_ = os.WriteFile(script, []byte(`{"responses":[{"toolCalls":[{"name":"bash","arguments":{"command":"env"}}]},{"text":"x"}]}`), 0o600)
	_ = os.MkdirAll(filepath.Join(cwd, ".gopi"), 0o700)
	_ = os.WriteFile(filepath.Join(cwd, ".gopi", "settings.json"), []byte(`{"providers":{"local":{"api":"openai","apiKeyEnv":"LOCAL_TOKEN"}}}`), 0o600)
	sys, _, _ := sysFor(t, cwd, "LOCAL_TOKEN=sekrit1", "PLAIN_VAR=visible")
	stdout, _, code := runMain(t, sys, "run", "--provider", "faux", "--model", script, "--json", "hi")
	if code != 0 || strings.Contains(stdout, "sekrit1") || !strings.Contains(stdout, "PLAIN_VAR=visible") {
		t.Fatalf("code %d; key leaked: %v; env shown: %v", code, strings.Contains(stdout, "sekrit1"), strings.Contains(stdout, "PLAIN_VAR"))
	}
}

// Regression: --timeout did not cover reading stdin, so an idle open pipe
// hung a CI step however short its deadline.
func TestTimeoutCoversStdin(t *testing.T) {
	sys, _, _ := sysFor(t, t.TempDir())
	r, w, _ := os.Pipe()
	defer w.Close()
	defer r.Close()
	sys.Stdin, sys.StdinTTY = r, false
	start := time.Now()
	stdout, _, code := runMain(t, sys, "run", "--provider", "faux", "--json", "--timeout", "300ms", "hi")
	if code != exitcode.Timeout || time.Since(start) > 5*time.Second || !strings.Contains(stdout, `"class":"timeout"`) {
		t.Fatalf("code %d after %v, stdout %q", code, time.Since(start), stdout)
	}
}

func TestMissingSystemPromptFileWarns(t *testing.T) {
	sys, _, _ := sysFor(t, t.TempDir())
	_, stderr, code := runMain(t, sys, "run", "--provider", "faux", "--system-prompt", "./typo.md", "hi")
	if code != 0 || !strings.Contains(stderr, `--system-prompt "./typo.md" names no file`) {
		t.Fatalf("code %d stderr %q", code, stderr)
	}
	dir := t.TempDir()
	_, stderr, code = runMain(t, sys, "run", "--provider", "faux", "--append-system-prompt", dir, "hi")
	if code != 0 || !strings.Contains(stderr, `--append-system-prompt "`+dir+`" is not a file (a folder?)`) {
		t.Fatalf("code %d stderr %q", code, stderr)
	}
}

func TestJSONEqualsTrueStillGetsAResultObject(t *testing.T) {
	sys, _, _ := sysFor(t, t.TempDir())
	stdout, _, code := runMain(t, sys, "run", "--json=true", "--max-steps", "abc", "hi")
	if code != exitcode.Usage || !strings.Contains(stdout, `"type":"result"`) {
		t.Fatalf("code %d stdout %q", code, stdout)
	}
}

// In events mode a failure after the session was opened still starts with
// the session header line.
func TestEventsFailureAfterOpeningStartsWithHeader(t *testing.T) {
	cwd := t.TempDir()
	sys, _, _ := sysFor(t, cwd)
	stdout, _, code := runMain(t, sys, "run", "--provider", "faux", "--json", "first")
	var res struct{ Session struct{ File string } }
	if err := json.Unmarshal([]byte(stdout), &res); err != nil || code != 0 {
		t.Fatal(stdout, err)
	}
	// Resuming without a leaf is refused after the session was opened.
	stdout, _, code = runMain(t, sys, "run", "--provider", "faux", "--mode", "events", "--session", res.Session.File, "again")
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if code != exitcode.Usage || len(lines) != 2 || !strings.HasPrefix(lines[0], `{"type":"session"`) || !strings.HasPrefix(lines[1], `{"type":"result"`) {
		t.Fatalf("code %d, lines %q", code, lines)
	}
}

func (r failingReader) Read([]byte) (int, error) { return 0, r.err }

func (stalledReader) Read([]byte) (int, error) { select {} }

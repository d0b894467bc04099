package cmd

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"gopi/pkg/exitcode"
)

// A settings value of the wrong JSON type is a usage error naming the
// file, the key and the value, raised before a model is chosen, a request
// sent or a session written (each type's message: pkg/settings'
// TestWrongTypesAreUsageErrors). It used to be read as "" or no list: a
// provider given as a list fell back to the one the environment's key
// inferred (and the prompt went there); tools given as a number ran with
// none.
func TestSettingsOfTheWrongTypeAreUsageErrors(t *testing.T) {
	// An Anthropic key and address in the environment: a provider setting
	// that is ignored makes gopi infer anthropic and send the prompt here.
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		http.Error(w, "no request was expected", http.StatusTeapot)
	}))
	defer srv.Close()
	faux := []string{"--provider", "faux"}
	cases := []struct {
		name    string
		project string   // .gopi/settings.json
		global  string   // $GOPI_HOME/settings.json
		args    []string // before the prompt
		want    []string // in stderr besides the file's path
		inHome  bool     // the global file is the one named
	}{
		{"provider list", `{"provider":["faux"]}`, "", nil,
			[]string{`"provider" in `, `is a list (["faux"]): give a provider name as a string`}, false},
		{"provider in the global file", `{"thinking":"low"}`, `{"provider":["faux"]}`, nil,
			[]string{`"provider" in `, `is a list (["faux"])`}, true},
		{"json mode", `{"tools":5}`, "", append([]string{"--json"}, faux...), nil, false},
		{"context command", `{"systemPrompt":{"a":1}}`, "", []string{"context"}, []string{`"systemPrompt"`, `is an object`}, false},
		{"project string over global number", `{"maxSteps":"x"}`, `{"maxSteps":2}`, faux, []string{`"maxSteps" in `, `"x": give a whole number`}, false},
		{"unknown tool in a list", `{"tools":["read","teleport"]}`, "", faux, []string{`"tools" in `, `unknown tool "teleport"`}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cwd := t.TempDir()
			sys, _, _ := sysFor(t, cwd, "ANTHROPIC_API_KEY=sk-ant-test", "ANTHROPIC_BASE_URL="+srv.URL)
			home := sys.Getenv("GOPI_HOME")
			project := filepath.Join(cwd, ".gopi", "settings.json")
			global := filepath.Join(home, "settings.json")
			writeSettings(t, project, c.project)
			writeSettings(t, global, c.global)
			named := project
			if c.inHome {
				named = global
			}
			before := requests.Load()
			args := c.args
			if len(args) == 0 || args[0] != "context" {
				args = append(append([]string{"run"}, args...), "hi")
			}
			stdout, stderr, code := runMain(t, sys, args...)
			if code != exitcode.Usage {
				t.Fatalf("exit %d, want %d; stderr %q", code, exitcode.Usage, stderr)
			}
			if c.name == "json mode" {
				// One result object; the message is in it.
				if !strings.HasPrefix(stdout, `{"type":"result"`) || !strings.Contains(stdout, `"class":"usage"`) ||
					!strings.Contains(stdout, `is a number (5)`) || strings.Count(stdout, "\n") != 1 {
					t.Fatalf("stdout %q", stdout)
				}
			} else {
				if stdout != "" {
					t.Errorf("stdout %q, want nothing", stdout)
				}
				for _, w := range append([]string{named}, c.want...) {
					if !strings.Contains(stderr, w) {
						t.Errorf("stderr %q\nlacks %q", stderr, w)
					}
				}
				if named == project && c.global != "" && strings.Contains(stderr, global) {
					t.Errorf("stderr %q names the global file too", stderr)
				}
			}
			if n := requests.Load() - before; n != 0 {
				t.Errorf("%d requests reached the provider", n)
			}
			if _, err := os.Stat(filepath.Join(home, "sessions")); !os.IsNotExist(err) {
				t.Errorf("the sessions folder was created (%v)", err)
			}
		})
	}
}

// Values of the right type behave as they always did.
func TestSettingsOfTheRightTypeStillWork(t *testing.T) {
	cases := []struct{ name, project, global string }{
		{"provider from settings", `{"provider":"faux"}`, ""},
		{"provider and model", `{"provider":"faux","model":"demo"}`, ""},
		{"model as provider/id", `{"model":"faux/demo"}`, ""},
		{"tools as a list", `{"provider":"faux","tools":["read","ls"]}`, ""},
		{"tools as a string", `{"provider":"faux","tools":"read, ls"}`, ""},
		{"no tools", `{"provider":"faux","tools":[]}`, ""},
		{"tools string over global list", `{"tools":"ls"}`, `{"provider":"faux","tools":["read","bash"]}`},
		{"numbers", `{"provider":"faux","maxSteps":5,"maxTokens":100,"timeout":0}`, ""},
		{"numbers as strings", `{"provider":"faux","maxSteps":"5","maxTokens":"0","timeout":"10m"}`, ""},
		{"whole number written as a fraction", `{"provider":"faux","maxSteps":5.0}`, ""},
		{"prompts and the rest", `{"provider":"faux","systemPrompt":"be brief","appendSystemPrompt":"really","thinking":"low","fsync":"never"}`, ""},
		{"objects merged across files", `{"provider":"faux","retry":{"maxAttempts":2}}`, `{"retry":{"baseDelayMs":1},"quirks":{},"providers":{}}`},
		{"unknown keys are left alone", `{"provider":"faux","editor":["vim"],"theme":null}`, ""},
		// null clears what the global file set: a missing script model there
		// would fail the run
		{"null clears the global value", `{"model":null,"tools":null,"maxSteps":null}`, `{"provider":"faux","model":"missing.json","tools":"frobnicate","maxSteps":"x"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cwd := t.TempDir()
			if err := os.WriteFile(filepath.Join(cwd, "hello.txt"), []byte("x"), 0o600); err != nil {
				t.Fatal(err)
			}
			sys, _, _ := sysFor(t, cwd)
			home := sys.Getenv("GOPI_HOME")
			writeSettings(t, filepath.Join(cwd, ".gopi", "settings.json"), c.project)
			writeSettings(t, filepath.Join(home, "settings.json"), c.global)
			stdout, stderr, code := runMain(t, sys, "run", "look around")
			if code != 0 || stdout == "" {
				t.Fatalf("exit %d stdout %q stderr %q", code, stdout, stderr)
			}
			if m, _ := filepath.Glob(filepath.Join(home, "sessions", "*", "*.jsonl")); len(m) != 1 {
				t.Fatalf("session files %v, want one", m)
			}
		})
	}
}

func writeSettings(t *testing.T, path, body string) {
	t.Helper()
	if body == "" {
		return
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopi/pkg/exitcode"
)

// Every spelling of json or events output gets exactly one JSON line on
// stdout for a usage error, whether the flags fail to parse (--bogus) or a
// value is refused after parsing (--thinking). Regression: Main read the
// mode from the raw arguments by hand and disagreed with the flag parser,
// so "gopi run --json=t --bogus x" printed nothing on stdout.
func TestEveryJSONSpellingWritesOneResultForAUsageError(t *testing.T) {
	spellings := [][]string{
		{"--json"}, {"--json=true"}, {"--json=t"}, {"--json=1"},
		{"--mode=json"}, {"--mode", "json"}, {"--mode", "events"}, {"--mode=events"},
		{"--mode", "print", "--json"},  // --json wins over another --mode ...
		{"--mode", "events", "--json"}, // ... and the conflict is itself a usage error
	}
	errs := map[string][]string{
		"unknown flag": {"--bogus", "x"},
		"bad value":    {"--thinking", "bogus"},
	}
	for _, spelling := range spellings {
		for name, bad := range errs {
			for _, args := range [][]string{
				append(append([]string{"run"}, spelling...), bad...),
				append(append([]string{"run"}, bad...), spelling...),
			} {
				args = append(args, "--provider", "faux", "hi")
				t.Run(name+" "+strings.Join(args, " "), func(t *testing.T) {
					sys, _, _ := sysFor(t, t.TempDir())
					stdout, stderr, code := runMain(t, sys, args...)
					oneUsageResult(t, stdout, code)
					if !strings.Contains(stderr, "gopi: ") {
						t.Fatalf("stderr %q", stderr)
					}
				})
			}
		}
	}
}

// Conflicting --json and --mode are refused before anything is opened.
func TestJSONAndAnotherModeAreAUsageError(t *testing.T) {
	sys, _, _ := sysFor(t, t.TempDir())
	stdout, stderr, code := runMain(t, sys, "run", "--mode", "events", "--json", "--provider", "faux", "hi")
	oneUsageResult(t, stdout, code)
	if !strings.Contains(stderr, "--json and --mode events ask for different outputs") {
		t.Fatalf("stderr %q", stderr)
	}
	if _, err := os.Stat(filepath.Join(sys.Getenv("GOPI_HOME"), "sessions")); !os.IsNotExist(err) {
		t.Fatalf("a session was opened: %v", err)
	}
}

// What does not ask for json is print: nothing on stdout, the error on
// stderr, exit 2. Flags after "--" are the prompt.
func TestNotJSONSpellingsWriteNothingOnStdout(t *testing.T) {
	for _, args := range [][]string{
		{"run", "--bogus", "--", "--json"},
		{"run", "--thinking", "bogus", "--provider", "faux", "--", "--json"},
		{"run", "--bogus", "--", "--mode", "events"},
		{"run", "--json=false", "--bogus"},
		{"run", "--json=maybe", "--provider", "faux", "hi"},
		{"run", "--mode", "json", "--mode", "print", "--bogus"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			sys, _, _ := sysFor(t, t.TempDir())
			stdout, stderr, code := runMain(t, sys, args...)
			if code != exitcode.Usage || stdout != "" || !strings.HasPrefix(stderr, "gopi: ") {
				t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
			}
		})
	}
}

func oneUsageResult(t *testing.T, stdout string, code int) {
	t.Helper()
	if code != exitcode.Usage || strings.Count(stdout, "\n") != 1 || !strings.HasSuffix(stdout, "\n") {
		t.Fatalf("exit %d, stdout %q", code, stdout)
	}
	var res struct {
		Type    string
		IsError bool
		Error   struct{ Class string }
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatalf("%v: %q", err, stdout)
	}
	if res.Type != "result" || !res.IsError || res.Error.Class != "usage" {
		t.Fatalf("result %q", stdout)
	}
}

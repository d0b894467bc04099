package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"gopi/pkg/ai/catalog"
)

// completion is what gopi __complete printed: the candidates (value and
// description) and the directive.
type completion struct {
	values, descs []string
	directive     cobra.ShellCompDirective
}

// complete asks gopi for completions as a shell does, through cmd.Main.
func complete(t *testing.T, sys *System, args ...string) completion {
	t.Helper()
	stdout, stderr, code := runMain(t, sys, append([]string{cobra.ShellCompRequestCmd}, args...)...)
	if code != 0 {
		t.Fatalf("__complete %q: exit %d, stderr %s", args, code, stderr)
	}
	var c completion
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	last := lines[len(lines)-1]
	d, err := strconv.Atoi(strings.TrimPrefix(last, ":"))
	if !strings.HasPrefix(last, ":") || err != nil {
		t.Fatalf("__complete %q: no directive line in %q", args, stdout)
	}
	c.directive = cobra.ShellCompDirective(d)
	for _, l := range lines[:len(lines)-1] {
		v, desc, _ := strings.Cut(l, "\t")
		c.values, c.descs = append(c.values, v), append(c.descs, desc)
	}
	return c
}

func (c completion) desc(t *testing.T, value string) string {
	t.Helper()
	i := slices.Index(c.values, value)
	if i < 0 {
		t.Fatalf("%q not offered: %q", value, c.values)
	}
	return c.descs[i]
}

func TestCompleteThinkingLevelsOnEveryAgentCommand(t *testing.T) {
	sys, _, _ := sysFor(t, t.TempDir())
	want := []string{"off", "minimal", "low", "medium", "high", "xhigh"}
	for _, cmd := range [][]string{{"run"}, {"chat"}, {}} {
		c := complete(t, sys, append(cmd, "--thinking", "")...)
		if !slices.Equal(c.values, want) || c.directive&cobra.ShellCompDirectiveNoFileComp == 0 {
			t.Errorf("gopi %v --thinking: %q directive %d", cmd, c.values, c.directive)
		}
	}
}

// --tools and --exclude-tools complete after the last comma
// (tools.CompleteList), only --tools with signs, and leave no space.
func TestCompleteToolsAfterTheLastComma(t *testing.T) {
	sys, _, _ := sysFor(t, t.TempDir())
	for _, tc := range []struct {
		flag, typed string
		want        []string
	}{
		{"--tools", "read,b", []string{"read,bash"}},
		{"--tools", "+g", []string{"+grep"}},
		{"--exclude-tools", "read,grep,f", []string{"read,grep,find"}},
		{"--exclude-tools", "+g", nil},
	} {
		c := complete(t, sys, "run", tc.flag, tc.typed)
		if !slices.Equal(c.values, tc.want) {
			t.Errorf("%s %q: %q, want %q", tc.flag, tc.typed, c.values, tc.want)
		}
		// a list goes on: no space after a completed name
		if c.directive&cobra.ShellCompDirectiveNoSpace == 0 {
			t.Errorf("%s %q: directive %d lets the shell add a space", tc.flag, tc.typed, c.directive)
		}
	}
}

// declareLocal writes settings declaring the provider "local" with one model.
func declareLocal(t *testing.T, sys *System) {
	t.Helper()
	home := sys.Getenv("GOPI_HOME")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	settings := `{"providers": {"local": {"api": "openai", "baseUrl": "http://127.0.0.1:1/v1", "models": [{"id": "qwen", "contextWindow": 32768}]}}}`
	if err := os.WriteFile(filepath.Join(home, "settings.json"), []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestCompleteProvidersIncludesDeclaredOnes(t *testing.T) {
	sys, _, _ := sysFor(t, t.TempDir())
	declareLocal(t, sys)
	c := complete(t, sys, "run", "--provider", "")
	if !slices.Equal(c.values, []string{"anthropic", "openai", "faux", "local"}) {
		t.Fatalf("--provider: %q", c.values)
	}
	if d := c.desc(t, "local"); !strings.Contains(d, "declared in settings") {
		t.Errorf("local is described as %q", d)
	}
	// --bare reads no settings, so it declares nothing
	if c := complete(t, sys, "run", "--bare", "--provider", ""); slices.Contains(c.values, "local") {
		t.Errorf("--bare --provider offers %q", c.values)
	}
}

func TestCompleteModels(t *testing.T) {
	sys, _, _ := sysFor(t, t.TempDir())
	declareLocal(t, sys)
	c := complete(t, sys, "chat", "--model", "")
	for _, m := range catalog.All() {
		c.desc(t, m.Provider+"/"+m.ID) // every catalog model, as provider/id
	}
	if d := c.desc(t, "local/qwen"); !strings.Contains(d, "32k context") {
		t.Errorf("local/qwen is described as %q", d)
	}
	// with --provider, that provider's ids alone
	c = complete(t, sys, "run", "--provider", "openai", "--model", "")
	var want []string
	for _, m := range catalog.ForProvider("openai") {
		want = append(want, m.ID)
	}
	if len(want) == 0 || !slices.Equal(c.values, want) {
		t.Errorf("--provider openai --model: %q, want %q", c.values, want)
	}
	if c := complete(t, sys, "run", "--provider", "local", "--model", ""); !slices.Equal(c.values, []string{"qwen"}) {
		t.Errorf("--provider local --model: %q", c.values)
	}
}

// newSessions runs gopi with the faux model once per prompt, each run a
// new session of cwd, and returns their ids, oldest first.
func newSessions(t *testing.T, sys *System, prompts ...string) []string {
	t.Helper()
	script := filepath.Join(t.TempDir(), "echo.json")
	if err := os.WriteFile(script, []byte("[]"), 0o644); err != nil { // an empty script echoes the prompt
		t.Fatal(err)
	}
	var ids []string
	for _, p := range prompts {
		stdout, stderr, code := runMain(t, sys, "run", "--provider", "faux", "--model", script, "--no-tools", "--json", p)
		var res struct{ Session struct{ ID string } }
		if err := json.Unmarshal([]byte(stdout), &res); err != nil || code != 0 {
			t.Fatalf("run %q: exit %d, %v, stderr %s", p, code, err, stderr)
		}
		ids = append(ids, res.Session.ID)
	}
	return ids
}

func TestCompleteSessionIDsOfThisFolder(t *testing.T) {
	sys, _, _ := sysFor(t, t.TempDir())
	ids := newSessions(t, sys, "first question about the build", "second question about the docs")
	c := complete(t, sys, "run", "--session", "")
	if len(c.values) != 2 || !slices.Contains(c.values, ids[0]) || !slices.Contains(c.values, ids[1]) {
		t.Fatalf("--session: %q, want %q", c.values, ids)
	}
	if d := c.desc(t, ids[1]); !strings.Contains(d, "second question about the docs") {
		t.Errorf("session %s is described as %q", ids[1], d)
	}
	if c.directive&cobra.ShellCompDirectiveNoFileComp == 0 {
		t.Errorf("ids offered with directive %d", c.directive)
	}
	// an id prefix narrows the list
	checkPrefixed(t, complete(t, sys, "run", "--session", ids[0][:8]), ids[0][:8], ids[0])
	// a path completes as a .jsonl file
	c = complete(t, sys, "run", "--session", "./")
	if !slices.Equal(c.values, []string{"jsonl"}) || c.directive&cobra.ShellCompDirectiveFilterFileExt == 0 {
		t.Errorf("--session ./: %q directive %d", c.values, c.directive)
	}
}

func TestCompleteLeafEntriesOfTheNamedSession(t *testing.T) {
	sys, _, _ := sysFor(t, t.TempDir())
	ids := newSessions(t, sys, "how do the retries work", "what does the lock protect")
	c := complete(t, sys, "run", "--session", ids[0], "--leaf", "")
	user := slices.Index(c.descs, "user: how do the retries work")
	answer := slices.Index(c.descs, "assistant: how do the retries work") // the faux model echoes
	if user < 0 || answer < 0 || answer > user {
		t.Fatalf("--leaf: the entries, newest first, are %q %q", c.values, c.descs)
	}
	// a prefix narrows them
	prefix := c.values[user][:4]
	checkPrefixed(t, complete(t, sys, "run", "--session", ids[0], "--leaf", prefix), prefix, c.values[user])
	// -c alone: the newest session of this folder
	c = complete(t, sys, "run", "-c", "--leaf", "")
	if !slices.Contains(c.descs, "user: what does the lock protect") {
		t.Errorf("-c --leaf: %q", c.descs)
	}
	// no session named: nothing, and no file names either
	c = complete(t, sys, "run", "--leaf", "")
	if len(c.values) != 0 || c.directive&cobra.ShellCompDirectiveNoFileComp == 0 {
		t.Errorf("--leaf without a session: %q directive %d", c.values, c.directive)
	}
}

// checkPrefixed: every value offered starts with prefix, and want is one.
func checkPrefixed(t *testing.T, c completion, prefix, want string) {
	t.Helper()
	for _, v := range c.values {
		if !strings.HasPrefix(v, prefix) {
			t.Errorf("%q offered for %q", v, prefix)
		}
	}
	if !slices.Contains(c.values, want) {
		t.Errorf("%q not offered for %q: %q", want, prefix, c.values)
	}
}

func TestCompleteSandboxModesOnEveryAgentCommand(t *testing.T) {
	sys, _, _ := sysFor(t, t.TempDir())
	want := []string{"workspace-write", "read-only", "off"}
	for _, cmd := range [][]string{{"run"}, {"chat"}, {}} {
		c := complete(t, sys, append(cmd, "--sandbox", "")...)
		if !slices.Equal(c.values, want) || c.directive&cobra.ShellCompDirectiveNoFileComp == 0 {
			t.Errorf("gopi %v --sandbox: %q directive %d", cmd, c.values, c.directive)
		}
	}
}

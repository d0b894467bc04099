package settings

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gopi/pkg/ai"
	"gopi/pkg/assemble"
)

// usage asserts err is a usage error (exit 2) saying exactly want.
func usage(t *testing.T, what string, err error, want string) {
	t.Helper()
	var ae *assemble.Error
	if !errors.As(err, &ae) || ae.Class != ai.ClassUsage || err.Error() != want {
		t.Errorf("%s: error %v, want the usage error %q", what, err, want)
	}
}

// envRun reads a run whose settings come from the given GOPI_* variables.
func envRun(t *testing.T, env map[string]string) (runValues, error) {
	t.Helper()
	p := newPlace(t, "", "")
	p.env = env
	return p.load(t, runFlags(), false).readRun(runRequest{Cwd: p.cwd})
}

// A wrong value of each run key is a usage error naming where it came
// from and what to give instead.
func TestRunValueRefusals(t *testing.T) {
	for _, c := range []struct{ env, value, want string }{
		{"GOPI_THINKING", "hgih", `GOPI_THINKING "hgih": use off, minimal, low, medium, high or xhigh`},
		{"GOPI_MAX_STEPS", "0", `GOPI_MAX_STEPS "0": give a whole number above 0`},
		{"GOPI_MAX_STEPS", "-2", `GOPI_MAX_STEPS "-2": give a whole number above 0`},
		{"GOPI_MAX_STEPS", "1.5", `GOPI_MAX_STEPS "1.5": give a whole number`},
		{"GOPI_MAX_TOKENS", "-1", `GOPI_MAX_TOKENS "-1": give a whole number, 0 for the model's limit`},
		{"GOPI_MAX_TOKENS", "many", `GOPI_MAX_TOKENS "many": give a whole number`},
		{"GOPI_TIMEOUT", "90", `GOPI_TIMEOUT "90": a duration needs its unit: give 90s (or m, h, ms), such as 90s or 10m`},
		{"GOPI_TIMEOUT", "soon", `GOPI_TIMEOUT "soon": give a duration such as 90s or 10m`},
		{"GOPI_TIMEOUT", "-5s", `GOPI_TIMEOUT "-5s": give a duration such as 90s or 10m`},
		// Only "0" and "0s" say no deadline; another zero is refused.
		{"GOPI_TIMEOUT", "0m", `GOPI_TIMEOUT "0m": give a duration such as 90s or 10m`},
		{"GOPI_FSYNC", "sometimes", `GOPI_FSYNC "sometimes": use always or never`},
		{"GOPI_MAX_BUDGET_TOKENS", "0", `GOPI_MAX_BUDGET_TOKENS "0": give a whole number of tokens above 0`},
		{"GOPI_MAX_BUDGET_TOKENS", "1.5", `GOPI_MAX_BUDGET_TOKENS "1.5": give a whole number of tokens above 0`},
		{"GOPI_MAX_BUDGET_USD", "0", `GOPI_MAX_BUDGET_USD "0": give US dollars above 0, such as 0.50`},
		{"GOPI_MAX_BUDGET_USD", "-1", `GOPI_MAX_BUDGET_USD "-1": give US dollars above 0, such as 0.50`},
		{"GOPI_MAX_BUDGET_USD", "NaN", `GOPI_MAX_BUDGET_USD "NaN": give US dollars above 0, such as 0.50`},
		{"GOPI_MAX_BUDGET_USD", "+Inf", `GOPI_MAX_BUDGET_USD "+Inf": give US dollars above 0, such as 0.50`},
		{"GOPI_MAX_BUDGET_USD", "cheap", `GOPI_MAX_BUDGET_USD "cheap": give US dollars above 0, such as 0.50`},
		{"GOPI_MAX_PROMPT_BYTES", "0", `GOPI_MAX_PROMPT_BYTES "0": give a whole number of bytes above 0 (the default is 10485760)`},
		{"GOPI_MAX_PROMPT_BYTES", "lots", `GOPI_MAX_PROMPT_BYTES "lots": give a whole number`},
		{"GOPI_TOOLS", "teleport", `GOPI_TOOLS: unknown tool "teleport": choose from read,write,edit,bash,grep,find,ls,task, or declare it under "customTools" in settings`},
	} {
		_, err := envRun(t, map[string]string{c.env: c.value})
		usage(t, c.env+"="+c.value, err, c.want)
	}
}

// The values at the edge of what each key takes are taken, and read back
// as numbers and durations.
func TestRunValuesTaken(t *testing.T) {
	r, err := envRun(t, map[string]string{"GOPI_MAX_STEPS": " 1 ", "GOPI_MAX_TOKENS": "0", "GOPI_TIMEOUT": "1m",
		"GOPI_FSYNC": "always", "GOPI_MAX_BUDGET_TOKENS": " 1 ", "GOPI_MAX_BUDGET_USD": "$0.50", "GOPI_MAX_PROMPT_BYTES": "1",
		"GOPI_THINKING": "xhigh"})
	if err != nil {
		t.Fatal(err)
	}
	if r.MaxSteps != 1 || r.MaxTokens != 0 || r.Timeout != time.Minute || r.NoSync || r.Limits.Tokens != 1 || r.Limits.USD != 0.5 ||
		r.MaxPromptBytes != 1 || r.Thinking != ai.ThinkingXHigh {
		t.Errorf("values %+v", r)
	}
	r, err = envRun(t, map[string]string{"GOPI_FSYNC": "never", "GOPI_MAX_BUDGET_USD": "2", "GOPI_TIMEOUT": "1ns"})
	if err != nil || !r.NoSync || r.Limits.USD != 2 || r.Limits.Tokens != 0 || r.Timeout != 1 {
		t.Errorf("fsync never: %+v %v", r, err)
	}
	// Unset, "0" and "0s" are no deadline; unset is the default prompt
	// bound, no budget, and the thinking level of the model.
	for _, timeout := range []string{"", "0", "0s"} {
		r, err := envRun(t, map[string]string{"GOPI_TIMEOUT": timeout})
		if err != nil || r.Timeout != 0 || r.MaxPromptBytes != DefaultMaxPromptBytes || r.Limits.USD != 0 || r.Limits.Tokens != 0 || r.Thinking != "" || r.NoSync {
			t.Errorf("timeout %q: %+v %v", timeout, r, err)
		}
	}
	if _, err := envRun(t, map[string]string{"GOPI_MAX_BUDGET_USD": "1e308"}); err != nil {
		t.Errorf("a large finite budget: %v", err)
	}
}

// A number in a settings file needs its unit like a string does.
func TestTimeoutFromFileNeedsUnit(t *testing.T) {
	p := newPlace(t, "", `{"timeout": 90}`)
	_, err := p.load(t, runFlags(), false).readRun(runRequest{Cwd: p.cwd})
	usage(t, "timeout 90", err, `"timeout" in `+p.projectFile+` "90": a duration needs its unit: give 90s (or m, h, ms), such as 90s or 10m`)
}

// A session folder that names a file is refused (relative to the working
// folder); a missing one is made later, an existing folder taken.
func TestSessionDir(t *testing.T) {
	p := newPlace(t, "", "")
	write(t, filepath.Join(p.cwd, "notes.txt"), "x")
	if err := os.MkdirAll(filepath.Join(p.cwd, "sessions"), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ dir, want string }{
		{"notes.txt", `GOPI_SESSION_DIR notes.txt is a file, not a folder: give a folder for the sessions (it is made when missing)`},
		{filepath.Join(p.cwd, "notes.txt"), `GOPI_SESSION_DIR ` + filepath.Join(p.cwd, "notes.txt") + ` is a file, not a folder: give a folder for the sessions (it is made when missing)`},
		{"sessions", ""},
		{"missing/below", ""},
	} {
		p.env = map[string]string{"GOPI_SESSION_DIR": c.dir}
		r, err := p.load(t, runFlags(), false).readRun(runRequest{Cwd: p.cwd})
		if c.want != "" {
			usage(t, c.dir, err, c.want)
			continue
		}
		if err != nil || r.SessionDir != c.dir {
			t.Errorf("%s: dir %q %v", c.dir, r.SessionDir, err)
		}
	}
	// The relative path is the working folder's, not the process's.
	p.env = map[string]string{"GOPI_SESSION_DIR": "notes.txt"}
	if _, err := p.load(t, runFlags(), false).readRun(runRequest{Cwd: filepath.Join(p.cwd, "sessions")}); err != nil {
		t.Errorf("notes.txt in another folder: %v", err)
	}
}

// Compaction is on with pi's defaults unless "compaction" says
// otherwise; a count of 0 or less is refused naming the key.
func TestCompaction(t *testing.T) {
	for _, c := range []struct {
		project, want string
		disabled      bool
		reserve, keep int
		model         string
	}{
		{project: ``},
		{project: `{"compaction": {"enabled": false}}`, disabled: true},
		{project: `{"compaction": {"enabled": true, "keepRecentTokens": 5, "model": "faux/s"}}`, keep: 5, model: "faux/s"},
		{project: `{"compaction": {"reserveTokens": 1}}`, reserve: 1},
		{project: `{"compaction": {"reserveTokens": 0}}`, want: `"compaction" in FILE: "reserveTokens" is 0: give a whole number of tokens above 0`},
		{project: `{"compaction": {"keepRecentTokens": -1}}`, want: `"compaction" in FILE: "keepRecentTokens" is -1: give a whole number of tokens above 0`},
		{project: `{"compaction": {"enabled": "no"}}`, want: `"compaction" in FILE has the wrong shape: "enabled" is a string: give true or false`},
	} {
		p := newPlace(t, "", c.project)
		r, err := p.load(t, runFlags(), false).readRun(runRequest{Cwd: p.cwd})
		if c.want != "" {
			usage(t, c.project, err, strings.ReplaceAll(c.want, "FILE", p.projectFile))
			continue
		}
		if err != nil || r.Compaction.Disabled != c.disabled || r.Compaction.ReserveTokens != c.reserve ||
			r.Compaction.KeepRecentTokens != c.keep || r.CompactionModel != c.model {
			t.Errorf("%s: %+v %q %v", c.project, r.Compaction, r.CompactionModel, err)
		}
	}
}

// Sub-agents take counts above 0; unset is assemble's default (0 here).
func TestSubagents(t *testing.T) {
	for _, c := range []struct {
		project, want string
		conc, depth   int
	}{
		{project: `{"subagents": {"maxDepth": 1}}`, depth: 1},
		{project: `{"subagents": {"maxConcurrency": 1}}`, conc: 1},
		{project: `{"subagents": {"maxConcurrency": 0}}`, want: `"subagents" in FILE: "maxConcurrency" is 0: give a whole number above 0`},
		{project: `{"subagents": {"maxDepth": -1}}`, want: `"subagents" in FILE: "maxDepth" is -1: give a whole number above 0`},
		{project: `{"subagents": {"maxDepth": "deep"}}`, want: `"subagents" in FILE has the wrong shape: "maxDepth" is a string: give a whole number`},
	} {
		p := newPlace(t, "", c.project)
		set, err := p.load(t, runFlags(), false).Assembly(AgentOptions{Cwd: p.cwd})
		if c.want != "" {
			usage(t, c.project, err, strings.ReplaceAll(c.want, "FILE", p.projectFile))
			continue
		}
		if err != nil || set.Subagents.MaxConcurrency != c.conc || set.Subagents.MaxDepth != c.depth {
			t.Errorf("%s: %+v %v", c.project, set.Subagents, err)
		}
	}
}

// A system prompt that looks like a file's path but names none (or a
// folder) is used as text, with a warning naming where it came from.
func TestPromptFileWarnings(t *testing.T) {
	p := newPlace(t, "", "")
	write(t, filepath.Join(p.cwd, "prompts", "sys.md"), "be brief")
	for _, c := range []struct{ env, value, want string }{
		{"GOPI_SYSTEM_PROMPT", "prompts/missing.md", `gopi: warning: GOPI_SYSTEM_PROMPT "prompts/missing.md" names no file; it is used as the prompt text itself` + "\n"},
		{"GOPI_APPEND_SYSTEM_PROMPT", "notes.txt", `gopi: warning: GOPI_APPEND_SYSTEM_PROMPT "notes.txt" names no file; it is used as the prompt text itself` + "\n"},
		{"GOPI_SYSTEM_PROMPT", "prompts/", `gopi: warning: GOPI_SYSTEM_PROMPT "prompts/" is not a file (a folder?); it is used as the prompt text itself` + "\n"},
		{"GOPI_SYSTEM_PROMPT", filepath.Join(p.cwd, "gone.md"), `gopi: warning: GOPI_SYSTEM_PROMPT "` + filepath.Join(p.cwd, "gone.md") + `" names no file; it is used as the prompt text itself` + "\n"},
		{"GOPI_SYSTEM_PROMPT", "prompts/sys.md", ""},                       // a file
		{"GOPI_SYSTEM_PROMPT", filepath.Join(p.cwd, "prompts/sys.md"), ""}, // a file, absolute
		{"GOPI_SYSTEM_PROMPT", "be brief/short.", ""},                      // text with a space
		{"GOPI_SYSTEM_PROMPT", "a/b\nc", ""},                               // text of lines
		{"GOPI_SYSTEM_PROMPT", "terse", ""},                                // no slash, no extension
	} {
		p.stderr.Reset()
		p.env = map[string]string{c.env: c.value}
		set, err := p.load(t, runFlags(), false).Context(AgentOptions{Cwd: p.cwd})
		if err != nil {
			t.Fatal(err)
		}
		if got := p.stderr.String(); got != c.want {
			t.Errorf("%s=%q: stderr %q, want %q", c.env, c.value, got, c.want)
		}
		if got := set.Resources.SystemPrompt + set.Resources.AppendSystemPrompt; got != c.value {
			t.Errorf("%s=%q: the prompt is %q", c.env, c.value, got)
		}
	}
}

// "telemetry" of the wrong shape is refused naming the key and the file.
func TestTelemetryShape(t *testing.T) {
	p := newPlace(t, "", `{"telemetry": {"endpoint": 5}}`)
	_, err := p.load(t, runFlags(), false).readRun(runRequest{Cwd: p.cwd})
	usage(t, "telemetry", err, `"telemetry" in `+p.projectFile+` has the wrong shape: "endpoint" is a number: give a string`)
}

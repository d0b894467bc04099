package settings

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopi/pkg/ai"
	"gopi/pkg/assemble"
	"gopi/pkg/loop"
	"gopi/pkg/runtime"
	"gopi/pkg/telemetry"
	"gopi/pkg/tools"
)

// DefaultMaxPromptBytes bounds a prompt (arguments and stdin together)
// unless --max-prompt-bytes or maxPromptBytes says otherwise: far more
// than any model's context, far less than what would exhaust memory.
const DefaultMaxPromptBytes = 10 << 20

// runValues are the checked plain values of one run (or chat).
type runValues struct {
	Thinking  ai.ThinkingLevel
	MaxSteps  int
	MaxTokens int // 0 for the model's limit
	Timeout   time.Duration
	NoSync    bool // "fsync": "never"
	// MaxPromptBytes bounds the prompt in bytes (--max-prompt-bytes).
	MaxPromptBytes int
	Compaction     runtime.Compaction
	// CompactionModel is "provider/id" of the model writing summaries
	// ("" the run's).
	CompactionModel string
	Limits          loop.Limits // --max-budget-tokens, --max-budget-usd
	// SessionDir is --session-dir as given ("" for the default folder).
	SessionDir string
	// Telemetry is the "telemetry" key.
	Telemetry telemetry.Settings
	// Tools are the names of the tools offered (Tools); Custom the
	// custom tools among them ("customTools").
	Tools  []string
	Custom []tools.Tool
}

// runRequest is what a run's flags say beside the settings.
type runRequest struct {
	Cwd     string   // resolves a relative session folder
	NoTools bool     // --no-tools
	Exclude []string // --exclude-tools
}

// readRun reads and checks the values of a run: the thinking level, the
// limits, compaction, the timeout, the session's fsync, the tools, the
// session folder, telemetry and the prompt bound. A wrong value is a
// usage error naming where it came from.
func (s *Settings) readRun(q runRequest) (runValues, error) {
	var r runValues
	var err error
	if r.Thinking, err = s.thinking(); err != nil {
		return r, err
	}
	if r.MaxSteps, r.MaxTokens, err = s.steps(); err != nil {
		return r, err
	}
	if r.Compaction, r.CompactionModel, err = s.Compaction(); err != nil {
		return r, err
	}
	if r.Limits, err = s.limits(); err != nil {
		return r, err
	}
	if r.Timeout, err = s.timeout(); err != nil {
		return r, err
	}
	if r.NoSync, err = s.noSync(); err != nil {
		return r, err
	}
	if r.Tools, err = s.Tools(q.NoTools, q.Exclude); err != nil {
		return r, err
	}
	if r.Custom, err = s.CustomTools(r.Tools); err != nil {
		return r, err
	}
	r.SessionDir = s.String("sessionDir")
	if err := s.checkSessionDir(r.SessionDir, q.Cwd); err != nil {
		return r, err
	}
	if err := s.Decode("telemetry", &r.Telemetry); err != nil {
		return r, err
	}
	r.MaxPromptBytes, err = s.promptLimit()
	return r, err
}

func (s *Settings) thinking() (ai.ThinkingLevel, error) {
	t := s.String("thinking")
	if t != "" && !slices.Contains(ai.ThinkingLevels, ai.ThinkingLevel(t)) {
		return "", assemble.Usagef("%s %q: use off, minimal, low, medium, high or xhigh", s.Origin("thinking"), t)
	}
	return ai.ThinkingLevel(t), nil
}

// steps reads maxSteps (above 0) and maxTokens (0 or more).
func (s *Settings) steps() (int, int, error) {
	steps, err := s.Integer("maxSteps")
	if err != nil {
		return 0, 0, err
	}
	if steps <= 0 {
		return 0, 0, assemble.Usagef("%s %q: give a whole number above 0", s.Origin("maxSteps"), s.String("maxSteps"))
	}
	tokens, err := s.Integer("maxTokens")
	if err != nil {
		return 0, 0, err
	}
	if tokens < 0 {
		return 0, 0, assemble.Usagef("%s %q: give a whole number, 0 for the model's limit", s.Origin("maxTokens"), s.String("maxTokens"))
	}
	return steps, tokens, nil
}

// timeout reads the run's deadline; unset, "0" and "0s" are none.
func (s *Settings) timeout() (time.Duration, error) {
	t := s.String("timeout")
	if t == "" || t == "0s" || t == "0" {
		return 0, nil
	}
	d, err := time.ParseDuration(t)
	if _, unitless := time.ParseDuration(t + "s"); err != nil && unitless == nil {
		return 0, assemble.Usagef("%s %q: a duration needs its unit: give %ss (or m, h, ms), such as 90s or 10m", s.Origin("timeout"), t, t)
	}
	if err != nil || d <= 0 {
		return 0, assemble.Usagef("%s %q: give a duration such as 90s or 10m", s.Origin("timeout"), t)
	}
	return d, nil
}

func (s *Settings) noSync() (bool, error) {
	switch f := s.String("fsync"); f {
	case "", "always":
		return false, nil
	case "never":
		return true, nil
	default:
		return false, assemble.Usagef("%s %q: use always or never", s.Origin("fsync"), f)
	}
}

// limits reads the run's budgets; unset is no limit.
func (s *Settings) limits() (loop.Limits, error) {
	var l loop.Limits
	if raw := strings.TrimSpace(s.String("maxBudgetTokens")); raw != "" {
		n, err := strconv.ParseInt(raw, 10, 64)
		if err != nil || n <= 0 {
			return l, assemble.Usagef("%s %q: give a whole number of tokens above 0", s.Origin("maxBudgetTokens"), raw)
		}
		l.Tokens = n
	}
	if raw := strings.TrimSpace(s.String("maxBudgetUsd")); raw != "" {
		usd, err := strconv.ParseFloat(strings.TrimPrefix(raw, "$"), 64)
		if err != nil || !(usd > 0) || math.IsInf(usd, 0) {
			return l, assemble.Usagef("%s %q: give US dollars above 0, such as 0.50", s.Origin("maxBudgetUsd"), raw)
		}
		l.USD = usd
	}
	return l, nil
}

// checkSessionDir refuses a --session-dir (sessionDir) that names a file:
// it was found only when the first entry was written ("mkdir ...: not a
// directory", exit 5).
func (s *Settings) checkSessionDir(dir, cwd string) error {
	if dir == "" {
		return nil
	}
	path := dir
	if !filepath.IsAbs(path) {
		path = filepath.Join(cwd, path)
	}
	if st, err := os.Stat(path); err == nil && !st.IsDir() {
		return assemble.Usagef("%s %s is a file, not a folder: give a folder for the sessions (it is made when missing)", s.Origin("sessionDir"), dir)
	}
	return nil
}

// promptLimit reads the prompt bound: --max-prompt-bytes,
// GOPI_MAX_PROMPT_BYTES or maxPromptBytes, else the default; 0 or less
// is a usage error.
func (s *Settings) promptLimit() (int, error) {
	if s.String("maxPromptBytes") == "" {
		return DefaultMaxPromptBytes, nil
	}
	n, err := s.Integer("maxPromptBytes")
	if err != nil {
		return 0, err
	}
	if n <= 0 {
		return 0, assemble.Usagef("%s %q: give a whole number of bytes above 0 (the default is %d)", s.Origin("maxPromptBytes"), s.String("maxPromptBytes"), DefaultMaxPromptBytes)
	}
	return n, nil
}

// warnMissingPromptFiles says when --system-prompt or --append-system-prompt
// looks like a file's path but names no file (or a folder): it is then
// used as text. A named pipe, a device or a file over 1 MiB there is
// refused by resources.Load instead. The warning goes to Options.Stderr.
func (s *Settings) warnMissingPromptFiles(cwd string) {
	for _, key := range []string{"systemPrompt", "appendSystemPrompt"} {
		v := s.String(key)
		if v == "" || strings.ContainsAny(v, " \n") || !(strings.ContainsRune(v, '/') || filepath.Ext(v) != "") {
			continue
		}
		path := v
		if !filepath.IsAbs(path) {
			path = filepath.Join(cwd, path)
		}
		switch st, err := os.Stat(path); {
		case err != nil:
			fmt.Fprintf(s.stderr, "gopi: warning: %s %q names no file; it is used as the prompt text itself\n", s.Origin(key), v)
		case st.IsDir(): // anything else that is not a regular file is refused by resources.Load
			fmt.Fprintf(s.stderr, "gopi: warning: %s %q is not a file (a folder?); it is used as the prompt text itself\n", s.Origin(key), v)
		}
	}
}

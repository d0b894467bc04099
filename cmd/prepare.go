package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"gopi/pkg/ai"
	"gopi/pkg/extension"
	"gopi/pkg/loop"
	"gopi/pkg/mode"
	"gopi/pkg/resources"
	"gopi/pkg/runtime"
	"gopi/pkg/session"
	"gopi/pkg/tools"
)

// runSettings are the validated plain values of one run.
type runSettings struct {
	cwd      string
	cfg      *config
	thinking ai.ThinkingLevel
	maxSteps int
	maxTok   int
	timeout  time.Duration
	tools    []string
	custom   []tools.Tool // the custom tools among tools ("customTools")
	noSync   bool
	spillDir string        // bash's spill files (rundir.go)
	groups   *tools.Groups // what bash calls left running, killed at the end
	// maxPrompt bounds the prompt in bytes (--max-prompt-bytes).
	maxPrompt int
	compact   runtime.Compaction
	limits    loop.Limits // --max-budget-tokens, --max-budget-usd
	mcp       *mcpPlan    // the MCP servers to start (mcp.go)
}

// prepareRun validates everything and builds the Runtime. Nothing is sent
// to a model and no file is written here; on error the returned prepared
// (possibly nil) says which session was opened.
func prepareRun(ctx context.Context, sys *System, c *cobra.Command, o *runOptions, m mode.Mode) (*prepared, error) {
	if _, err := mode.Parse(string(m)); err != nil {
		return nil, usageErr("--mode: %v", err)
	}
	s, err := readSettings(sys, c, o)
	if err != nil {
		return nil, err
	}
	cat, err := loadResources(sys, s, o)
	if err != nil {
		return nil, err
	}
	if o.printSP { // needs no model, so no key either
		// json and events keep their promise of JSON lines on stdout: one
		// object whose type says it is not a run's result.
		if m == mode.Print {
			_, err = fmt.Fprintln(sys.Stdout, cat.SystemPrompt())
		} else {
			var b []byte
			if b, err = ai.MarshalNoEscape(struct {
				Type          string `json:"type"`
				SchemaVersion int    `json:"schemaVersion"`
				SystemPrompt  string `json:"systemPrompt"`
			}{"system_prompt", mode.SchemaVersion, cat.SystemPrompt()}); err == nil {
				_, err = sys.Stdout.Write(append(b, '\n'))
			}
		}
		return &prepared{done: true}, err
	}
	// A new session's model is chosen before anything touches the disk; a
	// resumed one falls back to the model and thinking level it last used.
	resuming := o.session != "" || o.cont || o.fork != "" || o.sessionID != ""
	var choice modelChoice
	if !resuming {
		if choice, err = chooseModel(sys, s.cfg, o.apiKey, session.Settings{}); err != nil {
			return nil, err
		}
	}
	p := &prepared{tools: s.tools, ctx: ctx, cancel: func() {}}
	if p.schema, err = loadOutputSchema(sys, s, o); err != nil {
		return p, err
	}
	p.outputRetries = o.outputRetries
	if s.timeout > 0 { // the deadline covers reading stdin too; runRun cancels it
		p.ctx, p.cancel = context.WithTimeout(ctx, s.timeout)
	}
	if err := readPromptMessage(sys, s, o, cat, p); err != nil {
		return p, err
	}
	if err := openSession(sys, s, o, p); err != nil {
		return p, err
	}
	if resuming {
		resumed := resumeSettings(p)
		if s.thinking == "" && resumed.ThinkingLevel != "" {
			s.thinking = resumed.ThinkingLevel
		}
		if choice, err = chooseModel(sys, s.cfg, o.apiKey, resumed); err != nil {
			return p, err
		}
	}
	settleChoice(sys, s, choice, o.bare)
	p.model = choice.info
	return p, buildRuntime(sys, s, choice, cat, p)
}

// readPromptMessage reads the prompts as pi 1.6 does: the @file
// arguments' text and images, the first message and stdin make the first
// prompt; every further message argument is a prompt of its own, sent
// after the one before it ended (p.then). Each is bounded by
// --max-prompt-bytes and has a template or skill expanded (bounded too).
func readPromptMessage(sys *System, s *runSettings, o *runOptions, cat *resources.Catalog, p *prepared) error {
	files, messages := splitArgs(o.args)
	head, images, err := readFileArgs(sys, s.cwd, files, s.maxPrompt, s.cfg)
	if err != nil {
		return err
	}
	first := messages[:min(len(messages), 1)]
	text, err := readPrompt(p.ctx, sys, s.cfg, head, first, o.noStdin, s.maxPrompt)
	if err != nil {
		return err
	}
	if text, err = expandPrompt(cat, text, s); err != nil {
		return err
	}
	now := sys.Now().UnixMilli()
	msg := ai.UserText(text, now)
	msg.Content = append(msg.Content, images...)
	p.prompt = []ai.Message{msg}
	for _, m := range messages[min(len(messages), 1):] {
		if len(m) > s.maxPrompt {
			return promptTooLarge("a message given as an argument", s.maxPrompt, s.cfg)
		}
		if m, err = expandPrompt(cat, m, s); err != nil {
			return err
		}
		p.then = append(p.then, ai.UserText(m, now))
	}
	return nil
}

// expandPrompt expands a template or skill in one prompt.
func expandPrompt(cat *resources.Catalog, text string, s *runSettings) (string, error) {
	text, err := cat.ExpandWithin(text, s.maxPrompt)
	if errors.Is(err, resources.ErrRefused) {
		return "", promptOverLimit(err.Error(), s.cfg)
	}
	if err != nil {
		return "", usageErr("%v", err)
	}
	return text, nil
}

// resumeSettings returns the model and thinking level on the chosen path.
func resumeSettings(p *prepared) session.Settings {
	if p.leaf == "" {
		return session.Settings{}
	}
	return session.ResumeSettingsAt(p.store.Entries(), p.leaf)
}

func readSettings(sys *System, c *cobra.Command, o *runOptions) (*runSettings, error) {
	cwd, err := resolveCwd(sys, o.cwd)
	if err != nil {
		return nil, err
	}
	if err := o.loadAPIKeyFile(cwd); err != nil {
		return nil, err
	}
	cfg, err := loadConfig(sys, c.Flags(), cwd, o.bare)
	if err != nil {
		return nil, err
	}
	s := &runSettings{cwd: cwd, cfg: cfg, spillDir: newRunDir(), groups: &tools.Groups{}}
	if t := cfg.str("thinking"); t != "" {
		if !slices.Contains(ai.ThinkingLevels, ai.ThinkingLevel(t)) {
			return nil, usageErr("%s %q: use off, minimal, low, medium, high or xhigh", cfg.origin("thinking"), t)
		}
		s.thinking = ai.ThinkingLevel(t)
	}
	if s.maxSteps, err = cfg.integer("maxSteps"); err != nil {
		return nil, err
	}
	if s.maxSteps <= 0 {
		return nil, usageErr("%s %q: give a whole number above 0", cfg.origin("maxSteps"), cfg.str("maxSteps"))
	}
	if s.maxTok, err = cfg.integer("maxTokens"); err != nil {
		return nil, err
	}
	if s.maxTok < 0 {
		return nil, usageErr("%s %q: give a whole number, 0 for the model's limit", cfg.origin("maxTokens"), cfg.str("maxTokens"))
	}
	if s.compact, err = readCompaction(cfg); err != nil {
		return nil, err
	}
	if s.limits, err = readLimits(cfg); err != nil {
		return nil, err
	}
	if t := cfg.str("timeout"); t != "" && t != "0s" && t != "0" {
		d, err := time.ParseDuration(t)
		if err != nil || d <= 0 {
			return nil, usageErr("%s %q: give a duration such as 90s or 10m", cfg.origin("timeout"), t)
		}
		s.timeout = d
	}
	switch f := cfg.str("fsync"); f {
	case "", "always":
	case "never":
		s.noSync = true
	default:
		return nil, usageErr("%s %q: use always or never", cfg.origin("fsync"), f)
	}
	if s.tools, err = toolNames(cfg, o.noTools, o.excludeTools); err != nil {
		return nil, err
	}
	if s.custom, err = commandTools(cfg, s.tools); err != nil {
		return nil, err
	}
	if s.maxPrompt, err = promptLimit(cfg); err != nil {
		return nil, err
	}
	if s.mcp, err = readMCP(sys, cfg, o, cwd); err != nil {
		return nil, err
	}
	warnMissingPromptFile(sys, cfg, s.cwd)
	return s, nil
}

func loadResources(sys *System, s *runSettings, o *runOptions) (*resources.Catalog, error) {
	cat, err := discover(sys, s, o)
	if err != nil {
		return nil, err
	}
	for _, w := range cat.Warnings {
		fmt.Fprintf(sys.Stderr, "gopi: warning: %s\n", w)
	}
	for _, sk := range cat.Skipped {
		if sk.Path != "" { // a discovery switched off on purpose is not news
			fmt.Fprintf(sys.Stderr, "gopi: %s\n", sk)
		}
	}
	return cat, nil
}

// buildRuntime assembles tools, hooks and the Runtime.
func buildRuntime(sys *System, s *runSettings, choice modelChoice, cat *resources.Catalog, p *prepared) error {
	p.changes = &tools.Changes{}
	env := tools.Env{Cwd: s.cwd, Environ: scrubEnv(sys.Environ, secretNames(s.cfg), choice.key), TempDir: s.spillDir, Changes: p.changes,
		Secrets: toolSecrets(sys, s.cfg, choice.key), Groups: s.groups}
	p.spill, p.groups, sys.groups, p.cwd = s.spillDir, s.groups, s.groups, s.cwd
	var builtin []string
	for _, n := range s.tools {
		if slices.Contains(tools.AllNames, n) {
			builtin = append(builtin, n)
		}
	}
	builtins, err := tools.Builtins(tools.Options{}, builtin...)
	if err != nil {
		return usageErr("%v", err)
	}
	if len(builtin) == 0 {
		builtins = nil
	}
	reg, err := tools.NewRegistry(env, append(builtins, s.custom...)...)
	if err != nil {
		return err
	}
	if err := startMCP(p.ctx, sys, s, env, reg); err != nil {
		return err
	}
	var ext runtime.Extensions
	hooks := s.cfg.hooks
	if len(hooks.BeforeTool)+len(hooks.AfterTool) > 0 {
		host := extension.NewHost(extension.Options{Report: func(d extension.Diagnostic) { fmt.Fprintf(sys.Stderr, "gopi: hook: %s\n", d) }, Secrets: env.Secrets})
		id := p.store.Header().ID
		if err := host.AddCommandHooks(hooks, extension.CommandEnv{Cwd: s.cwd, Environ: env.Environ, SessionID: func() string { return id }, Source: "settings", Secrets: env.Secrets}); err != nil {
			return usageErr("hooks: %v", err)
		}
		ext = host
	}
	if s.limits.USD > 0 && choice.info.Prices == (ai.Prices{}) {
		return usageErr("%s: model %s/%s has no prices, so its spending cannot be counted in dollars: declare its prices under \"providers\" in settings, or use --max-budget-tokens",
			s.cfg.origin("maxBudgetUsd"), choice.info.Provider, choice.info.ID)
	}
	rt, err := runtime.New(runtime.Config{
		ActiveLeaf: leafRef(p.leaf), SystemPrompt: withSchema(cat.SystemPrompt(), p.schema), MaxSteps: s.maxSteps, MaxTokens: s.maxTok,
		Thinking: s.thinking, Model: choice.info, Compaction: s.compact, Limits: s.limits, OutputSchema: schemaJSON(p.schema), SessionName: p.name,
	}, runtime.Deps{Model: choice.model, Tools: reg, Session: p.store, Extensions: ext, Secrets: env.Secrets, Now: sys.Now, Stopwatch: stopwatch})
	if err != nil {
		return usageErr("%v", err)
	}
	p.rt = rt
	return nil
}

func leafRef(id string) *string {
	if id == "" {
		return nil
	}
	return &id
}

// scrubEnv removes credentials from the environment tools and hooks see:
// variables named like keys, the variables settings name as a provider's
// key, and any variable holding the key in use.
func scrubEnv(environ []string, names []string, key string) []string {
	var out []string
	for _, kv := range environ {
		name, val, _ := strings.Cut(kv, "=")
		if isSecretName(name) || slices.Contains(names, name) || (key != "" && val == key) {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// secretNames lists the apiKeyEnv variables of providers in settings.
func secretNames(c *config) []string {
	var customs map[string]customProvider
	if c.decode("providers", &customs) != nil {
		return nil
	}
	var names []string
	for _, p := range customs {
		if p.APIKeyEnv != "" {
			names = append(names, p.APIKeyEnv)
		}
	}
	return names
}

// warnMissingPromptFile says when --system-prompt or --append-system-prompt
// looks like a file's path but names no file (or a folder): it is then
// used as text. A named pipe, a device or a file over 1 MiB there is
// refused by resources.Load instead.
func warnMissingPromptFile(sys *System, c *config, cwd string) {
	for _, key := range []string{"systemPrompt", "appendSystemPrompt"} {
		v := c.str(key)
		if v == "" || strings.ContainsAny(v, " \n") || !(strings.ContainsRune(v, '/') || filepath.Ext(v) != "") {
			continue
		}
		path := v
		if !filepath.IsAbs(path) {
			path = filepath.Join(cwd, path)
		}
		switch st, err := os.Stat(path); {
		case err != nil:
			fmt.Fprintf(sys.Stderr, "gopi: warning: %s %q names no file; it is used as the prompt text itself\n", c.origin(key), v)
		case st.IsDir(): // anything else that is not a regular file is refused by resources.Load
			fmt.Fprintf(sys.Stderr, "gopi: warning: %s %q is not a file (a folder?); it is used as the prompt text itself\n", c.origin(key), v)
		}
	}
}

func isSecretName(name string) bool {
	u := strings.ToUpper(name)
	for _, suffix := range []string{"_API_KEY", "_AUTH_TOKEN", "_OAUTH_TOKEN", "_SECRET_KEY"} {
		if strings.HasSuffix(u, suffix) {
			return true
		}
	}
	return u == "API_KEY"
}

func openStore(sys *System, s *runSettings, path string, create bool) (*session.FileStore, error) {
	opts := session.Options{Now: sys.Now, NoSync: s.noSync}
	return gcPaused(func() (*session.FileStore, error) {
		if create {
			return session.OpenOrCreate(path, s.cwd, opts)
		}
		return session.Open(path, opts)
	})
}

// readLimits reads the run's budgets; unset is no limit.
func readLimits(cfg *config) (loop.Limits, error) {
	var l loop.Limits
	if raw := strings.TrimSpace(cfg.str("maxBudgetTokens")); raw != "" {
		n, err := strconv.ParseInt(raw, 10, 64)
		if err != nil || n <= 0 {
			return l, usageErr("%s %q: give a whole number of tokens above 0", cfg.origin("maxBudgetTokens"), raw)
		}
		l.Tokens = n
	}
	if raw := strings.TrimSpace(cfg.str("maxBudgetUsd")); raw != "" {
		usd, err := strconv.ParseFloat(strings.TrimPrefix(raw, "$"), 64)
		if err != nil || !(usd > 0) || math.IsInf(usd, 0) {
			return l, usageErr("%s %q: give US dollars above 0, such as 0.50", cfg.origin("maxBudgetUsd"), raw)
		}
		l.USD = usd
	}
	return l, nil
}

// loadOutputSchema reads --output-schema's file (bounded, a regular file)
// and checks the schema; any fault is a usage error before anything is
// sent or written.
func loadOutputSchema(sys *System, s *runSettings, o *runOptions) (*mode.OutputSchema, error) {
	if o.outputRetries < 0 {
		return nil, usageErr("--output-retries %d: give a whole number, 0 or more", o.outputRetries)
	}
	if o.outputSchema == "" {
		return nil, nil
	}
	path := o.outputSchema
	if !filepath.IsAbs(path) {
		path = filepath.Join(s.cwd, path)
	}
	doc, err := resources.ReadFile(nil, path, resources.MaxFileSize)
	if err != nil {
		return nil, usageErr("--output-schema %s: %v; give a JSON Schema file of at most 1 MiB", o.outputSchema, err)
	}
	sch, err := mode.NewOutputSchema(doc)
	if err != nil {
		return nil, usageErr("--output-schema %s: %v", o.outputSchema, err)
	}
	return sch, nil
}

// withSchema adds the output schema's instructions to the system prompt.
func withSchema(prompt string, sch *mode.OutputSchema) string {
	if sch == nil {
		return prompt
	}
	return prompt + "\n\n" + sch.Instructions()
}

// schemaJSON is the schema document the requests carry, nil without one.
func schemaJSON(sch *mode.OutputSchema) json.RawMessage {
	if sch == nil {
		return nil
	}
	return sch.JSON()
}

// stopwatch measures with the monotonic clock: durationMs in the session.
func stopwatch() func() time.Duration {
	t0 := time.Now()
	return func() time.Duration { return time.Since(t0) }
}

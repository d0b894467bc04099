package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"gopi/pkg/ai"
	"gopi/pkg/extension"
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
	noSync   bool
	spillDir string        // bash's spill files (rundir.go)
	groups   *tools.Groups // what bash calls left running, killed at the end
	// maxPrompt bounds the prompt in bytes (--max-prompt-bytes).
	maxPrompt int
	compact   runtime.Compaction
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
				Type         string `json:"type"`
				SystemPrompt string `json:"systemPrompt"`
			}{"system_prompt", cat.SystemPrompt()}); err == nil {
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

// readPromptMessage reads the prompt (bounded by --max-prompt-bytes),
// expands a template or skill in it (bounded too) and makes it the
// user message of the run.
func readPromptMessage(sys *System, s *runSettings, o *runOptions, cat *resources.Catalog, p *prepared) error {
	text, err := readPrompt(p.ctx, sys, s.cfg, o.args, o.noStdin, s.maxPrompt)
	if err != nil {
		return err
	}
	text, err = cat.ExpandWithin(text, s.maxPrompt)
	if errors.Is(err, resources.ErrRefused) {
		return promptOverLimit(err.Error(), s.cfg)
	}
	if err != nil {
		return usageErr("%v", err)
	}
	p.prompt = []ai.Message{ai.UserText(text, sys.Now().UnixMilli())}
	return nil
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
	if s.tools, err = toolNames(cfg, o.noTools); err != nil {
		return nil, err
	}
	if s.maxPrompt, err = promptLimit(cfg); err != nil {
		return nil, err
	}
	warnMissingPromptFile(sys, cfg, s.cwd)
	return s, nil
}

// toolNames reads and checks the tools setting (none with --no-tools).
func toolNames(cfg *config, noTools bool) ([]string, error) {
	if noTools {
		return nil, nil
	}
	names := cfg.list("tools")
	for _, name := range names {
		if !slices.Contains(tools.AllNames, name) {
			return nil, usageErr("%s: unknown tool %q: choose from %s", cfg.origin("tools"), name, strings.Join(tools.AllNames, ","))
		}
	}
	return names, nil
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
	env := tools.Env{Cwd: s.cwd, Environ: scrubEnv(sys.Environ, secretNames(s.cfg), choice.key), TempDir: s.spillDir,
		Secrets: toolSecrets(sys, s.cfg, choice.key), Groups: s.groups}
	p.spill, p.groups, sys.groups = s.spillDir, s.groups, s.groups
	builtins, err := tools.Builtins(tools.Options{}, s.tools...)
	if err != nil {
		return usageErr("%v", err)
	}
	if len(s.tools) == 0 {
		builtins = nil
	}
	reg, err := tools.NewRegistry(env, builtins...)
	if err != nil {
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
	rt, err := runtime.New(runtime.Config{
		ActiveLeaf: leafRef(p.leaf), SystemPrompt: cat.SystemPrompt(), MaxSteps: s.maxSteps, MaxTokens: s.maxTok,
		Thinking: s.thinking, Model: choice.info, Compaction: s.compact, SessionName: p.name,
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

// stopwatch measures with the monotonic clock: durationMs in the session.
func stopwatch() func() time.Duration {
	t0 := time.Now()
	return func() time.Duration { return time.Since(t0) }
}

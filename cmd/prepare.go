package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"gopi/internal/pijson"
	"gopi/pkg/ai"
	"gopi/pkg/assemble"
	"gopi/pkg/loop"
	"gopi/pkg/mode"
	"gopi/pkg/resources"
	"gopi/pkg/runtime"
	"gopi/pkg/sandbox"
	"gopi/pkg/settings"
	"gopi/pkg/telemetry"
	"gopi/pkg/tools"
)

// runSettings are the validated plain values of one run.
type runSettings struct {
	cwd      string
	cfg      *settings.Settings
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
	// compactModel is "provider/id" of the model writing summaries ("" the run's).
	compactModel string
	limits       loop.Limits // --max-budget-tokens, --max-budget-usd
	// sessionDir is --session-dir as given ("" for the default folder).
	sessionDir string
	// systemPrompt and appendSystemPrompt are --system-prompt and
	// --append-system-prompt: text, or a file holding it.
	systemPrompt, appendSystemPrompt string
	guard                            *sandbox.Guard // the sandbox and permission rules (sandbox.go)
	mcp                              *mcpPlan       // the MCP servers to start (mcp.go)

	// telemetry is the "telemetry" key (telemetry.go).
	telemetry telemetry.Settings
}

// prepareRun validates everything and builds the Runtime. Nothing is sent
// to a model and no file is written here; on error the returned prepared
// (possibly nil) says which session was opened.
func prepareRun(ctx context.Context, sys *System, c *cobra.Command, o *runOptions, m mode.Mode) (*prepared, error) {
	if _, err := mode.Parse(string(m)); err != nil {
		return nil, usageErr("--mode %q: use print (pi's text), json, events or rpc", m)
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
			if b, err = pijson.Marshal(struct {
				Type          string `json:"type"`
				SchemaVersion int    `json:"schemaVersion"`
				SystemPrompt  string `json:"systemPrompt"`
			}{"system_prompt", mode.SchemaVersion, cat.SystemPrompt()}); err == nil {
				_, err = sys.Stdout.Write(append(b, '\n'))
			}
		}
		return &prepared{done: true}, err
	}
	p := &prepared{tools: s.tools, ctx: ctx, cancel: func() {}, otel: s.telemetry}
	if p.schema, err = loadOutputSchema(sys, s, o); err != nil {
		return p, err
	}
	p.outputRetries = o.outputRetries
	// A new session's model is chosen before anything touches the disk; a
	// resumed one falls back to the model and thinking level it last used.
	ms, err := s.cfg.Model(o.apiKey)
	if err != nil {
		return nil, err
	}
	set := s.assembly(o, ms, withSchema(cat.SystemPrompt(), p.schema), schemaJSON(p.schema))
	if set.Subagents, set.Tools, err = s.cfg.Subagents(cat, set.Tools, o.excludeTools); err != nil {
		return nil, err
	}
	if len(set.Tools) != len(s.tools) { // defined agents offer task: the prompt says so
		set.SystemPrompt = withSchema(cat.SystemPromptFor(set.Tools), p.schema)
	}
	sys.waitTrapped() // before MCP servers start and stdin is read
	set.MoreTools = mcpTools(p.ctx, sys, s)
	a, err := assemble.New(set, sys.env())
	if err != nil {
		return nil, err
	}
	if s.timeout > 0 { // the deadline covers reading stdin too; runRun cancels it
		p.ctx, p.cancel = context.WithTimeout(ctx, s.timeout)
	}
	p.secrets = a.Secrets()
	if err := readPromptMessage(sys, s, o, cat, p); err != nil {
		return p, err
	}
	p.spill, p.groups, sys.groups, p.cwd, p.guard = s.spillDir, s.groups, s.groups, s.cwd, s.guard
	err = a.Open()
	p.store, p.file, p.leaf, p.name = a.Store(), a.File(), a.Leaf(), a.Name()
	p.model, p.rt, p.changes = a.Model().Info, a.Runtime(), a.Changes()
	return p, err
}

// assembly is the typed settings assemble builds a Runtime from.
func (s *runSettings) assembly(o *runOptions, ms assemble.ModelSettings, systemPrompt string, schema json.RawMessage) assemble.Settings {
	return assemble.Settings{
		Cwd: s.cwd, Home: s.cfg.Home(), Bare: o.bare, Model: ms, Thinking: s.thinking, ThinkingExplicit: s.cfg.Rank("thinking") == settings.FromFlag,
		MaxSteps: s.maxSteps, MaxTokens: s.maxTok, Compaction: s.compact, CompactionModel: s.compactModel, Limits: s.limits, Tools: s.tools, Custom: s.custom,
		Hooks: s.cfg.Hooks(), Secrets: s.cfg.Secrets(), SystemPrompt: systemPrompt, OutputSchema: schema, SpillDir: s.spillDir, Groups: s.groups, Guard: s.guard,
		Session: assemble.SessionSettings{Path: o.session, Leaf: o.leaf, Continue: o.cont, None: o.noSession, Fork: o.fork, ID: o.sessionID,
			Name: o.name.v, NameSet: o.name.set, Dir: s.sessionDir, NoSync: s.noSync},
		Origin: s.cfg.Origin,
	}
}

// readPromptMessage reads the prompts as pi 1.6 does: the @file
// arguments' text and images, the first message and stdin make the first
// prompt; every further message argument is a prompt of its own, sent
// after the one before it ended (p.then). Each is bounded by
// --max-prompt-bytes and has a template or skill expanded (bounded too).
func readPromptMessage(sys *System, s *runSettings, o *runOptions, cat *resources.Catalog, p *prepared) error {
	files, messages := splitArgs(o.args)
	head, images, err := readFileArgs(sys, s.cwd, files, s.maxPrompt, s.cfg, p.secrets)
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

// readSettings reads and checks every setting of a run (or a chat).
func readSettings(sys *System, c *cobra.Command, o *runOptions) (*runSettings, error) {
	s, err := openSettings(sys, c, o)
	if err != nil {
		return nil, err
	}
	r, err := s.cfg.Run(settings.RunRequest{Cwd: s.cwd, NoTools: o.noTools, Exclude: o.excludeTools})
	if err != nil {
		return nil, err
	}
	s.thinking, s.maxSteps, s.maxTok, s.timeout, s.noSync = r.Thinking, r.MaxSteps, r.MaxTokens, r.Timeout, r.NoSync
	s.compact, s.compactModel, s.limits, s.sessionDir = r.Compaction, r.CompactionModel, r.Limits, r.SessionDir
	s.tools, s.custom, s.telemetry, s.maxPrompt = r.Tools, r.Custom, r.Telemetry, r.MaxPromptBytes
	s.cfg.WarnMissingPromptFiles(s.cwd)
	if s.guard, err = readGuard(sys, s.cfg, s.cwd, s.spillDir); err != nil {
		return nil, err
	}
	if s.mcp, err = readMCP(s.cfg, o, s.cwd); err != nil {
		return nil, err
	}
	return s, nil
}

// readContextSettings reads what gopi context needs: the working
// directory, the settings files, the tools the prompt is built for.
func readContextSettings(sys *System, c *cobra.Command, o *runOptions) (*runSettings, error) {
	s, err := openSettings(sys, c, o)
	if err != nil {
		return nil, err
	}
	if s.tools, err = s.cfg.Tools(o.noTools, o.excludeTools); err != nil {
		return nil, err
	}
	if s.custom, err = s.cfg.CustomTools(s.tools); err != nil {
		return nil, err
	}
	s.cfg.WarnMissingPromptFiles(s.cwd)
	if s.mcp, err = readMCP(s.cfg, o, s.cwd); err != nil {
		return nil, err
	}
	return s, nil
}

// openSettings resolves the working directory and the key file, and
// loads the layered settings.
func openSettings(sys *System, c *cobra.Command, o *runOptions) (*runSettings, error) {
	cwd, err := resolveCwd(sys, o.cwd)
	if err != nil {
		return nil, err
	}
	if err := o.loadAPIKeyFile(cwd); err != nil {
		return nil, err
	}
	cfg, err := loadSettings(sys, c.Flags(), cwd, o.bare)
	if err != nil {
		return nil, err
	}
	return &runSettings{cwd: cwd, cfg: cfg, spillDir: newRunDir(), groups: &tools.Groups{},
		systemPrompt: cfg.String("systemPrompt"), appendSystemPrompt: cfg.String("appendSystemPrompt")}, nil
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
		return nil, usageErr("--output-schema %s: %s; give a JSON Schema file of at most 1 MiB", o.outputSchema, fileProblem(err))
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

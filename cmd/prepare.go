package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"gopi/internal/filekind"
	"gopi/internal/pijson"
	"gopi/pkg/ai"
	"gopi/pkg/assemble"
	"gopi/pkg/loop"
	"gopi/pkg/mode"
	"gopi/pkg/resources"
	"gopi/pkg/runtime"
	"gopi/pkg/settings"
	"gopi/pkg/structured"
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
	sandbox                          *assemble.SandboxSettings // the sandbox and permission rules (sandbox.go)
	mcp                              *mcpPlan                  // the MCP servers to start (mcp.go)

	// telemetry is the "telemetry" key (telemetry.go).
	telemetry telemetry.Settings
}

// prepareRun validates everything and builds the Runtime. Nothing is sent
// to a model and no file is written here (--print-system-prompt writes
// to rs.stdout); on error the returned prepared (possibly nil) says which
// session was opened.
func prepareRun(ctx context.Context, sys *System, c *cobra.Command, o *runOptions, m mode.Mode, rs runStreams) (*prepared, error) {
	if _, err := mode.Parse(string(m)); err != nil {
		return nil, usageErr("--mode %q: use print (pi's text), json, events or rpc", m)
	}
	s, err := readSettings(sys, c, &o.agentOptions)
	if err != nil {
		return nil, err
	}
	cat, err := loadResources(sys, s, &o.agentOptions)
	if err != nil {
		return nil, err
	}
	if o.printSP { // needs no model, so no key either
		// json and events keep their promise of JSON lines on stdout: one
		// object whose type says it is not a run's result.
		if m == mode.Print {
			_, err = fmt.Fprintln(rs.stdout, cat.SystemPrompt())
		} else {
			var b []byte
			if b, err = pijson.Marshal(struct {
				Type          string `json:"type"`
				SchemaVersion int    `json:"schemaVersion"`
				SystemPrompt  string `json:"systemPrompt"`
			}{"system_prompt", mode.SchemaVersion, cat.SystemPrompt()}); err == nil {
				_, err = rs.stdout.Write(append(b, '\n'))
			}
		}
		return &prepared{done: true}, err
	}
	p := &prepared{tools: s.tools, ctx: ctx, cancel: func() {}}
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
	set := s.assembly(&o.agentOptions, ms, withSchema(cat.SystemPrompt(), p.schema), schemaJSON(p.schema))
	if set.Subagents, set.Tools, err = s.cfg.Subagents(cat, set.Tools, o.excludeTools); err != nil {
		return nil, err
	}
	if len(set.Tools) != len(s.tools) { // defined agents offer task: the prompt says so
		set.SystemPrompt = withSchema(cat.SystemPromptFor(set.Tools), p.schema)
	}
	rs.trapped() // before MCP servers start and stdin is read
	return openRun(ctx, sys, s, o, cat, set, p)
}

// openRun builds the run's Assembly, reads the prompt (within the
// --timeout deadline) and builds the Runtime; on error p says which
// session was opened, and its Assembly, once built, is released by
// runRun.
func openRun(ctx context.Context, sys *System, s *runSettings, o *runOptions, cat *resources.Catalog, set assemble.Settings, p *prepared) (*prepared, error) {
	a, err := assemble.New(set, sys.env(ctx))
	if err != nil {
		return nil, err
	}
	p.a = a
	sys.hosts.add(a)
	if s.timeout > 0 { // the deadline covers reading stdin too; runRun cancels it
		p.ctx, p.cancel = context.WithTimeout(ctx, s.timeout)
	}
	p.secrets = a.Secrets()
	if err := readPromptMessage(sys, s, o, cat, p); err != nil {
		return p, err
	}
	p.cwd = s.cwd
	return p, a.Open()
}

// assembly is the typed settings assemble builds a Runtime from.
func (s *runSettings) assembly(o *agentOptions, ms assemble.ModelSettings, systemPrompt string, schema json.RawMessage) assemble.Settings {
	return assemble.Settings{
		Cwd: s.cwd, Home: s.cfg.Home(), Bare: o.bare, Model: ms, Thinking: s.thinking, ThinkingExplicit: s.cfg.Rank("thinking") == settings.FromFlag,
		MaxSteps: s.maxSteps, MaxTokens: s.maxTok, Compaction: s.compact, CompactionModel: s.compactModel, Limits: s.limits, Tools: s.tools, Custom: s.custom,
		Hooks: s.cfg.Hooks(), Secrets: s.cfg.Secrets(), SystemPrompt: systemPrompt, OutputSchema: schema,
		Sandbox: s.sandbox, MCP: s.mcp.settings(), Telemetry: assemble.TelemetrySettings{Settings: s.telemetry, Version: version},
		Session: assemble.SessionSettings{Path: o.session, Leaf: o.leaf, Continue: o.cont, None: o.noSession, Fork: o.fork, ID: o.sessionID,
			Name: o.name.v, NameSet: o.name.set, Dir: s.sessionDir, NoSync: s.noSync},
		Origin: s.cfg.Origin,
	}
}

// readPromptMessage reads the prompts (input.Reader.Run): the first, of
// the @file arguments, the first message and stdin, and every further
// message argument as a prompt of its own (p.then).
func readPromptMessage(sys *System, s *runSettings, o *runOptions, cat *resources.Catalog, p *prepared) error {
	first, then, err := promptInput(sys, s, cat, p.secrets, !o.noStdin).Run(p.ctx, o.args)
	if err != nil {
		return err
	}
	p.prompt, p.then = []ai.Message{first}, then
	return nil
}

// readSettings reads and checks every setting of a run (or a chat).
func readSettings(sys *System, c *cobra.Command, o *agentOptions) (*runSettings, error) {
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
	if s.sandbox, err = readSandbox(&o.sandboxFlags, s.cfg, s.cwd); err != nil {
		return nil, err
	}
	if s.mcp, err = readMCP(s.cfg, o, s.cwd); err != nil {
		return nil, err
	}
	return s, nil
}

// readContextSettings reads what gopi context needs: the working
// directory, the settings files, the tools the prompt is built for.
func readContextSettings(sys *System, c *cobra.Command, o *agentOptions) (*runSettings, error) {
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
func openSettings(sys *System, c *cobra.Command, o *agentOptions) (*runSettings, error) {
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
	return &runSettings{cwd: cwd, cfg: cfg,
		systemPrompt: cfg.String("systemPrompt"), appendSystemPrompt: cfg.String("appendSystemPrompt")}, nil
}

func loadResources(sys *System, s *runSettings, o *agentOptions) (*resources.Catalog, error) {
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
func loadOutputSchema(sys *System, s *runSettings, o *runOptions) (*structured.Schema, error) {
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
		return nil, usageErr("--output-schema %s: %s; give a JSON Schema file of at most 1 MiB", o.outputSchema, filekind.Problem(err))
	}
	sch, err := structured.NewSchema(doc)
	if err != nil {
		return nil, usageErr("--output-schema %s: %v", o.outputSchema, err)
	}
	return sch, nil
}

// withSchema adds the output schema's instructions to the system prompt.
func withSchema(prompt string, sch *structured.Schema) string {
	if sch == nil {
		return prompt
	}
	return prompt + "\n\n" + sch.Instructions()
}

// schemaJSON is the schema document the requests carry, nil without one.
func schemaJSON(sch *structured.Schema) json.RawMessage {
	if sch == nil {
		return nil
	}
	return sch.JSON()
}

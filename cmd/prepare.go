package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"gopi/internal/pijson"
	"gopi/pkg/ai"
	"gopi/pkg/assemble"
	"gopi/pkg/mode"
	"gopi/pkg/settings"
)

// prepare opens gopi run's host (the resources and --output-schema read
// before the model's settings) and reads the prompt within the --timeout
// deadline. Nothing is sent to a model; on error the returned prepared
// (possibly nil) says which session was opened, and its Assembly, once
// built, is released by runRun.
func (inv *invocation) prepare(c *cobra.Command, o *runOptions) (*prepared, error) {
	if _, err := mode.Parse(string(inv.m)); err != nil {
		return nil, usageErr("--mode %q: use print (pi's text), json, events or rpc", inv.m)
	}
	ctx, sys := inv.trap.Context(), inv.sys
	p := &prepared{ctx: ctx, cancel: func() {}, outputRetries: o.outputRetries}
	_, err := openHost(ctx, sys, c, &o.agentOptions, opening{
		beforeModel: func(set *assemble.Settings) error { return p.beforeModel(sys.env(ctx), set, o, inv.m, inv.stdout) },
		building:    inv.trap.Ready, // before MCP servers start and stdin is read
		readPrompt: func(h *host) error {
			p.h = h
			if h.set.Timeout > 0 { // the deadline covers reading stdin too; runRun cancels it
				p.ctx, p.cancel = context.WithTimeout(ctx, h.set.Timeout)
			}
			first, then, err := promptInput(sys, h.set, h.a.Catalog(), h.a.Secrets(), !o.noStdin).Run(p.ctx, o.args)
			h.prompt, h.then = []ai.Message{first}, then
			return err
		}})
	if errors.Is(err, errPrinted) {
		return p, nil
	}
	return p, err
}

// errPrinted ends the settings' reading once --print-system-prompt has
// printed the prompt.
var errPrinted = errors.New("system prompt printed")

// beforeModel loads the resources and --output-schema (its instructions
// end the system prompt) before the model's settings are read; with
// --print-system-prompt it prints the prompt instead, which needs no
// model, so no key either.
func (p *prepared) beforeModel(env assemble.Env, set *assemble.Settings, o *runOptions, m mode.Mode, w io.Writer) (err error) {
	if set.Catalog, err = assemble.Resources(*set, env); err != nil {
		return err
	}
	if o.printSP {
		p.done = true
		if err := printSystemPrompt(w, m, set.Catalog.SystemPrompt()); err != nil {
			return err
		}
		return errPrinted
	}
	if p.schema, err = settings.OutputSchema(set.Cwd, o.outputSchema, o.outputRetries); err != nil || p.schema == nil {
		return err
	}
	set.OutputSchema, set.Resources.OutputInstructions = p.schema.JSON(), p.schema.Instructions()
	return nil
}

// printSystemPrompt is --print-system-prompt's output: the text, or in
// json and events (which promise JSON lines on stdout) one object whose
// type says it is not a run's result.
func printSystemPrompt(w io.Writer, m mode.Mode, prompt string) error {
	if m == mode.Print {
		_, err := fmt.Fprintln(w, prompt)
		return err
	}
	b, err := pijson.Marshal(struct {
		Type          string `json:"type"`
		SchemaVersion int    `json:"schemaVersion"`
		SystemPrompt  string `json:"systemPrompt"`
	}{"system_prompt", mode.SchemaVersion, prompt})
	if err == nil {
		_, err = w.Write(append(b, '\n'))
	}
	return err
}

// agentSettings are every setting of a command that runs the agent
// (settings.Assembly).
func agentSettings(sys *System, c *cobra.Command, o *agentOptions) (assemble.Settings, error) {
	cfg, ao, err := openSettings(sys, c, o)
	if err != nil {
		return assemble.Settings{}, err
	}
	return cfg.Assembly(ao)
}

// openSettings resolves the working directory and the key file, loads
// the layered settings and gives the agent flags' values.
func openSettings(sys *System, c *cobra.Command, o *agentOptions) (*settings.Settings, settings.AgentOptions, error) {
	ao := settings.AgentOptions{Bare: o.bare, NoTools: o.noTools, ExcludeTools: o.excludeTools, MCPConfigs: o.mcpConfig, NoMCP: o.noMCP,
		NoSkills: o.noSkills, NoTemplates: o.noTempl, NoContextFiles: o.noContext, Version: version,
		Session: assemble.SessionSettings{Path: o.session, Leaf: o.leaf, Continue: o.cont, None: o.noSession, Fork: o.fork, ID: o.sessionID,
			Name: o.name.v, NameSet: o.name.set}}
	if o.sandboxFlags.added {
		f := &o.sandboxFlags
		ao.Sandbox = &settings.SandboxFlags{Mode: f.sandbox.v, ModeSet: f.sandbox.set, Network: f.allowNetwork, AddDirs: f.addDirs, Allow: f.allowTools, Deny: f.denyTools}
	}
	var err error
	if ao.Cwd, err = resolveCwd(sys, o.cwd); err != nil {
		return nil, ao, err
	}
	if ao.APIKey, err = settings.APIKey(o.apiKey, o.keyFile, ao.Cwd); err != nil {
		return nil, ao, err
	}
	cfg, err := loadSettings(sys, c.Flags(), ao.Cwd, o.bare)
	return cfg, ao, err
}

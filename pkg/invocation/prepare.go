package invocation

import (
	"context"
	"errors"
	"fmt"
	"io"

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
// built, is released by Run.
func (inv *invocation) prepare(o RunOptions) (*prepared, error) {
	if _, err := mode.Parse(string(inv.m)); err != nil {
		return nil, assemble.Usagef("--mode %q: use print (pi's text), json, events or rpc", inv.m)
	}
	ctx, p := inv.trap.Context(), inv.p
	pr := &prepared{ctx: ctx, cancel: func() {}, outputRetries: o.OutputRetries}
	_, err := p.open(ctx, o.Agent, opening{
		beforeModel: func(set *assemble.Settings) error { return pr.beforeModel(p.Env(ctx), set, o, inv.m, inv.stdout) },
		building:    inv.trap.Ready, // before MCP servers start and stdin is read
		readPrompt: func(h *Host) error {
			pr.h = h
			if h.Settings.Timeout > 0 { // the deadline covers reading stdin too; Run cancels it
				pr.ctx, pr.cancel = context.WithTimeout(ctx, h.Settings.Timeout)
			}
			first, then, err := p.promptReader(h.Settings, h.Assembly.Catalog(), h.Assembly.Secrets(), !o.NoStdin).Run(pr.ctx, o.Agent.Args)
			h.prompt, h.then = []ai.Message{first}, then
			return err
		}})
	if errors.Is(err, errPrinted) {
		return pr, nil
	}
	return pr, err
}

// errPrinted ends the settings' reading once --print-system-prompt has
// printed the prompt.
var errPrinted = errors.New("system prompt printed")

// beforeModel loads the resources and --output-schema (its instructions
// end the system prompt) before the model's settings are read; with
// --print-system-prompt it prints the prompt instead, which needs no
// model, so no key either.
func (pr *prepared) beforeModel(env assemble.Env, set *assemble.Settings, o RunOptions, m mode.Mode, w io.Writer) (err error) {
	if set.Catalog, err = assemble.Resources(*set, env); err != nil {
		return err
	}
	if o.PrintSystemPrompt {
		pr.done = true
		if err := printSystemPrompt(w, m, set.Catalog.SystemPrompt()); err != nil {
			return err
		}
		return errPrinted
	}
	if pr.schema, err = settings.OutputSchema(set.Cwd, o.OutputSchema, o.OutputRetries); err != nil || pr.schema == nil {
		return err
	}
	set.OutputSchema, set.Resources.OutputInstructions = pr.schema.JSON(), pr.schema.Instructions()
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

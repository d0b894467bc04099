package cmd

import (
	"context"

	"github.com/spf13/cobra"

	"gopi/pkg/ai"
	"gopi/pkg/assemble"
	"gopi/pkg/resources"
)

// host is the Assembly of a front door that keeps a conversation open
// (chat, rpc, an ACP session) with what cmd read to build it: the
// settings, the resources and the first prompt. The Assembly does the
// rest: Reopen for /leaf, /model, /thinking, /new and rpc's session
// commands, Close for everything it holds.
type host struct {
	sys *System
	s   *runSettings
	o   *chatOptions
	cat *resources.Catalog
	a   *assemble.Assembly
	// the first prompt: its words, the text of its @file arguments, their images
	words, files string
	images       []ai.Content
}

// openHost builds the first Runtime as gopi run does.
func openHost(ctx context.Context, sys *System, c *cobra.Command, o *chatOptions) (*host, error) {
	s, err := readSettings(sys, c, &o.agentOptions)
	if err != nil {
		return nil, err
	}
	s.mcp.servers = append(s.mcp.servers, o.moreMCP...)
	ms, err := s.cfg.Model(o.apiKey)
	if err != nil {
		return nil, err
	}
	cat, err := loadResources(sys, s, &o.agentOptions)
	if err != nil {
		return nil, err
	}
	set, err := hostSettings(s, o, ms, cat)
	if err != nil {
		return nil, err
	}
	a, err := assemble.New(set, sys.env(ctx))
	if err != nil {
		return nil, err
	}
	sys.hosts.add(a)
	h := &host{sys: sys, s: s, o: o, cat: cat, a: a}
	// A missing @file is a usage error before any session is written.
	if h.words, h.files, h.images, err = promptInput(sys, s, nil, a.Secrets(), false).Chat(o.args); err != nil {
		h.close()
		return nil, err
	}
	if err := a.Open(); err != nil {
		h.close()
		return nil, err
	}
	return h, nil
}

// hostSettings are the settings of a conversation's Assembly: as in run,
// a new session's model is chosen before anything touches the disk and
// a resumed one falls back to the model it last used.
func hostSettings(s *runSettings, o *chatOptions, ms assemble.ModelSettings, cat *resources.Catalog) (assemble.Settings, error) {
	set := s.assembly(&o.agentOptions, ms, cat.SystemPrompt(), nil)
	var err error
	if set.Subagents, set.Tools, err = s.cfg.Subagents(cat, set.Tools, o.excludeTools); err != nil {
		return set, err
	}
	if len(set.Tools) != len(s.tools) { // defined agents offer task: the prompt says so
		set.SystemPrompt = cat.SystemPromptFor(set.Tools)
	}
	// As pi's chat and rpc: --session on a session with entries continues
	// from its newest one (gopi run asks for --leaf or -c).
	set.Session.Newest = true
	set.ClampThinking = true
	set.Session.LockWait = o.lockWait
	set.Telemetry.Prompts = true
	return set, nil
}

// close releases the Assembly and everything it holds.
func (h *host) close() {
	h.sys.hosts.remove(h.a)
	h.a.Close()
}

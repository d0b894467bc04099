package cmd

import (
	"context"

	"github.com/spf13/cobra"

	"gopi/pkg/ai"
	"gopi/pkg/assemble"
)

// host is the Assembly of a front door that keeps a conversation open
// (chat, rpc, an ACP session) with its settings and first prompt. The
// Assembly does the rest: Reopen for /leaf, /model, /thinking, /new and
// rpc's session commands, Close for everything it holds.
type host struct {
	sys *System
	set assemble.Settings // as read: Home, MaxPromptBytes, Origin
	o   *chatOptions
	a   *assemble.Assembly
	// the first prompt: its words, the text of its @file arguments, their images
	words, files string
	images       []ai.Content
}

// openHost builds the first Runtime as gopi run does. As pi's chat and
// rpc: --session on a session with entries continues from its newest
// entry (gopi run asks for --leaf or -c), and a model without reasoning
// runs with thinking off.
func openHost(ctx context.Context, sys *System, c *cobra.Command, o *chatOptions) (*host, error) {
	cfg, ao, err := openSettings(sys, c, &o.agentOptions)
	if err != nil {
		return nil, err
	}
	ao.MoreMCP = o.moreMCP
	set, err := cfg.Assembly(ao)
	if err != nil {
		return nil, err
	}
	set.Session.Newest, set.Session.LockWait, set.ClampThinking, set.Telemetry.Prompts = true, o.lockWait, true, true
	a, err := assemble.New(set, sys.env(ctx))
	if err != nil {
		return nil, err
	}
	sys.hosts.add(a)
	h := &host{sys: sys, set: set, o: o, a: a}
	// A missing @file is a usage error before any session is written.
	if h.words, h.files, h.images, err = promptInput(sys, set, nil, a.Secrets(), false).Chat(o.args); err != nil {
		h.close()
		return nil, err
	}
	if err := a.Open(); err != nil {
		h.close()
		return nil, err
	}
	return h, nil
}

// close releases the Assembly and everything it holds.
func (h *host) close() {
	h.sys.hosts.remove(h.a)
	h.a.Close()
}

package cmd

import (
	"context"
	"time"

	"github.com/spf13/cobra"

	"gopi/pkg/ai"
	"gopi/pkg/assemble"
	"gopi/pkg/mcp"
)

// host is the Assembly of a front door (gopi run, chat, rpc, an ACP
// session) with its settings and first prompt. The Assembly does the
// rest: Reopen for /leaf, /model, /thinking, /new and rpc's session
// commands, Close for everything it holds.
type host struct {
	sys *System
	set assemble.Settings // as read: Cwd, Tools, Home, MaxPromptBytes, Origin
	a   *assemble.Assembly
	// a conversation's first prompt: its words, the text of its @file
	// arguments, their images
	words, files string
	images       []ai.Content
	// gopi run's prompt and its further message arguments, each a prompt
	// of its own
	prompt, then []ai.Message
}

// opening is what differs between the front doors' openings.
type opening struct {
	// beforeModel runs once the resources' settings are read, before the
	// model's (gopi run: resources, --output-schema, --print-system-prompt).
	beforeModel func(*assemble.Settings) error
	// conversation: as pi's chat and rpc, --session on a session with
	// entries continues from its newest entry (gopi run asks for --leaf
	// or -c), a model without reasoning runs with thinking off, and
	// telemetry records the prompts.
	conversation bool
	// lockWait: how long an existing session's lock held elsewhere is
	// waited for (rpc: rpcLockWait).
	lockWait time.Duration
	// moreMCP are MCP servers started beside the settings' (an ACP
	// client's, given with its session).
	moreMCP []mcp.Server
	// building runs before the Assembly is built (gopi run: its signals
	// trapped before MCP servers start and stdin is read).
	building func()
	// readPrompt reads the first prompt into h before the session opens;
	// nil: a conversation's words and @file arguments.
	readPrompt func(h *host) error
}

// openHost is every front door's opening: the options through the
// layered settings into the Assembly's settings, the Assembly, the first
// prompt (a missing @file is a usage error before any session is
// written), then the session and the first Runtime. Once the Assembly
// is built the host is returned, on error too, for its caller to close.
func openHost(ctx context.Context, sys *System, c *cobra.Command, o *agentOptions, op opening) (*host, error) {
	cfg, ao, err := openSettings(sys, c, o)
	if err != nil {
		return nil, err
	}
	ao.MoreMCP, ao.BeforeModel = op.moreMCP, op.beforeModel
	set, err := cfg.Assembly(ao)
	if err != nil {
		return nil, err
	}
	if op.conversation {
		set.Session.Newest, set.Session.LockWait, set.ClampThinking, set.Telemetry.Prompts = true, op.lockWait, true, true
	}
	if op.building != nil {
		op.building()
	}
	a, err := assemble.New(set, sys.env(ctx))
	if err != nil {
		return nil, err
	}
	sys.hosts.Add(a)
	h := &host{sys: sys, set: set, a: a}
	read := op.readPrompt
	if read == nil {
		read = func(h *host) (err error) {
			h.words, h.files, h.images, err = promptInput(sys, set, nil, a.Secrets(), false).Chat(o.args)
			return err
		}
	}
	if err := read(h); err != nil {
		return h, err
	}
	return h, a.Open()
}

// openConversation opens the host of a conversation (chat, rpc, an ACP
// session), closed again on error.
func openConversation(ctx context.Context, sys *System, c *cobra.Command, o *agentOptions, lockWait time.Duration, more []mcp.Server) (*host, error) {
	h, err := openHost(ctx, sys, c, o, opening{conversation: true, lockWait: lockWait, moreMCP: more})
	if err != nil && h != nil {
		h.close()
		h = nil
	}
	return h, err
}

// close releases the Assembly and everything it holds.
func (h *host) close() {
	h.sys.hosts.Remove(h.a)
	h.a.Close()
}

package invocation

import (
	"context"
	"time"

	"gopi/pkg/ai"
	"gopi/pkg/assemble"
	"gopi/pkg/input"
	"gopi/pkg/mcp"
	"gopi/pkg/resources"
	"gopi/pkg/settings"
	"gopi/pkg/tools"
)

// Agent is what a command's agent flags gave, as the command bound them.
type Agent struct {
	// Options are the agent flags that are not settings keys; their Cwd
	// and APIKey are set by Settings from the fields below.
	Options settings.AgentOptions
	// CwdFlag is --cwd as given; APIKey and APIKeyFile are --api-key and
	// --api-key-file.
	CwdFlag, APIKey, APIKeyFile string
	// Flags are the flags given, read by the settings under their names
	// (settings.PFlags); nil: none.
	Flags settings.Flags
	// Args are the command's words: the prompt and @file arguments.
	Args []string
}

// Settings resolves the working folder and the key file, loads the
// layered settings and gives the agent flags' values.
func (p *Process) Settings(a Agent) (*settings.Settings, settings.AgentOptions, error) {
	ao := a.Options
	var err error
	if ao.Cwd, err = p.Cwd(a.CwdFlag); err != nil {
		return nil, ao, err
	}
	if ao.APIKey, err = settings.APIKey(a.APIKey, a.APIKeyFile, ao.Cwd); err != nil {
		return nil, ao, err
	}
	cfg, err := p.LoadSettings(a.Flags, ao.Cwd, ao.Bare)
	return cfg, ao, err
}

// AssemblySettings are every setting of a command that runs the agent
// (settings.Assembly), read as a run reads them.
func (p *Process) AssemblySettings(a Agent) (assemble.Settings, error) {
	cfg, ao, err := p.Settings(a)
	if err != nil {
		return assemble.Settings{}, err
	}
	return cfg.Assembly(ao)
}

// Host is the Assembly of a front door (gopi run, chat, rpc, an ACP
// session) with its settings and first prompt. The Assembly does the
// rest: Reopen for /leaf, /model, /thinking, /new and rpc's session
// commands, Close (through the Host's) for everything it holds.
type Host struct {
	p        *Process
	Settings assemble.Settings // as read: Cwd, Tools, Home, MaxPromptBytes, Origin
	Assembly *assemble.Assembly
	// a conversation's first prompt: its words, the text of its @file
	// arguments, their images
	Words, Files string
	Images       []ai.Content
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
	// waited for.
	lockWait time.Duration
	// moreMCP are MCP servers started beside the settings' (an ACP
	// client's, given with its session).
	moreMCP []mcp.Server
	// building runs before the Assembly is built (gopi run: its signals
	// trapped before MCP servers start and stdin is read).
	building func()
	// readPrompt reads the first prompt into h before the session opens;
	// nil: a conversation's words and @file arguments.
	readPrompt func(h *Host) error
}

// open is every front door's opening: the flags through the layered
// settings into the Assembly's settings, the Assembly, the first prompt
// (a missing @file is a usage error before any session is written),
// then the session and the first Runtime. Once the Assembly is built
// the Host is returned, on error too, for its caller to close.
func (p *Process) open(ctx context.Context, ag Agent, op opening) (*Host, error) {
	cfg, ao, err := p.Settings(ag)
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
	a, err := assemble.New(set, p.Env(ctx))
	if err != nil {
		return nil, err
	}
	p.Hosts.Add(a)
	h := &Host{p: p, Settings: set, Assembly: a}
	read := op.readPrompt
	if read == nil {
		read = func(h *Host) (err error) {
			h.Words, h.Files, h.Images, err = p.promptReader(set, nil, a.Secrets(), false).Chat(ag.Args)
			return err
		}
	}
	if err := read(h); err != nil {
		return h, err
	}
	return h, a.Open()
}

// Conversation opens the Host of a conversation (chat, rpc, an ACP
// session): --session on a session with entries continues from its
// newest entry, a session locked elsewhere is waited for up to lockWait,
// the thinking level is clamped to the model's, the prompts are traced,
// and more are MCP servers started beside the settings'. On error
// nothing stays open.
func (p *Process) Conversation(ctx context.Context, a Agent, lockWait time.Duration, more []mcp.Server) (*Host, error) {
	h, err := p.open(ctx, a, opening{conversation: true, lockWait: lockWait, moreMCP: more})
	if err != nil && h != nil {
		h.Close()
		h = nil
	}
	return h, err
}

// Close releases the Assembly and everything it holds.
func (h *Host) Close() {
	h.p.Hosts.Remove(h.Assembly)
	h.Assembly.Close()
}

// promptReader is the reader of this invocation's prompt: the working
// folder, bound and its origin of set, the secrets scrubbed from @file
// text, the templates and skills (cat, nil for none). Stdin is read only
// when withStdin is set and stdin is not a terminal; the notice goes to
// a terminal's stderr only.
func (p *Process) promptReader(set assemble.Settings, cat *resources.Catalog, secrets *tools.Secrets, withStdin bool) *input.Reader {
	r := &input.Reader{Cwd: set.Cwd, Home: p.Getenv("HOME"), Limit: set.MaxPromptBytes, LimitOrigin: set.Origin("maxPromptBytes"),
		Secrets: secrets, Now: p.Now}
	if cat != nil {
		r.Expander = cat
	}
	if withStdin && !p.StdinTTY && p.Stdin != nil {
		r.Stdin = p.Stdin
		if p.StderrTTY {
			r.Notice = p.Stderr
		}
	}
	return r
}

package assemble

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"gopi/internal/said"
	"gopi/pkg/ai"
	"gopi/pkg/extension"
	"gopi/pkg/loop"
	"gopi/pkg/resources"
	"gopi/pkg/runtime"
	"gopi/pkg/sandbox"
	"gopi/pkg/session"
	"gopi/pkg/tools"
)

// Error is a refusal before anything ran, with the class that decides
// the caller's exit code.
type Error struct {
	Class ai.Class
	Err   error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// Usagef is a usage or input error (ai.ClassUsage).
func Usagef(format string, a ...any) error {
	return &Error{Class: ai.ClassUsage, Err: fmt.Errorf(format, a...)}
}

// SessionErr is a session that could not be read or written (ai.ClassSession).
func SessionErr(err error) error { return &Error{Class: ai.ClassSession, Err: err} }

// Env is what the assembly takes from its process.
type Env struct {
	Environ []string
	Now     func() time.Time
	Stderr  io.Writer // warnings: the store's, hooks', model notes, MCP servers'
	// Context's end (a signal) stops MCP servers starting; nil is
	// context.Background.
	Context context.Context
	// Version is gopi's, as MCP servers are told it.
	Version string
	// SandboxProbe reports the kernel's Landlock ABI; nil asks the kernel.
	SandboxProbe sandbox.Probe
	// Said are the warnings said in this invocation, so that the
	// Assemblies of one process (a chat's, rpc's or acp's sessions) say
	// each once; nil: each Assembly says its own once.
	Said *said.Set
}

// Getenv looks a variable up in Environ, the last setting winning.
func (e Env) Getenv(key string) string {
	v, _ := e.lookup(key)
	return v
}

// lookup is os.LookupEnv on Environ.
func (e Env) lookup(key string) (string, bool) {
	for i := len(e.Environ) - 1; i >= 0; i-- {
		kv := e.Environ[i]
		if len(kv) > len(key) && kv[len(key)] == '=' && kv[:len(key)] == key {
			return kv[len(key)+1:], true
		}
	}
	return "", false
}

// SessionSettings choose the session store and its leaf.
type SessionSettings struct {
	Path     string // --session: a file or an id prefix
	Leaf     string // --leaf: an entry id or a unique prefix
	Continue bool   // -c
	None     bool   // --no-session: a memory store
	Fork     string // --fork: the session copied into a new one
	ID       string // --session-id
	Name     string // -n/--name as given
	NameSet  bool   // -n/--name was given (an empty one is refused)
	Dir      string // --session-dir; "" for Home/sessions/<folder of Cwd>
	NoSync   bool   // fsync never
	// Branch, with Fork and Leaf, copies only the path from the root to
	// Leaf (pi's fork and clone; session.Branch), not the whole file
	// (--fork), and continues from the copy's last entry.
	Branch bool
	// Parent is written into a new session's header as parentSession
	// (rpc's new_session with parentSession).
	Parent string
	// LockWait is how long opening an existing session waits for another
	// process to let go of its lock (rpc: a bridge restarting gopi on
	// the same file); 0 refuses at once.
	LockWait time.Duration
	// Newest: a session with entries continues from its newest entry
	// without -c, as pi's chat and rpc modes do; gopi run leaves it
	// false and asks for --leaf or -c.
	Newest bool
}

// Settings are the resolved, typed values of one invocation.
type Settings struct {
	Cwd  string // absolute working directory
	Home string // $GOPI_HOME: sessions, notes
	// Bare: no settings files were read; model notes are shown every time.
	Bare     bool
	Model    ModelSettings
	Thinking ai.ThinkingLevel
	// ThinkingExplicit: Thinking came from a flag, so it wins over the
	// level of "id:level".
	ThinkingExplicit bool
	// ClampThinking: a model without reasoning runs with thinking off,
	// and the Assembly's and the session's level say so (pi's chat and
	// rpc clamp the level to the model); gopi run keeps the level asked.
	ClampThinking bool
	MaxSteps      int
	MaxTokens     int
	Compaction    runtime.Compaction
	// CompactionModel is the "compaction": {"model": "provider/id"}
	// setting: the model that writes compaction summaries in place of the
	// run's; "" for the run's own.
	CompactionModel string
	Limits          loop.Limits
	Tools           []string     // the tools offered, built-in and custom, by name
	Custom          []tools.Tool // the custom tools among Tools
	Hooks           extension.HooksConfig
	// Secrets are the variables settings declare as secrets.
	Secrets []string
	// SystemPrompt is the system prompt, set by New from Resources when
	// they are given.
	SystemPrompt string
	// Resources say what New discovers (LoadCatalog) to build the system
	// prompt and the defined agents; nil: none, SystemPrompt as given.
	Resources *ResourceSettings
	// Catalog is the catalog of Resources when the caller loaded it
	// already (Resources, to say a fault before others); nil: New loads it.
	Catalog      *resources.Catalog
	OutputSchema json.RawMessage // nil without one
	// SpillDir is the folder for bash's spill files; "" names a fresh
	// one (NewSpillDir).
	SpillDir string
	// Sandbox are the sandbox and permission rules the Assembly builds
	// its guard from; nil: none.
	Sandbox *SandboxSettings
	// MCP are the MCP servers started with the first Runtime, their
	// tools offered after the built-in and custom ones.
	MCP       MCPSettings
	Telemetry TelemetrySettings
	Session   SessionSettings
	// Subagents configure the task tool's child runs.
	Subagents SubagentSettings
	// Timeout is the run's deadline and MaxPromptBytes the prompt's
	// bound: the front door applies them (gopi run; the prompt readers).
	Timeout        time.Duration
	MaxPromptBytes int
	// Origin names where a setting came from, for messages ("--max-budget-usd");
	// nil names the settings key.
	Origin func(key string) string
}

func (s *Settings) origin(key string) string {
	if s.Origin != nil {
		return s.Origin(key)
	}
	return fmt.Sprintf("setting %q", key)
}

// Resuming says whether the settings continue an existing session (whose
// model is then chosen once it is read).
func (s *Settings) Resuming() bool {
	ss := s.Session
	return ss.Path != "" || ss.Continue || ss.Fork != "" || ss.ID != ""
}

// Assembly is one invocation's open session and the Runtime built on it.
type Assembly struct {
	s        Settings
	env      Env
	cat      *resources.Catalog // Settings.Resources' catalog
	choice   Choice
	chosen   bool
	thinking ai.ThinkingLevel
	store    session.Store
	file     string
	leaf     string
	name     string // the session's name, recorded by the first Runtime that prompts
	rt       *runtime.Runtime
	changes  *tools.Changes
	kept     bool // a closed session names the spill folder
	// firstSession: the session was the first in gopi's sessions folder,
	// which this invocation made.
	firstSession bool
	// compaction replaces the settings' (Want.Compaction); nil: theirs.
	compaction *runtime.Compaction
	// compactor is the compaction model, once resolved (compactionModel).
	compactor *resolvedCompactor
	// parent is what a child run's Assembly knows of its parent (the
	// task tool); zero for a top-level one.
	parent childOf
	// held are the spill folder, process groups, guard and MCP servers,
	// shared with the children.
	held *holdings
	// telemetryWarned: an unusable telemetry setting was said.
	telemetryWarned bool
	// traced are the Telemetries of its Runtimes, for a forced exit.
	traced traced
}

// New loads the resources (Settings.Resources) and builds the system
// prompt, checks the settings, builds the sandbox guard and, for a new
// session, chooses the model: nothing is written. Open builds the
// Runtime; Close releases what New and Open took, also after an error
// of Open.
func New(s Settings, env Env) (*Assembly, error) {
	cat := s.Catalog
	if cat == nil && s.Resources != nil {
		var err error
		if cat, err = Resources(s, env); err != nil {
			return nil, err
		}
	}
	if cat != nil {
		applyCatalog(&s, cat)
	}
	held, err := newHoldings(&s, env)
	if err != nil {
		return nil, err
	}
	a := &Assembly{s: s, env: env, cat: cat, thinking: s.Thinking, held: held}
	a.warnAgentTools(nil, false)
	if !s.Resuming() {
		ch, err := ChooseModel(env, s.Model, session.ModelState{})
		if err != nil {
			held.guard.Close()
			return nil, err
		}
		a.choice, a.chosen = ch, true
	}
	return a, nil
}

// Build is New and Open together.
func Build(s Settings, env Env) (*Assembly, error) {
	a, err := New(s, env)
	if err != nil {
		return nil, err
	}
	if err := a.Open(); err != nil {
		a.Close()
		return nil, err
	}
	return a, nil
}

// Open opens (or creates) the session store, chooses its leaf, the model
// of a resumed session, and builds the Runtime. On error the store, when
// one was opened, stays open until Close, so the caller can name it.
func (a *Assembly) Open() error {
	if err := a.openSession(a.s.Session); err != nil {
		return err
	}
	if !a.chosen {
		resumed := a.resumedModel()
		if a.thinking == "" && resumed.ThinkingLevel != "" {
			a.thinking = resumed.ThinkingLevel
		}
		ch, err := ChooseModel(a.env, a.s.Model, resumed)
		if err != nil {
			return err
		}
		a.choice, a.chosen = ch, true
	}
	a.settle()
	a.thinking = a.clamp(a.choice, a.thinking)
	rt, changes, err := a.build(a.choice, a.thinking, a.store, a.leaf, a.name)
	if err != nil {
		return err
	}
	a.rt, a.changes = rt, changes
	a.held.swept = startSweep(a.held.spill, a.now())
	a.tracePrompts(rt)
	return nil
}

// Settings are the settings the Assembly was built with, the system
// prompt and the tools as New completed them.
func (a *Assembly) Settings() Settings { return a.s }

// Runtime is the last Runtime built; nil before Open succeeded.
func (a *Assembly) Runtime() *runtime.Runtime { return a.rt }

// Store is the open session store; nil before Open opened one.
func (a *Assembly) Store() session.Store { return a.store }

// File is the session file; "" for a memory store.
func (a *Assembly) File() string { return a.file }

// Leaf is the entry the last Runtime was built to continue from.
func (a *Assembly) Leaf() string { return a.leaf }

// Name is the session's name (-n), normalised; "" without one.
func (a *Assembly) Name() string { return a.name }

// Model is the model in use.
func (a *Assembly) Model() Choice { return a.choice }

// Thinking is the thinking level in use.
func (a *Assembly) Thinking() ai.ThinkingLevel { return a.thinking }

// Compaction is the automatic compaction the Runtimes are built with.
func (a *Assembly) Compaction() runtime.Compaction {
	if a.compaction != nil {
		return *a.compaction
	}
	return a.s.Compaction
}

// Changes records the files the last Runtime's tools changed.
func (a *Assembly) Changes() *tools.Changes { return a.changes }

// SpillKept says whether the open session, or one closed before it,
// names the spill folder, which must then be kept.
func (a *Assembly) SpillKept() bool {
	return a.kept || MentionsDir(a.store, a.file, a.held.spill)
}

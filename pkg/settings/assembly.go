package settings

import (
	"slices"

	"gopi/pkg/assemble"
	"gopi/pkg/mcp"
	"gopi/pkg/tools"
)

// AgentOptions are the values of the flags of a command that runs the
// agent (run, chat, rpc, acp) that are not settings keys: the command
// fills them from its options; the flags that are keys (--model,
// --tools, --max-steps, ...) are read through Options.Flags.
type AgentOptions struct {
	Cwd    string // the absolute working folder
	Bare   bool   // --bare
	APIKey string // --api-key, or --api-key-file's key
	// Session are the session flags: Path, Leaf, Continue, None, Fork,
	// ID, Name, NameSet (Dir and NoSync are settings).
	Session      assemble.SessionSettings
	NoTools      bool     // --no-tools
	ExcludeTools []string // --exclude-tools
	MCPConfigs   []string // --mcp-config
	NoMCP        bool     // --no-mcp
	// MoreMCP are servers the front door adds (an ACP client's).
	MoreMCP []mcp.Server
	// Sandbox are the sandbox flags; nil for a command without them.
	Sandbox *SandboxFlags
	// NoSkills, NoTemplates and NoContextFiles are --no-skills,
	// --no-prompt-templates and --no-context-files.
	NoSkills, NoTemplates, NoContextFiles bool
	// Version is gopi's, as telemetry reports it.
	Version string
	// BeforeModel, when set, is called once the run's values, the
	// sandbox and the MCP servers are read, before the model's settings:
	// gopi run loads the resources and its output schema there, so that
	// their faults are said before the model's, and --print-system-prompt
	// stops there. Its error is Assembly's.
	BeforeModel func(*assemble.Settings) error
}

// Assembly reads and checks every setting of a run (or a chat) in this
// order: the run's values (readRun), the sandbox, the MCP servers,
// BeforeModel, the model, the sub-agents; and says when a system prompt
// looks like a missing file. The resources are loaded by assemble.New
// (or by BeforeModel).
func (s *Settings) Assembly(o AgentOptions) (assemble.Settings, error) {
	r, err := s.readRun(runRequest{Cwd: o.Cwd, NoTools: o.NoTools, Exclude: o.ExcludeTools})
	if err != nil {
		return assemble.Settings{}, err
	}
	s.warnMissingPromptFiles(o.Cwd)
	set := s.base(o, r.Tools, r.Custom)
	if o.Sandbox != nil {
		if set.Sandbox, err = s.Sandbox(o.Cwd, *o.Sandbox); err != nil {
			return assemble.Settings{}, err
		}
	}
	if set.MCP, err = s.mcpSettings(o); err != nil {
		return assemble.Settings{}, err
	}
	if o.BeforeModel != nil {
		if err := o.BeforeModel(&set); err != nil {
			return assemble.Settings{}, err
		}
	}
	if set.Model, err = s.Model(o.APIKey); err != nil {
		return assemble.Settings{}, err
	}
	if set.Subagents, err = s.subagents(); err != nil {
		return assemble.Settings{}, err
	}
	set.Subagents.NoTask = slices.ContainsFunc(o.ExcludeTools, func(e string) bool { return MatchTool(e, tools.TaskName) })
	set.Thinking, set.ThinkingExplicit = r.Thinking, s.Rank("thinking") == FromFlag
	set.MaxSteps, set.MaxTokens, set.Timeout, set.MaxPromptBytes = r.MaxSteps, r.MaxTokens, r.Timeout, r.MaxPromptBytes
	set.Compaction, set.CompactionModel, set.Limits = r.Compaction, r.CompactionModel, r.Limits
	set.Hooks, set.Secrets = s.Hooks(), s.Secrets()
	set.Telemetry = assemble.TelemetrySettings{Settings: r.Telemetry, Version: o.Version}
	set.Session.Dir, set.Session.NoSync = r.SessionDir, r.NoSync
	return set, nil
}

// Context are the settings gopi context reads: the working folder and
// home, the tools, the MCP servers and the resources to discover. No run
// value, model or sandbox is read (the sandbox is Sandbox's).
func (s *Settings) Context(o AgentOptions) (assemble.Settings, error) {
	toolSel, err := s.Tools(o.NoTools, o.ExcludeTools)
	if err != nil {
		return assemble.Settings{}, err
	}
	custom, err := s.CustomTools(toolSel)
	if err != nil {
		return assemble.Settings{}, err
	}
	s.warnMissingPromptFiles(o.Cwd)
	set := s.base(o, toolSel, custom)
	set.MCP, err = s.mcpSettings(o)
	return set, err
}

// base are the settings of o and the tools offered, with the resources
// to discover.
func (s *Settings) base(o AgentOptions, toolSel []string, custom []tools.Tool) assemble.Settings {
	return assemble.Settings{Cwd: o.Cwd, Home: s.Home(), Bare: o.Bare, Tools: toolSel, Custom: custom, Session: o.Session, Origin: s.Origin,
		Resources: &assemble.ResourceSettings{SystemPrompt: s.String("systemPrompt"), AppendSystemPrompt: s.String("appendSystemPrompt"),
			NoSkills: o.NoSkills, NoTemplates: o.NoTemplates, NoContextFiles: o.NoContextFiles}}
}

// mcpSettings are the MCP servers of o (readMCP), the front door's added.
func (s *Settings) mcpSettings(o AgentOptions) (assemble.MCPSettings, error) {
	m, err := s.readMCP(mcpRequest{Cwd: o.Cwd, Bare: o.Bare, None: o.NoMCP || o.NoTools, Configs: o.MCPConfigs, Exclude: o.ExcludeTools})
	if err != nil {
		return assemble.MCPSettings{}, err
	}
	return assemble.MCPSettings{Servers: append(m.Servers, o.MoreMCP...), Select: m.Options.Select,
		StartTimeout: m.Options.StartTimeout, CallTimeout: m.Options.CallTimeout}, nil
}

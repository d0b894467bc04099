package extension

import (
	"context"
	"fmt"
	"regexp"
	"time"

	"gopi/pkg/tools"
)

// DefaultHookTimeout bounds a command hook without its own timeout.
const DefaultHookTimeout = 30 * time.Second

// HooksConfig is the "hooks" object of a settings file:
//
//	{"hooks":{"beforeTool":[{"matcher":"bash","command":"./policy.sh","timeout":30}],"afterTool":[...]}}
//
// The CLI decodes each settings file into it (project hooks after global
// ones) and calls Host.AddCommandHooks.
type HooksConfig struct {
	BeforeTool []CommandHook `json:"beforeTool,omitempty"`
	AfterTool  []CommandHook `json:"afterTool,omitempty"`
}

// CommandHook is one external command run around matching tool calls.
type CommandHook struct {
	// Matcher is a regular expression that must match the whole tool
	// name ("bash", "edit|write"); "" or "*" matches every tool.
	Matcher string `json:"matcher,omitempty"`
	// Command is run with `sh -c` in Dir (on Windows, the bash tool's
	// shell: see CommandEnv.Shell).
	Command string `json:"command"`
	// Timeout in seconds; 0 means DefaultHookTimeout.
	Timeout float64 `json:"timeout,omitempty"`
	// Dir is the folder the command runs in and the hook's project
	// folder (GOPI_PROJECT_DIR): the project whose settings declared it,
	// so a relative "./policy.sh" resolves wherever gopi starts. ""
	// means CommandEnv.Cwd. It is set by whoever reads the settings, not
	// from JSON.
	Dir string `json:"-"`
}

// SetDir gives every hook of cfg the folder it runs in.
func (cfg *HooksConfig) SetDir(dir string) {
	for i := range cfg.BeforeTool {
		cfg.BeforeTool[i].Dir = dir
	}
	for i := range cfg.AfterTool {
		cfg.AfterTool[i].Dir = dir
	}
}

// CommandEnv is what command hooks see of the world, injected by the CLI.
type CommandEnv struct {
	// Cwd is the session's working directory: hooks get it as "cwd", and
	// a hook without a Dir runs there and gets it as GOPI_PROJECT_DIR
	// and CLAUDE_PROJECT_DIR.
	Cwd string
	// Environ is the hooks' environment; variables holding provider
	// credentials are removed again here, whatever the caller passed.
	Environ []string
	// SessionID returns the session's id for "session_id"; nil sends "".
	SessionID func() string
	// Shell runs the command as Shell -c COMMAND (PowerShell gets it as
	// -EncodedCommand); "" means /bin/sh on Unix and, on Windows, the
	// bash tool's choice: bash on PATH, else pwsh, else powershell.exe.
	Shell string
	// Source names where the hooks were declared (a settings file), for
	// error messages and hook names.
	Source string
	// Secrets are scrubbed from the hooks' output (stdout and stderr)
	// before it is read: hooks can find gopi's keys as tools can.
	Secrets *tools.Secrets
}

// AddCommandHooks registers cfg's command hooks, before-hooks and
// after-hooks each in order, after the hooks already registered. A hook
// without a command, with a matcher that does not compile or with a
// negative timeout is an error, and then none of cfg is registered.
func (h *Host) AddCommandHooks(cfg HooksConfig, env CommandEnv) error {
	if env.Shell == "" && (len(cfg.BeforeTool) > 0 || len(cfg.AfterTool) > 0) {
		env.Shell = defaultShell()
	}
	before, err := compileHooks(cfg.BeforeTool, "beforeTool", env)
	if err != nil {
		return err
	}
	after, err := compileHooks(cfg.AfterTool, "afterTool", env)
	if err != nil {
		return err
	}
	for _, c := range before {
		h.BeforeTool(c.name, c.before)
	}
	for _, c := range after {
		h.AfterTool(c.name, c.after)
	}
	return nil
}

// commandHook is one validated CommandHook.
type commandHook struct {
	name    string
	command string
	match   *regexp.Regexp // nil: every tool
	timeout time.Duration
	env     CommandEnv
	dir     string // where it runs: its project folder, or env.Cwd
}

func compileHooks(hooks []CommandHook, field string, env CommandEnv) ([]*commandHook, error) {
	out := make([]*commandHook, 0, len(hooks))
	for i, hk := range hooks {
		where := fmt.Sprintf("hooks.%s[%d]", field, i)
		if env.Source != "" {
			where = env.Source + ": " + where
		}
		if hk.Command == "" {
			return nil, fmt.Errorf("%s: no command: add \"command\": \"<program to run>\"", where)
		}
		if hk.Timeout < 0 {
			return nil, fmt.Errorf("%s: timeout %v is negative: give seconds, or leave it out for %v", where, hk.Timeout, DefaultHookTimeout)
		}
		c := &commandHook{name: fmt.Sprintf("%q", hk.Command), command: hk.Command, timeout: DefaultHookTimeout, env: env, dir: hk.Dir}
		if c.dir == "" {
			c.dir = env.Cwd
		}
		if hk.Timeout > 0 {
			c.timeout = time.Duration(hk.Timeout * float64(time.Second))
		}
		if hk.Matcher != "" && hk.Matcher != "*" {
			re, err := regexp.Compile("^(?:" + hk.Matcher + ")$")
			if err != nil {
				return nil, fmt.Errorf("%s: matcher %q is not a valid regular expression: %w", where, hk.Matcher, err)
			}
			c.match = re
		}
		out = append(out, c)
	}
	return out, nil
}

func (c *commandHook) matches(tool string) bool { return c.match == nil || c.match.MatchString(tool) }

func (c *commandHook) before(ctx context.Context, call Call) Decision {
	if !c.matches(call.Name) {
		return Allow()
	}
	run := c.run(ctx, c.input(eventPre, call, nil))
	return preDecision(run)
}

func (c *commandHook) after(ctx context.Context, call Call, res tools.Result) (tools.Result, bool) {
	if !c.matches(call.Name) {
		return res, false
	}
	run := c.run(ctx, c.input(eventPost, call, &res))
	return postOutcome(run, call, c.name, res)
}

package cmd

import (
	"github.com/spf13/cobra"

	"gopi/pkg/assemble"
	"gopi/pkg/invocation"
	"gopi/pkg/settings"
)

// agent hands the agent flags bound in o, and the flags given on c, to
// pkg/invocation (settings.AgentOptions: the flags that are not keys).
func agent(c *cobra.Command, o *agentOptions) invocation.Agent {
	ao := settings.AgentOptions{Bare: o.bare, NoTools: o.noTools, ExcludeTools: o.excludeTools, MCPConfigs: o.mcpConfig, NoMCP: o.noMCP,
		NoSkills: o.noSkills, NoTemplates: o.noTempl, NoContextFiles: o.noContext, Version: version,
		Session: assemble.SessionSettings{Path: o.session, Leaf: o.leaf, Continue: o.cont, None: o.noSession, Fork: o.fork, ID: o.sessionID,
			Name: o.name.v, NameSet: o.name.set}}
	if o.sandboxFlags.added {
		f := &o.sandboxFlags
		ao.Sandbox = &settings.SandboxFlags{Mode: f.sandbox.v, ModeSet: f.sandbox.set, Network: f.allowNetwork, AddDirs: f.addDirs, Allow: f.allowTools, Deny: f.denyTools}
	}
	return invocation.Agent{Options: ao, CwdFlag: o.cwd, APIKey: o.apiKey, APIKeyFile: o.keyFile, Flags: settings.PFlags(c.Flags()), Args: o.args}
}

package cmd

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"gopi/pkg/assemble"
	"gopi/pkg/mcp"
	"gopi/pkg/resources"
)

// mcpLayer is the "mcpServers" object of one settings file.
type mcpLayer struct {
	path string
	raw  json.RawMessage
}

// takeMCP keeps the "mcpServers" of one settings file for readMCP; the
// key is not a plain setting.
func (c *settings) takeMCP(path string, obj map[string]json.RawMessage) {
	if raw, ok := obj["mcpServers"]; ok {
		c.mcpLayers = append(c.mcpLayers, mcpLayer{path: path, raw: raw})
		delete(obj, "mcpServers")
	}
}

// mcpSettings is the "mcp" settings object: defaults of every server.
type mcpSettings struct {
	StartTimeout float64 `json:"startTimeout"` // seconds
	Timeout      float64 `json:"timeout"`      // seconds, one tool call
}

// mcpPlan is the servers a run starts.
type mcpPlan struct {
	servers []mcp.Server
	opts    mcp.Options // without Environ, Getenv and Report: the run's
}

// readMCP reads the MCP servers of one invocation, in merge order: each
// settings folder's settings.json "mcpServers" and then its mcp.json
// (pi's file, the same shape), $GOPI_HOME's first and then the project's
// from its root down, and last each --mcp-config file (Claude Code's
// .mcp.json shape). A later server replaces an earlier one of the same
// name. --bare reads no settings folder; --no-mcp and --no-tools start
// none. Every fault is a usage error naming the file.
func readMCP(sys *System, c *settings, o *agentOptions, cwd string) (*mcpPlan, error) {
	plan := &mcpPlan{}
	if o.noMCP || o.noTools {
		return plan, nil
	}
	var set mcpSettings
	if err := c.decode("mcp", &set); err != nil {
		return nil, usageErr("%v; give {\"startTimeout\": SECONDS, \"timeout\": SECONDS}", err)
	}
	for key, v := range map[string]float64{"startTimeout": set.StartTimeout, "timeout": set.Timeout} {
		if v < 0 || v > 86400 {
			return nil, usageErr("%s: \"mcp\".%s %v: give seconds above 0 and at most 86400", c.origin("mcp"), key, v)
		}
	}
	plan.opts.StartTimeout = time.Duration(set.StartTimeout * float64(time.Second))
	plan.opts.CallTimeout = time.Duration(set.Timeout * float64(time.Second))
	home := sys.getenv("HOME")
	var cfg mcp.Config
	if !o.bare {
		for _, f := range settingsFiles(c.home, cwd) {
			dir := hookDir(c.home, f)
			if dir == "" {
				dir = cwd
			}
			for _, l := range c.mcpLayers {
				if l.path == f {
					if err := cfg.Merge("settings "+f, l.raw, dir, home); err != nil {
						return nil, usageErr("%v", err)
					}
				}
			}
			if err := mergeMCPFile(&cfg, filepath.Join(filepath.Dir(f), "mcp.json"), dir, home, false); err != nil {
				return nil, err
			}
		}
	}
	for _, f := range o.mcpConfig {
		path := f
		if !filepath.IsAbs(path) {
			path = filepath.Join(cwd, path)
		}
		if err := mergeMCPFile(&cfg, path, filepath.Dir(path), home, true); err != nil {
			return nil, err
		}
	}
	plan.servers = cfg.Servers
	plan.opts.Select = mcpSelector(c, o.excludeTools)
	for _, s := range plan.servers {
		for _, n := range s.SecretNames() {
			c.addSecret(n) // a header's token is scrubbed from tool output like a key
		}
	}
	return plan, nil
}

// mergeMCPFile reads one file of {"mcpServers": {...}}; a missing file is
// nothing unless it was named (--mcp-config).
func mergeMCPFile(cfg *mcp.Config, path, dir, home string, named bool) error {
	data, err := resources.ReadFile(nil, path, resources.MaxFileSize)
	switch {
	case errors.Is(err, os.ErrNotExist) && !named:
		return nil
	case errors.Is(err, resources.ErrRefused):
		return usageErr("MCP config %s %v: make it a regular file of at most 1 MiB", path, err)
	case err != nil:
		return usageErr("MCP config %s: %v", path, err)
	}
	var doc struct {
		MCPServers json.RawMessage `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return usageErr("MCP config %s is not valid JSON: %v; fix it, or remove it", path, err)
	}
	if doc.MCPServers == nil && named {
		return usageErr("MCP config %s has no \"mcpServers\": give {\"mcpServers\": {\"NAME\": {\"command\": ..., \"args\": [...]}}}", path)
	}
	if err := cfg.Merge(path, doc.MCPServers, dir, home); err != nil {
		return usageErr("%v", err)
	}
	return nil
}

// mcpSelector is pi's rule for MCP tools: offered unless a "tools" value
// that replaces the selection has an entry starting with mcp__ that does
// not match them, or a -name entry or --exclude-tools removes them.
func mcpSelector(c *settings, exclude []string) func(string) bool {
	layers := c.toolLayers
	if f := c.flags.Lookup("tools"); (f != nil && f.Changed) || c.env["tools"] != "" {
		layers = append(slices.Clip(layers), toolLayer{origin: c.origin("tools"), entries: c.list("tools")})
	}
	return func(name string) bool {
		sel := true
		for _, l := range layers {
			switch {
			case l.null:
				sel = true
			case !slices.ContainsFunc(l.entries, isToolModifier):
				if slices.ContainsFunc(l.entries, isMCPEntry) {
					sel = slices.ContainsFunc(l.entries, func(e string) bool { return matchTool(e, name) })
				}
			default:
				for _, e := range l.entries {
					if e[1:] == name {
						sel = e[0] == '+'
					}
				}
			}
		}
		for _, e := range exclude {
			if matchTool(e, name) {
				sel = false
			}
		}
		return sel
	}
}

// isMCPEntry says whether a tool selection entry is about MCP tools,
// which are known only once their servers run.
func isMCPEntry(e string) bool { return strings.HasPrefix(strings.TrimLeft(e, "+-"), "mcp__") }

// settings are the servers to start and the selection, as assemble
// takes them.
func (p *mcpPlan) settings() assemble.MCPSettings {
	if p == nil {
		return assemble.MCPSettings{}
	}
	return assemble.MCPSettings{Servers: p.servers, Select: p.opts.Select, StartTimeout: p.opts.StartTimeout, CallTimeout: p.opts.CallTimeout}
}

// cmdVersion is gopi's version as MCP servers are told it.
func cmdVersion() string {
	info, ok := debug.ReadBuildInfo()
	return readBuildVersion(info, ok).Version
}

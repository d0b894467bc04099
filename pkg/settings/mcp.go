package settings

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
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

// mcpSettings is the "mcp" settings object: defaults of every server.
type mcpSettings struct {
	StartTimeout float64 `json:"startTimeout"` // seconds
	Timeout      float64 `json:"timeout"`      // seconds, one tool call
}

// mcpRequest says which MCP servers one invocation reads beside the
// settings folders'.
type mcpRequest struct {
	Cwd     string
	Bare    bool     // read no settings folder
	None    bool     // --no-mcp or --no-tools: start none
	Configs []string // --mcp-config files (Claude Code's .mcp.json shape)
	Exclude []string // --exclude-tools
}

// mcpPlan are the servers a run starts, and the options to start them with
// (without Environ, Getenv, Version and Report: the run's).
type mcpPlan struct {
	Servers []mcp.Server
	Options mcp.Options
}

// readMCP reads the MCP servers of one invocation, in merge order: each
// settings folder's settings.json "mcpServers" and then its mcp.json
// (pi's file, the same shape), $GOPI_HOME's first and then the project's
// from its root down, and last each --mcp-config file. A later server
// replaces an earlier one of the same name. Every fault is a usage error
// naming the file. The servers' header tokens become secrets.
func (s *Settings) readMCP(r mcpRequest) (mcpPlan, error) {
	var out mcpPlan
	if r.None {
		return out, nil
	}
	var set mcpSettings
	if err := s.Decode("mcp", &set); err != nil {
		return out, assemble.Usagef("%v; give {\"startTimeout\": SECONDS, \"timeout\": SECONDS}", err)
	}
	for key, v := range map[string]float64{"startTimeout": set.StartTimeout, "timeout": set.Timeout} {
		if v < 0 || v > 86400 {
			return out, assemble.Usagef("%s: \"mcp\".%s %v: give seconds above 0 and at most 86400", s.Origin("mcp"), key, v)
		}
	}
	out.Options.StartTimeout = time.Duration(set.StartTimeout * float64(time.Second))
	out.Options.CallTimeout = time.Duration(set.Timeout * float64(time.Second))
	cfg, err := s.mcpConfig(r)
	if err != nil {
		return out, err
	}
	out.Servers = cfg.Servers
	out.Options.Select = s.MCPSelector(r.Exclude)
	for _, srv := range out.Servers {
		for _, n := range srv.SecretNames() {
			s.AddSecret(n) // a header's token is scrubbed from tool output like a key
		}
	}
	return out, nil
}

// mcpConfig merges the servers of the settings folders and the named
// files.
func (s *Settings) mcpConfig(r mcpRequest) (mcp.Config, error) {
	home := s.getenv("HOME")
	var cfg mcp.Config
	if !r.Bare {
		for _, f := range Files(s.home, r.Cwd) {
			dir := HookDir(s.home, f)
			if dir == "" {
				dir = r.Cwd
			}
			for _, l := range s.mcpLayers {
				if l.path == f {
					if err := cfg.Merge("settings "+f, l.raw, dir, home); err != nil {
						return cfg, assemble.Usagef("%v", err)
					}
				}
			}
			if err := mergeMCPFile(&cfg, filepath.Join(filepath.Dir(f), "mcp.json"), dir, home, false); err != nil {
				return cfg, err
			}
		}
	}
	for _, f := range r.Configs {
		path := f
		if !filepath.IsAbs(path) {
			path = filepath.Join(r.Cwd, path)
		}
		if err := mergeMCPFile(&cfg, path, filepath.Dir(path), home, true); err != nil {
			return cfg, err
		}
	}
	return cfg, nil
}

// mergeMCPFile reads one file of {"mcpServers": {...}}; a missing file is
// nothing unless it was named (--mcp-config).
func mergeMCPFile(cfg *mcp.Config, path, dir, home string, named bool) error {
	data, err := resources.ReadFile(nil, path, resources.MaxFileSize)
	switch {
	case errors.Is(err, os.ErrNotExist) && !named:
		return nil
	case errors.Is(err, resources.ErrRefused):
		return assemble.Usagef("MCP config %s %v: make it a regular file of at most 1 MiB", path, err)
	case err != nil:
		return assemble.Usagef("MCP config %s: %v", path, err)
	}
	var doc struct {
		MCPServers json.RawMessage `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return assemble.Usagef("MCP config %s is not valid JSON: %v; fix it, or remove it", path, err)
	}
	if doc.MCPServers == nil && named {
		return assemble.Usagef("MCP config %s has no \"mcpServers\": give {\"mcpServers\": {\"NAME\": {\"command\": ..., \"args\": [...]}}}", path)
	}
	if err := cfg.Merge(path, doc.MCPServers, dir, home); err != nil {
		return assemble.Usagef("%v", err)
	}
	return nil
}

// MCPSelector is pi's rule for MCP tools: offered unless a "tools" value
// that replaces the selection has an entry starting with mcp__ that does
// not match them, or a -name entry or --exclude-tools removes them.
func (s *Settings) MCPSelector(exclude []string) func(string) bool {
	layers := s.toolValues()
	return func(name string) bool {
		sel := true
		for _, l := range layers {
			switch {
			case l.null:
				sel = true
			case !slices.ContainsFunc(l.entries, isToolModifier):
				if slices.ContainsFunc(l.entries, IsMCPEntry) {
					sel = slices.ContainsFunc(l.entries, func(e string) bool { return MatchTool(e, name) })
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
			if MatchTool(e, name) {
				sel = false
			}
		}
		return sel
	}
}

// IsMCPEntry says whether a tool selection entry is about MCP tools,
// which are known only once their servers run.
func IsMCPEntry(e string) bool { return strings.HasPrefix(strings.TrimLeft(e, "+-"), "mcp__") }

package settings

import (
	"fmt"
	"slices"
	"strings"

	"gopi/pkg/assemble"
	"gopi/pkg/tools"
)

// toolLayer is the "tools" value of one settings file (nil entries with
// null: the default selection again).
type toolLayer struct {
	origin  string
	entries []string
	null    bool
}

// Tools resolves the tool selection as pi 1.6 does (none with
// --no-tools). Each "tools" value, from the settings files in merge order
// and then --tools or GOPI_TOOLS, either replaces the selection (plain
// names, or patterns where * matches any characters) or, when all its
// entries are +name or -name, adds and removes exact names from the
// selection so far (gopi's defaults before any). --exclude-tools then
// removes every tool a name or pattern matches. A name that is no tool,
// a pattern in --tools that matches none, and a list mixing both kinds
// of entry are usage errors.
func (s *Settings) Tools(noTools bool, exclude []string) ([]string, error) {
	if noTools {
		return nil, nil
	}
	layers := s.toolValues()
	// A value that replaces the selection makes the ones before it moot
	// (they are not checked either, as a value a nearer file overrides).
	for i := len(layers) - 1; i > 0; i-- {
		if layers[i].null || !slices.ContainsFunc(layers[i].entries, isToolModifier) {
			layers = layers[i:]
			break
		}
	}
	// Custom tools from settings are tools like the built-in ones, and
	// offered by default beside gopi's default set.
	all := append(slices.Clone(tools.AllNames), tools.TaskName)
	all = append(all, s.customToolNames()...)
	defaults := append(slices.Clone(tools.DefaultNames), s.customToolNames()...)
	sel := slices.Clone(defaults)
	for _, l := range layers {
		var err error
		if l.null {
			sel = slices.Clone(defaults)
		} else if sel, err = applyTools(sel, l, all); err != nil {
			return nil, err
		}
	}
	for _, e := range exclude {
		if err := knownTool("--exclude-tools", e, true, all); err != nil {
			return nil, err
		}
		sel = slices.DeleteFunc(sel, func(name string) bool { return MatchTool(e, name) })
	}
	return slices.DeleteFunc(sel, IsMCPEntry), nil
}

// toolValues are the "tools" values of the settings files, in merge
// order, and last --tools or GOPI_TOOLS when given.
func (s *Settings) toolValues() []toolLayer {
	layers := s.toolLayers
	if s.given("tools") != nil || s.env["tools"] != "" {
		layers = append(slices.Clip(layers), toolLayer{origin: s.Origin("tools"), entries: s.List("tools")})
	}
	return layers
}

// applyTools applies one "tools" value to the selection so far; all are
// the tools there are.
func applyTools(sel []string, l toolLayer, all []string) ([]string, error) {
	mods := 0
	for _, e := range l.entries {
		if isToolModifier(e) {
			mods++
		}
	}
	switch {
	case mods == 0:
		out := []string{}
		for _, e := range l.entries {
			if err := knownTool(l.origin, e, false, all); err != nil {
				return nil, err
			}
			for _, name := range all {
				if MatchTool(e, name) && !slices.Contains(out, name) {
					out = append(out, name)
				}
			}
		}
		return out, nil
	case mods < len(l.entries):
		return nil, assemble.Usagef("%s: tool names cannot be mixed with +name or -name entries: give the whole list (read,bash), or only changes to the default one (+grep,-write)", l.origin)
	}
	sel = slices.Clone(sel)
	for _, e := range l.entries {
		name := e[1:]
		if strings.Contains(name, "*") {
			return nil, assemble.Usagef("%s: +name and -name entries take exact tool names, not patterns: %s (use --exclude-tools for patterns)", l.origin, e)
		}
		if err := knownTool(l.origin, name, false, all); err != nil {
			return nil, err
		}
		i := slices.Index(sel, name)
		switch {
		case e[0] == '+' && i < 0:
			sel = append(sel, name)
		case e[0] == '-' && i >= 0:
			sel = slices.Delete(sel, i, i+1)
		}
	}
	return sel, nil
}

func isToolModifier(e string) bool { return strings.HasPrefix(e, "+") || strings.HasPrefix(e, "-") }

// knownTool refuses a name that is no tool, and a pattern that matches
// none unless unmatched patterns are fine (an exclusion excludes nothing).
func knownTool(origin, entry string, patternMayMiss bool, all []string) error {
	if IsMCPEntry(entry) { // MCP tools are known once their servers run (MCPSelector)
		return nil
	}
	if strings.Contains(entry, "*") {
		if patternMayMiss || slices.ContainsFunc(all, func(n string) bool { return MatchTool(entry, n) }) {
			return nil
		}
		return assemble.Usagef("%s: the pattern %q matches no tool: choose from %s", origin, entry, strings.Join(all, ","))
	}
	if !slices.Contains(all, entry) {
		return assemble.Usagef("%s: unknown tool %q: choose from %s, or declare it under \"customTools\" in settings", origin, entry, strings.Join(all, ","))
	}
	return nil
}

// MatchTool reports whether a name or pattern (* matches any characters)
// matches a tool name (tools.MatchName).
func MatchTool(pattern, name string) bool { return tools.MatchName(pattern, name) }

// takeToolLayer records a settings file's "tools" value.
func (s *Settings) takeToolLayer(path string, values map[string]any) {
	for k, val := range values {
		if !strings.EqualFold(k, "tools") {
			continue
		}
		l := toolLayer{origin: fmt.Sprintf("%q in %s", k, path), null: val == nil}
		switch t := val.(type) {
		case []any:
			for _, x := range t {
				l.entries = append(l.entries, strings.TrimSpace(fmt.Sprint(x)))
			}
		case string:
			for _, e := range strings.Split(t, ",") {
				if e = strings.TrimSpace(e); e != "" {
					l.entries = append(l.entries, e)
				}
			}
		}
		s.toolLayers = append(s.toolLayers, l)
	}
}

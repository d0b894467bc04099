package export

import (
	"fmt"
	"strings"

	"gopi/pkg/ai"
	"gopi/pkg/session"
)

// stats sum up a whole session (every branch), as pi's export header does.
type stats struct {
	User, Assistant, ToolResults, ToolCalls, Other int
	Models                                         []string
	Usage                                          ai.Usage
	Branches                                       int // leaves
}

func count(entries []session.Entry) stats {
	var s stats
	seen := map[string]bool{}
	for _, e := range entries {
		if e.Type != session.TypeMessage || e.Message == nil {
			continue
		}
		m := e.Message
		switch m.Role {
		case ai.RoleUser:
			s.User++
		case ai.RoleAssistant:
			s.Assistant++
			s.Usage = s.Usage.Add(m.Usage)
			s.ToolCalls += len(m.ToolCalls())
			if name := modelName(m); name != "" && !seen[name] {
				seen[name] = true
				s.Models = append(s.Models, name)
			}
		case ai.RoleToolResult:
			s.ToolResults++
		default:
			s.Other++
		}
	}
	s.Branches = len(session.Leaves(entries))
	return s
}

func modelName(m *ai.Message) string {
	if m.Provider == "" {
		return m.Model
	}
	return m.Provider + "/" + m.Model
}

// Tokens shows the summed usage as pi's header does: ↑input ↓output
// Rcache-read Wcache-write.
func (s stats) Tokens() string {
	var parts []string
	for _, p := range []struct {
		mark string
		n    int64
	}{{"↑", s.Usage.Input}, {"↓", s.Usage.Output}, {"R", s.Usage.CacheRead}, {"W", s.Usage.CacheWrite}} {
		if p.n > 0 {
			parts = append(parts, p.mark+tokens(p.n))
		}
	}
	if len(parts) == 0 {
		return "0"
	}
	return strings.Join(parts, " ")
}

// Cost is the summed cost in dollars.
func (s stats) Cost() string { return fmt.Sprintf("$%.3f", s.Usage.Cost.Total) }

// navItem is one line of the page's tree of entries.
type navItem struct {
	ID, Prefix, Kind, Preview, Label string
	OnPath, Leaf                     bool
}

// nav lists the entries as session.Tree.Lines lays them out (as gopi
// session tree draws them).
func nav(t *tree, onPath map[int]bool, labels map[string]string) []navItem {
	lines := t.Lines()
	out := make([]navItem, 0, len(lines))
	for _, l := range lines {
		e := t.Entries[l.Index]
		out = append(out, navItem{ID: e.ID, Prefix: l.Prefix, Kind: session.Kind(e), Preview: preview(e),
			Label: labels[e.ID], OnPath: onPath[l.Index], Leaf: len(t.Children(l.Index)) == 0})
	}
	return out
}

// preview is one short line naming what an entry says (session.Preview).
func preview(e session.Entry) string {
	_, p := session.Preview(e, previewLen)
	return p
}

const previewLen = 80

package export

import (
	"fmt"
	"strings"
	"unicode/utf8"

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
		out = append(out, navItem{ID: e.ID, Prefix: l.Prefix, Kind: kind(e), Preview: preview(e),
			Label: labels[e.ID], OnPath: onPath[l.Index], Leaf: len(t.Children(l.Index)) == 0})
	}
	return out
}

func kind(e session.Entry) string {
	if e.Type == session.TypeMessage && e.Message != nil {
		return e.Message.Role
	}
	return e.Type
}

// preview is one short line naming what an entry says.
func preview(e session.Entry) string {
	var text string
	switch e.Type {
	case session.TypeMessage:
		if e.Message != nil {
			text = messagePreview(e.Message.Content)
		}
	case session.TypeModelChange:
		text = e.Provider + "/" + e.ModelID
	case session.TypeThinkingLevelChange:
		text = e.ThinkingLevel
	case session.TypeCompaction, session.TypeBranchSummary:
		text = e.Summary
	case session.TypeCustomMessage:
		text = messagePreview(e.Content)
	case session.TypeLabel:
		if e.Label != nil {
			text = *e.Label
		}
	case session.TypeSessionInfo:
		if e.Name != nil {
			text = *e.Name
		}
	}
	return oneLine(text, previewLen)
}

const previewLen = 80

// messagePreview is the start of a message's text, or else its tool
// calls, never more than oneLine looks at.
func messagePreview(cs []ai.Content) string {
	var sb strings.Builder
	for _, c := range cs {
		if c.Type == ai.TypeText {
			sb.WriteString(prefix(c.Text, 8*previewLen))
		}
	}
	if sb.Len() > 0 {
		return sb.String()
	}
	for _, c := range cs {
		if c.Type == ai.TypeToolCall && sb.Len() < 8*previewLen {
			sb.WriteString(c.Name + " ")
			sb.Write(prefix(c.Arguments, 8*previewLen))
			sb.WriteString(" ")
		}
	}
	return sb.String()
}

// oneLine flattens text to one line of at most n characters. Only the
// start of a long text is looked at: a tool result can be megabytes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(prefix(s, 8*n)), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	k := 0
	for i := range s {
		if k == n-1 {
			return s[:i] + "…"
		}
		k++
	}
	return s
}

// prefix is s cut to at most n bytes at a character boundary.
func prefix[T ~string | ~[]byte](s T, n int) T {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

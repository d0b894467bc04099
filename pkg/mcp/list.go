package mcp

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// WriteList prints servers' statuses as gopi mcp list does: each server
// with its transport, target and state, the tail of its stderr, its tools
// (marked when not offered, and why) and where it was configured.
func WriteList(w io.Writer, sts []Status) error {
	if len(sts) == 0 {
		_, err := fmt.Fprintln(w, `No MCP servers configured: declare them under "mcpServers" in settings or mcp.json, or give --mcp-config FILE.`)
		return err
	}
	for _, st := range sts {
		fmt.Fprintf(w, "%s (%s: %s) %s\n", st.Server.Name, st.Server.Transport(), st.Server.Target(), describeState(st))
		if st.Stderr != "" {
			fmt.Fprintf(w, "  stderr:\n    %s\n", strings.ReplaceAll(st.Stderr, "\n", "\n    "))
		}
		for _, t := range st.Tools {
			fmt.Fprintf(w, "  %s%s  %s\n", t.Name, offerMark(t), firstLine(t.Description))
		}
		fmt.Fprintf(w, "  from %s\n", st.Server.Source)
	}
	return nil
}

// offerMark says when a tool is not offered, and why when it is selected.
func offerMark(t ToolInfo) string {
	switch {
	case t.Note != "":
		return " (not offered: " + t.Note + ")"
	case !t.Selected:
		return " (not offered)"
	}
	return ""
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}

func describeState(st Status) string {
	switch st.State {
	case StateStarted:
		return fmt.Sprintf("started, %d tool(s)", len(st.Tools))
	case StateDisabled:
		return "disabled"
	}
	return string(st.State) + ": " + st.Reason
}

// statusJSON is one line of gopi mcp list --json.
type statusJSON struct {
	Name      string     `json:"name"`
	Transport string     `json:"transport"`
	Target    string     `json:"target"`
	Required  bool       `json:"required"`
	State     State      `json:"state"`
	Reason    string     `json:"reason,omitempty"`
	Stderr    string     `json:"stderr,omitempty"`
	Source    string     `json:"source"`
	Tools     []ToolInfo `json:"tools"`
}

// WriteJSON prints one JSON object per server, as gopi mcp list --json
// does (HTML characters unescaped; tools [] when none).
func WriteJSON(w io.Writer, sts []Status) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, st := range sts {
		line := statusJSON{Name: st.Server.Name, Transport: st.Server.Transport(), Target: st.Server.Target(), Required: st.Server.Required,
			State: st.State, Reason: st.Reason, Stderr: st.Stderr, Source: st.Server.Source, Tools: st.Tools}
		if line.Tools == nil {
			line.Tools = []ToolInfo{}
		}
		if err := enc.Encode(line); err != nil {
			return err
		}
	}
	return nil
}

// WritePlan is gopi context's section on MCP servers: those a run would
// start, not started here (gopi mcp list starts them).
func WritePlan(w io.Writer, servers []Server) error {
	fmt.Fprintln(w, "\n# MCP servers (a run starts them; gopi mcp list starts them and lists their tools)")
	if len(servers) == 0 {
		_, err := fmt.Fprintln(w, "- none")
		return err
	}
	for _, s := range servers {
		var notes []string
		if s.Disabled {
			notes = append(notes, "disabled")
		}
		if s.Required {
			notes = append(notes, "required")
		}
		note := ""
		if len(notes) > 0 {
			note = " [" + strings.Join(notes, ", ") + "]"
		}
		fmt.Fprintf(w, "- %s (%s: %s)%s from %s\n", s.Name, s.Transport(), s.Target(), note, s.Source)
	}
	return nil
}

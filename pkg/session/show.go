package session

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"gopi/pkg/ai"
)

// WriteTree prints f's entries as gopi session tree does: drawn
// (DrawTree), or as one JSON array of TreeNodes.
func WriteTree(w io.Writer, f *File, asJSON bool) error {
	nodes := TreeNodes(f.Entries)
	if asJSON {
		if nodes == nil {
			nodes = []TreeNode{}
		}
		return json.NewEncoder(w).Encode(nodes)
	}
	return DrawTree(w, f.Header.ID, f.Path, nodes)
}

// Show prints the conversation along the path to leaf (the newest entry
// when leaf is ""), as gopi session show does: each entry's id and kind,
// then its text; "(no entries)" for an empty session. A leaf that names
// no entry (or a path that loops) is PathTo's error, before anything is
// printed; PathTo's warnings go to warn (when not nil) first.
func Show(w io.Writer, entries []Entry, leaf string, warn func(Warning)) error {
	if len(entries) == 0 {
		_, err := fmt.Fprintln(w, "(no entries)")
		return err
	}
	if leaf == "" {
		n, _ := Newest(entries)
		leaf = n.ID
	}
	path, warns, err := PathTo(entries, leaf)
	if err != nil {
		return err
	}
	for _, wa := range warns {
		if warn != nil {
			warn(wa)
		}
	}
	return writePath(w, path)
}

func writePath(w io.Writer, path []Entry) error {
	for _, e := range path {
		kind, text := Kind(e), ""
		if e.Type == TypeMessage && e.Message != nil {
			text = messageBody(e.Message)
		} else {
			text = Says(e, 0)
		}
		if _, err := fmt.Fprintf(w, "── %s %s\n%s\n\n", e.ID, kind, strings.TrimRight(text, "\n")); err != nil {
			return err
		}
	}
	return nil
}

// messageBody is a message as gopi session show prints it: text whole,
// thinking on one line of at most 200 characters, tool calls with their
// arguments, images by type, the error last.
func messageBody(m *ai.Message) string {
	var parts []string
	for _, c := range m.Content {
		switch c.Type {
		case ai.TypeText:
			parts = append(parts, c.Text)
		case ai.TypeThinking:
			parts = append(parts, "(thinking) "+OneLine(c.Thinking, 200))
		case ai.TypeToolCall:
			parts = append(parts, fmt.Sprintf("→ %s %s", c.Name, c.Arguments))
		case ai.TypeImage:
			parts = append(parts, "[image "+c.MimeType+"]")
		}
	}
	if m.ErrorMessage != "" {
		parts = append(parts, "error: "+m.ErrorMessage)
	}
	return strings.Join(parts, "\n")
}

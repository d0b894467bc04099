package cmd

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"gopi/pkg/ai"
	"gopi/pkg/session"
)

type treeNode struct {
	ID       string `json:"id"`
	ParentID string `json:"parentId,omitempty"`
	Kind     string `json:"kind"`
	Preview  string `json:"preview"`
	Depth    int    `json:"depth"`
	Leaf     bool   `json:"leaf"`
	Newest   bool   `json:"newest"`
	Label    string `json:"label,omitempty"`
	prefix   string // the drawing in front of the id
}

func newSessionTreeCmd(sys *System) *cobra.Command {
	var asJSON bool
	var cwdFlag string
	c := &cobra.Command{
		Use:   "tree SESSION",
		Short: "Draw a session's tree so you can pick a leaf",
		Long:  "Draw the entries of a session (a file, or a prefix of its id) as a tree: one line per\nentry with its id, role or type and a preview; * marks leaves, => the newest one.",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			f, err := readSession(sys, args[0], cwdFlag)
			if err != nil {
				return err
			}
			nodes := buildTree(f.Entries)
			if asJSON {
				if nodes == nil {
					nodes = []treeNode{}
				}
				return json.NewEncoder(sys.Stdout).Encode(nodes)
			}
			return drawTree(sys.Stdout, f, nodes)
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the entries as JSON")
	c.Flags().StringVar(&cwdFlag, "cwd", "", "working directory (default: the current one)")
	return c
}

// buildTree lays the entries out as session.Tree.Lines does.
func buildTree(entries []session.Entry) []treeNode {
	t := session.NewTree(entries)
	labels := session.Labels(entries)
	newest := ""
	if n, ok := session.Newest(entries); ok {
		newest = n.ID
	}
	var out []treeNode
	for _, l := range t.Lines() {
		e := entries[l.Index]
		kind, preview := describe(e)
		out = append(out, treeNode{ID: e.ID, ParentID: e.Parent(), Kind: kind, Preview: oneLine(preview, 70),
			Depth: l.Depth, Leaf: len(t.Children(l.Index)) == 0, Newest: e.ID == newest, Label: labels[e.ID], prefix: l.Prefix})
	}
	return out
}

func drawTree(w io.Writer, f *session.File, nodes []treeNode) error {
	fmt.Fprintf(w, "session %s  %s\n", f.Header.ID, f.Path)
	for _, n := range nodes {
		mark := "  "
		switch {
		case n.Newest:
			mark = "=>"
		case n.Leaf:
			mark = " *"
		}
		label := ""
		if n.Label != "" {
			label = " [" + n.Label + "]"
		}
		if _, err := fmt.Fprintf(w, "%s %s%s %-11s %s%s\n", mark, n.prefix, n.ID, n.Kind, n.Preview, label); err != nil {
			return err
		}
	}
	return nil
}

func newSessionShowCmd(sys *System) *cobra.Command {
	var leaf, cwdFlag string
	c := &cobra.Command{
		Use:   "show SESSION",
		Short: "Print the conversation along a path (the newest leaf unless --leaf)",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			f, err := readSession(sys, args[0], cwdFlag)
			if err != nil {
				return err
			}
			if len(f.Entries) == 0 {
				_, err := fmt.Fprintln(sys.Stdout, "(no entries)")
				return err
			}
			ref := leaf
			if ref == "" {
				n, _ := session.Newest(f.Entries)
				ref = n.ID
			}
			path, warns, err := session.PathTo(f.Entries, ref)
			if err != nil {
				return usageErr("--leaf: %v", err)
			}
			for _, w := range warns {
				fmt.Fprintf(sys.Stderr, "gopi: warning: %s\n", w)
			}
			return showPath(sys.Stdout, path)
		},
	}
	c.Flags().StringVar(&leaf, "leaf", "", "entry id (or unique prefix) to show the path to")
	c.Flags().StringVar(&cwdFlag, "cwd", "", "working directory (default: the current one)")
	return c
}

func showPath(w io.Writer, path []session.Entry) error {
	for _, e := range path {
		kind, text := describe(e)
		if e.Type == session.TypeMessage && e.Message != nil {
			text = messageBody(e.Message)
		}
		if _, err := fmt.Fprintf(w, "── %s %s\n%s\n\n", e.ID, kind, strings.TrimRight(text, "\n")); err != nil {
			return err
		}
	}
	return nil
}

func messageBody(m *ai.Message) string {
	var parts []string
	for _, c := range m.Content {
		switch c.Type {
		case ai.TypeText:
			parts = append(parts, c.Text)
		case ai.TypeThinking:
			parts = append(parts, "(thinking) "+oneLine(c.Thinking, 200))
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

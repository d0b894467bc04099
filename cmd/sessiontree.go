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
			nodes := session.TreeNodes(f.Entries)
			if asJSON {
				if nodes == nil {
					nodes = []session.TreeNode{}
				}
				return json.NewEncoder(sys.Stdout).Encode(nodes)
			}
			return session.DrawTree(sys.Stdout, f.Header.ID, f.Path, nodes)
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the entries as JSON")
	c.Flags().StringVar(&cwdFlag, "cwd", "", "working directory (default: the current one)")
	return c
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
		kind, text := session.Kind(e), ""
		if e.Type == session.TypeMessage && e.Message != nil {
			text = messageBody(e.Message)
		} else {
			text = session.Says(e, 0)
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
			parts = append(parts, "(thinking) "+session.OneLine(c.Thinking, 200))
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

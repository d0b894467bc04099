package session

import (
	"fmt"
	"io"
)

// TreePreviewLen is the characters of an entry's preview on a line of
// DrawTree.
const TreePreviewLen = 70

// TreeNode is one entry of a drawn tree, as gopi session tree --json
// prints it.
type TreeNode struct {
	ID       string `json:"id"`
	ParentID string `json:"parentId,omitempty"`
	Kind     string `json:"kind"`
	Preview  string `json:"preview"`
	Depth    int    `json:"depth"`
	Leaf     bool   `json:"leaf"`
	Newest   bool   `json:"newest"`
	Label    string `json:"label,omitempty"`
	Prefix   string `json:"-"` // the drawing in front of the id (TreeLine.Prefix)
}

// TreeNodes lays the entries out as Tree.Lines does, each with its
// preview (Preview, TreePreviewLen characters), its label, and whether it
// is a leaf and the newest one.
func TreeNodes(entries []Entry) []TreeNode {
	t := NewTree(entries)
	labels := Labels(entries)
	newest := ""
	if n, ok := Newest(entries); ok {
		newest = n.ID
	}
	var out []TreeNode
	for _, l := range t.Lines() {
		e := entries[l.Index]
		kind, preview := Preview(e, TreePreviewLen)
		out = append(out, TreeNode{ID: e.ID, ParentID: e.Parent(), Kind: kind, Preview: preview,
			Depth: l.Depth, Leaf: len(t.Children(l.Index)) == 0, Newest: e.ID == newest, Label: labels[e.ID], Prefix: l.Prefix})
	}
	return out
}

// DrawTree writes the tree as gopi session tree and the chat's /tree
// show it: a line naming the session (its id and file), then one line per
// node: => the newest leaf, * another leaf, the drawing, id, kind,
// preview and [label].
func DrawTree(w io.Writer, id, path string, nodes []TreeNode) error {
	fmt.Fprintf(w, "session %s  %s\n", id, path)
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
		if _, err := fmt.Fprintf(w, "%s %s%s %-11s %s%s\n", mark, n.Prefix, n.ID, n.Kind, n.Preview, label); err != nil {
			return err
		}
	}
	return nil
}

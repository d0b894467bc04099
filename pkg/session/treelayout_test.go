package session_test

import (
	"fmt"
	"strings"
	"testing"

	"gopi/pkg/session"
)

func entry(id, parent string) session.Entry {
	return session.Entry{Type: session.TypeCustom, ID: id, ParentID: session.Ref(parent), CustomType: "t"}
}

// drawn renders the layout one line per entry: prefix, id, depth.
func drawn(t *session.Tree) string {
	var b strings.Builder
	for _, l := range t.Lines() {
		fmt.Fprintf(&b, "%s%s %d\n", l.Prefix, t.Entries[l.Index].ID, l.Depth)
	}
	return b.String()
}

// The one layout every view of a session's tree draws: depth first,
// children in file order, a chain of single children in one column,
// branches with ├─ and └─; roots are entries without a parent in the
// file (or their own parent); an id used twice does not loop.
func TestTreeLines(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		entries []session.Entry
		want    string
	}{
		{"chain", []session.Entry{entry("a", ""), entry("b", "a"), entry("c", "b")}, "a 0\nb 0\nc 0\n"},
		{"branches", []session.Entry{entry("a", ""), entry("b", "a"), entry("c", "b"), entry("d", "a"), entry("e", "d"), entry("f", "d"), entry("g", "f")},
			"a 0\n├─ b 1\n│  c 1\n└─ d 1\n   ├─ e 2\n   └─ f 2\n      g 2\n"},
		{"roots: no parent, a missing one, itself", []session.Entry{entry("a", ""), entry("b", "lost"), entry("c", "c"), entry("d", "b")},
			"a 0\nb 0\nd 0\nc 0\n"},
		{"a cycle is not reached", []session.Entry{entry("a", ""), entry("x", "y"), entry("y", "x")}, "a 0\n"},
		{"an id used twice", []session.Entry{entry("a", ""), entry("b", "a"), entry("a", "b")}, "a 0\nb 0\na 0\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			tree := session.NewTree(c.entries)
			if got := drawn(tree); got != c.want {
				t.Fatalf("layout\n%s\nwant\n%s", got, c.want)
			}
		})
	}
}

// Children lists an entry's children in file order; a leaf has none.
func TestTreeChildren(t *testing.T) {
	t.Parallel()
	tree := session.NewTree([]session.Entry{entry("a", ""), entry("b", "a"), entry("c", "a")})
	if got := tree.Children(0); len(got) != 2 || got[0] != 1 || got[1] != 2 || len(tree.Children(1)) != 0 || len(tree.Roots) != 1 {
		t.Fatalf("children of a %v, of b %v, roots %v", got, tree.Children(1), tree.Roots)
	}
}

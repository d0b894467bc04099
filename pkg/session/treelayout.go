package session

// Tree is a session's entries indexed by parent, as every view of the
// tree walks them (gopi session tree, the HTML export, rpc's get_tree):
// children in file order; an entry whose parent is empty, absent from the
// file or itself is a root.
type Tree struct {
	Entries  []Entry
	Roots    []int            // indexes of the roots, in file order
	children map[string][]int // parent id → child indexes, file order
}

// NewTree indexes entries (kept, not copied).
func NewTree(entries []Entry) *Tree {
	t := &Tree{Entries: entries, children: map[string][]int{}}
	ids := make(map[string]bool, len(entries))
	for _, e := range entries {
		ids[e.ID] = true
	}
	for i, e := range entries {
		if p := e.Parent(); p != "" && ids[p] && p != e.ID {
			t.children[p] = append(t.children[p], i)
		} else {
			t.Roots = append(t.Roots, i)
		}
	}
	return t
}

// Children returns the indexes of entry i's children, in file order.
// Never modify the slice.
func (t *Tree) Children(i int) []int { return t.children[t.Entries[i].ID] }

// TreeLine is one entry of the tree as it is drawn.
type TreeLine struct {
	Index int // the entry's index in Tree.Entries
	// Prefix is the drawing in front of the entry: │ down the branches
	// still open, ├─ or └─ where a branch starts.
	Prefix string
	Depth  int // branches above the entry
}

// Lines lays the tree out depth first, children in file order, each
// entry once (an id used twice does not make a loop): a chain of single
// children stays in one column; where an entry has several children each
// starts a branch drawn with ├─ and └─ (└─ the last).
func (t *Tree) Lines() []TreeLine {
	type frame struct {
		idx               int
		prefix, connector string
		depth             int
	}
	stack := make([]frame, 0, len(t.Roots))
	for i := len(t.Roots) - 1; i >= 0; i-- {
		stack = append(stack, frame{idx: t.Roots[i]})
	}
	out := make([]TreeLine, 0, len(t.Entries))
	seen := make([]bool, len(t.Entries))
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for !seen[f.idx] {
			seen[f.idx] = true
			out = append(out, TreeLine{Index: f.idx, Prefix: f.prefix + f.connector, Depth: f.depth})
			kids := t.unseen(f.idx, seen)
			f.prefix += continuation(f.connector)
			f.connector = ""
			if len(kids) == 1 {
				f.idx = kids[0]
				continue
			}
			for i := len(kids) - 1; i >= 0; i-- {
				conn := "├─ "
				if i == len(kids)-1 {
					conn = "└─ "
				}
				stack = append(stack, frame{idx: kids[i], prefix: f.prefix, connector: conn, depth: f.depth + 1})
			}
			break
		}
	}
	return out
}

// unseen returns i's children not yet laid out.
func (t *Tree) unseen(i int, seen []bool) []int {
	kids := t.Children(i)
	for k, c := range kids {
		if seen[c] {
			out := append([]int(nil), kids[:k]...)
			for _, c := range kids[k+1:] {
				if !seen[c] {
					out = append(out, c)
				}
			}
			return out
		}
	}
	return kids
}

func continuation(connector string) string {
	switch connector {
	case "├─ ":
		return "│  "
	case "└─ ":
		return "   "
	}
	return ""
}

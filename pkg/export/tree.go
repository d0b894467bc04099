package export

import "gopi/pkg/session"

// tree indexes a session's entries by parent. Entries whose parent is
// absent from the file are roots, as gopi session tree draws them.
type tree struct {
	entries  []session.Entry
	children map[string][]int // parent id → child indexes, file order
	roots    []int
	newest   []int // per index: the largest index in its subtree
	size     []int // per index: the entries in its subtree
}

func newTree(entries []session.Entry) *tree {
	t := &tree{entries: entries, children: map[string][]int{}}
	ids := make(map[string]bool, len(entries))
	for _, e := range entries {
		ids[e.ID] = true
	}
	for i, e := range entries {
		if p := e.Parent(); p != "" && ids[p] && p != e.ID {
			t.children[p] = append(t.children[p], i)
		} else {
			t.roots = append(t.roots, i)
		}
	}
	t.measure()
	return t
}

// measure finds, for every entry, the last entry in file order below it
// (where a branch the reader did not ask for continues) and the size of
// its subtree.
func (t *tree) measure() {
	order := t.preorder()
	t.newest = make([]int, len(t.entries))
	t.size = make([]int, len(t.entries))
	for i := range t.newest {
		t.newest[i] = i
		t.size[i] = 1
	}
	parent := make(map[int]int, len(order))
	for _, i := range order {
		for _, c := range t.children[t.entries[i].ID] {
			parent[c] = i
		}
	}
	for k := len(order) - 1; k >= 0; k-- {
		i := order[k]
		p, ok := parent[i]
		if !ok {
			continue
		}
		t.size[p] += t.size[i]
		t.newest[p] = max(t.newest[p], t.newest[i])
	}
}

// preorder lists the entries reachable from a root, depth first, each
// once (an id used twice does not make a loop).
func (t *tree) preorder() []int {
	seen := make([]bool, len(t.entries))
	var out []int
	stack := make([]int, 0, len(t.roots))
	for i := len(t.roots) - 1; i >= 0; i-- {
		stack = append(stack, t.roots[i])
	}
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[i] {
			continue
		}
		seen[i] = true
		out = append(out, i)
		kids := t.children[t.entries[i].ID]
		for k := len(kids) - 1; k >= 0; k-- {
			stack = append(stack, kids[k])
		}
	}
	return out
}

// kids returns i's children not yet placed on the page.
func (t *tree) kids(i int, placed []bool) []int {
	var out []int
	for _, c := range t.children[t.entries[i].ID] {
		if !placed[c] {
			out = append(out, c)
		}
	}
	return out
}

// main picks the child a column continues with: the one on the exported
// path, else the one whose subtree holds the newest entry.
func (t *tree) main(kids []int, onPath map[int]bool) int {
	best := kids[0]
	for _, c := range kids {
		if onPath[c] {
			return c
		}
		if t.newest[c] > t.newest[best] {
			best = c
		}
	}
	return best
}

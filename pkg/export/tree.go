package export

import "gopi/pkg/session"

// tree is a session's tree (session.Tree) measured for the page.
type tree struct {
	*session.Tree
	newest []int // per index: the largest index in its subtree
	size   []int // per index: the entries in its subtree
}

func newTree(entries []session.Entry) *tree {
	t := &tree{Tree: session.NewTree(entries)}
	t.measure()
	return t
}

// measure finds, for every entry, the last entry in file order below it
// (where a branch the reader did not ask for continues) and the size of
// its subtree.
func (t *tree) measure() {
	order := t.preorder()
	t.newest = make([]int, len(t.Entries))
	t.size = make([]int, len(t.Entries))
	for i := range t.newest {
		t.newest[i] = i
		t.size[i] = 1
	}
	parent := make(map[int]int, len(order))
	for _, i := range order {
		for _, c := range t.Children(i) {
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
	seen := make([]bool, len(t.Entries))
	var out []int
	stack := make([]int, 0, len(t.Roots))
	for i := len(t.Roots) - 1; i >= 0; i-- {
		stack = append(stack, t.Roots[i])
	}
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[i] {
			continue
		}
		seen[i] = true
		out = append(out, i)
		kids := t.Children(i)
		for k := len(kids) - 1; k >= 0; k-- {
			stack = append(stack, kids[k])
		}
	}
	return out
}

// kids returns i's children not yet placed on the page.
func (t *tree) kids(i int, placed []bool) []int {
	var out []int
	for _, c := range t.Children(i) {
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

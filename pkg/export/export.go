// Package export renders a session tree as one self-contained HTML page:
// every entry of every branch, with the path to one leaf in the main
// column and the other branches folded where they leave it. The page
// loads nothing from outside itself (its Content-Security-Policy forbids
// it), reads without script, and shows every piece of session text as
// text: the template escapes it, and images are inlined only as data:
// URLs of four image types.
package export

import (
	"bufio"
	"html/template"
	"io"

	"gopi/pkg/session"
)

// Options choose what a page shows.
type Options struct {
	// Leaf is the entry (an id or a unique id prefix) whose path the main
	// column follows; "" is the newest entry, as gopi session show has it.
	Leaf string
}

// Render writes f as an HTML page to w. An unknown or ambiguous leaf is
// the session package's error (ErrUnknownLeaf, ErrAmbiguous, ErrCycle),
// returned before anything is written; after a write error w holds part
// of a page. Warnings are about the path (a lost parent, an id used
// twice); the page is written all the same.
func Render(w io.Writer, f *session.File, opts Options) ([]session.Warning, error) {
	p, warns, err := build(f, opts)
	if err != nil {
		return nil, err
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	if err := pageTemplate().Execute(bw, p); err != nil {
		return nil, err
	}
	return warns, bw.Flush()
}

// page is what the template shows.
type page struct {
	Title       string
	Header      session.Header
	Name        string
	Stats       stats
	Leaf        string // the id of the entry the main column ends at
	Main        column
	Unreachable []*entryView // entries no root leads to (a parent loop)
	Nav         []navItem
	Style       template.CSS
	Script      template.JS
	CSP         string
}

// column is a run of entries read top to bottom, with the branches that
// leave it folded where they leave.
type column struct{ Items []item }

// item is an entry, or the other branches leaving the entry before it.
type item struct {
	Entry *entryView
	Fork  *forkView
}

type forkView struct {
	At       string // the entry they leave from; "" for other roots
	AfterEnd bool   // they continue past the exported entry
	Branches []branchView
}

type branchView struct {
	First   string // the id of its first entry
	Preview string
	Size    int
	Newest  string // the id of its newest entry
	Col     column
}

// builder lays out the page.
type builder struct {
	t      *tree
	labels map[string]string
	onPath map[int]bool
	leaf   int // -1 when the session is empty
	placed []bool
}

func build(f *session.File, opts Options) (*page, []session.Warning, error) {
	b := &builder{t: newTree(f.Entries), labels: session.Labels(f.Entries), leaf: -1,
		onPath: map[int]bool{}, placed: make([]bool, len(f.Entries))}
	var warns []session.Warning
	if len(f.Entries) > 0 || opts.Leaf != "" {
		var err error
		if warns, err = b.markPath(f.Entries, opts.Leaf); err != nil {
			return nil, nil, err
		}
	}
	p := &page{Header: f.Header, Name: session.SessionName(f.Entries), Stats: count(f.Entries)}
	p.Title = p.Name
	if p.Title == "" {
		p.Title = "gopi session " + f.Header.ID
	}
	if b.leaf >= 0 {
		p.Leaf = f.Entries[b.leaf].ID
	}
	p.Main = b.top()
	for i := range f.Entries {
		if !b.placed[i] {
			p.Unreachable = append(p.Unreachable, b.view(i))
		}
	}
	p.Nav = nav(b.t, b.onPath, b.labels)
	p.Style, p.Script, p.CSP = assets()
	return p, warns, nil
}

// markPath finds the exported leaf and the entries on its path.
func (b *builder) markPath(entries []session.Entry, ref string) ([]session.Warning, error) {
	if ref == "" {
		n, _ := session.Newest(entries)
		ref = n.ID
	}
	path, warns, err := session.PathTo(entries, ref)
	if err != nil {
		return nil, err
	}
	last := make(map[string]int, len(entries))
	for i, e := range entries {
		last[e.ID] = i // the later of two entries with one id counts, as in PathTo
	}
	for _, e := range path {
		b.onPath[last[e.ID]] = true
	}
	b.leaf = last[path[len(path)-1].ID]
	return warns, nil
}

// top lays out the roots: the one the path starts from (or the newest
// subtree's) in the main column, the others folded above it.
func (b *builder) top() column {
	if len(b.t.Roots) == 0 {
		return column{}
	}
	main := b.t.main(b.t.Roots, b.onPath)
	var col column
	if others := without(b.t.Roots, main); len(others) > 0 {
		col.Items = append(col.Items, item{Fork: b.fork("", others, false)})
	}
	col.Items = append(col.Items, b.column(main).Items...)
	return col
}

// column follows one line of descent from start: along the path while on
// it, else towards the newest entry; siblings are folded as branches.
func (b *builder) column(start int) column {
	var col column
	for i := start; !b.placed[i]; {
		b.placed[i] = true
		col.Items = append(col.Items, item{Entry: b.view(i)})
		kids := b.t.kids(i, b.placed)
		if len(kids) == 0 {
			break
		}
		if i == b.leaf {
			col.Items = append(col.Items, item{Fork: b.fork(b.t.Entries[i].ID, kids, true)})
			break
		}
		next := b.t.main(kids, b.onPath)
		if others := without(kids, next); len(others) > 0 {
			col.Items = append(col.Items, item{Fork: b.fork(b.t.Entries[i].ID, others, false)})
		}
		i = next
	}
	return col
}

func (b *builder) fork(at string, starts []int, afterEnd bool) *forkView {
	f := &forkView{At: at, AfterEnd: afterEnd}
	for _, s := range starts {
		if b.placed[s] {
			continue
		}
		e := b.t.Entries[s]
		f.Branches = append(f.Branches, branchView{First: e.ID, Preview: preview(e), Size: b.t.size[s],
			Newest: b.t.Entries[b.t.newest[s]].ID, Col: b.column(s)})
	}
	return f
}

func without(xs []int, x int) []int {
	var out []int
	for _, y := range xs {
		if y != x {
			out = append(out, y)
		}
	}
	return out
}

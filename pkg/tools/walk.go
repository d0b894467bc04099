package tools

import (
	"bufio"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/bmatcuk/doublestar/v4"
)

// ignoreRule is one line of a .gitignore, scoped to the folder holding it.
type ignoreRule struct {
	base     string // folder of the .gitignore, relative to the walk root ("" = root)
	pattern  string
	negate   bool
	dirOnly  bool
	anchored bool // matched against the path below base, not the name
	match    glob
}

// parseIgnore reads the rules of one .gitignore; a missing file has none,
// and so has one that is not a regular file (a pipe there must not hang
// the walk).
func parseIgnore(file, base string) []ignoreRule {
	f, _, err := openRegular(file)
	if err != nil {
		return nil
	}
	defer f.Close()
	var rules []ignoreRule
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), " \t\r")
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		r := ignoreRule{base: base}
		if strings.HasPrefix(line, "!") {
			r.negate, line = true, line[1:]
		}
		line = strings.TrimPrefix(line, `\`)
		if strings.HasSuffix(line, "/") {
			r.dirOnly, line = true, strings.TrimRight(line, "/")
		}
		r.anchored = strings.Contains(line, "/")
		r.pattern = strings.TrimPrefix(line, "/")
		if r.pattern != "" && doublestar.ValidatePattern(r.pattern) {
			r.match = compileGlob(r.pattern)
			rules = append(rules, r)
		}
	}
	return rules
}

// ignored applies gitignore rules to rel (slash-separated, relative to the
// walk root; name is its last element); the last matching rule wins.
func ignored(rules []ignoreRule, rel, name string, isDir bool) bool {
	out := false
	for i := range rules {
		r := &rules[i]
		if r.dirOnly && !isDir || out != r.negate {
			continue // this rule cannot change the outcome
		}
		target := name
		if r.anchored {
			if r.base == "" {
				target = rel
			} else if strings.HasPrefix(rel, r.base+"/") {
				target = rel[len(r.base)+1:]
			} else {
				continue
			}
		} else if r.base != "" && !strings.HasPrefix(rel, r.base+"/") {
			continue
		}
		if r.match.Match(target) {
			out = !r.negate
		}
	}
	return out
}

// glob is a compiled doublestar pattern: the common forms (a plain name,
// "*.ext") are matched without the general matcher, which costs more than
// the rest of the walk on a big tree.
type glob struct {
	pattern string
	kind    uint8 // globExact, globSuffix or globAny
	lit     string
}

const (
	globAny = iota
	globExact
	globSuffix
)

// compileGlob prepares a valid pattern; Match then says what
// doublestar.Match(pattern, target) says.
func compileGlob(p string) glob {
	switch {
	case !strings.ContainsAny(p, `*?[]{}\`):
		return glob{pattern: p, kind: globExact, lit: p}
	case p[0] == '*' && !strings.ContainsAny(p[1:], `*?[]{}\/`):
		return glob{pattern: p, kind: globSuffix, lit: p[1:]}
	}
	return glob{pattern: p, kind: globAny}
}

// Match matches target against the pattern.
func (g glob) Match(target string) bool {
	switch g.kind {
	case globExact:
		return target == g.lit
	case globSuffix:
		return strings.HasSuffix(target, g.lit) && !strings.Contains(target[:len(target)-len(g.lit)], "/")
	}
	ok, _ := doublestar.Match(g.pattern, target)
	return ok
}

// pathGlob is a find or grep glob, matched as fd and rg do: against the
// name, or against the relative path when the glob has a '/'.
type pathGlob struct {
	g    glob
	path bool
}

func compilePathGlob(p string) pathGlob {
	return pathGlob{g: compileGlob(p), path: strings.Contains(p, "/")}
}

// Match matches one walked entry.
func (p pathGlob) Match(e *walkEntry) bool {
	if p.path {
		return p.g.Match(e.rel)
	}
	return p.g.Match(e.name)
}

// walkEntry is one entry a walk does not skip: rel is slash-separated and
// relative to the root, name its last element.
type walkEntry struct {
	rel, name string
	typ       fs.FileMode // type bits, as fs.DirEntry.Type
	sub       *dirList    // a folder's listing
}

func (e *walkEntry) isDir() bool { return e.typ.IsDir() }

// abs is the entry's path below root.
func (e *walkEntry) abs(root string) string { return joinPath(root, filepath.FromSlash(e.rel)) }

// joinPath joins a clean folder path and a relative one; filepath.Join
// would clean the result again, which costs more than the rest of a walk
// step.
func joinPath(dir, rel string) string {
	if strings.HasSuffix(dir, string(filepath.Separator)) {
		return dir + rel
	}
	return dir + string(filepath.Separator) + rel
}

// visit is called for every entry a walk does not skip, in lexical order.
// Returning fs.SkipAll stops the walk.
type visit func(e *walkEntry) error

// dirList is one folder's entries, read by whichever goroutine gets to it
// first: a reader reading ahead, or the walk itself when it needs it.
type dirList struct {
	abs, rel string
	inherit  []ignoreRule // the rules of the folders above
	entries  []walkEntry
	err      error
	claimed  atomic.Bool
	ready    chan struct{}
}

// walker reads folders ahead of the walk on reader goroutines, deepest
// first (the walk needs the first subfolder next), and hands the entries
// to the visit function on the calling goroutine in lexical order.
type walker struct {
	root  string
	mu    sync.Mutex
	wake  *sync.Cond
	stack []*dirList
	quit  bool
	wg    sync.WaitGroup
}

// walkTree walks root in lexical order, skipping .git and what the
// .gitignore files met on the way exclude. A root that is not itself a
// folder (a symbolic link to one included) yields nothing, as
// filepath.WalkDir does.
func walkTree(ctx context.Context, root string, fn visit) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	st, err := os.Lstat(root)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return nil
	}
	w := &walker{root: root}
	w.wake = sync.NewCond(&w.mu)
	top := &dirList{abs: root, ready: make(chan struct{})}
	w.need(top)
	if top.err != nil {
		return top.err
	}
	for range max(runtime.GOMAXPROCS(0), 1) {
		w.wg.Add(1)
		go w.reader()
	}
	err = w.visitDir(ctx, top, fn)
	w.mu.Lock()
	w.quit = true
	w.mu.Unlock()
	w.wake.Broadcast()
	w.wg.Wait()
	if err == fs.SkipAll {
		return nil
	}
	return err
}

func (w *walker) visitDir(ctx context.Context, d *dirList, fn visit) error {
	w.need(d)
	w.schedule(d.entries)
	for i := range d.entries {
		e := &d.entries[i]
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := fn(e); err != nil {
			return err
		}
		if e.sub != nil {
			if err := w.visitDir(ctx, e.sub, fn); err != nil {
				return err
			}
		}
	}
	return nil
}

// need reads d on this goroutine unless a reader has it, then waits for it.
func (w *walker) need(d *dirList) {
	if d.claimed.CompareAndSwap(false, true) {
		w.read(d)
	}
	<-d.ready
}

// schedule offers the subfolders of a listing to the readers, first on top.
func (w *walker) schedule(entries []walkEntry) {
	w.mu.Lock()
	n := 0
	for i := len(entries) - 1; i >= 0; i-- {
		if entries[i].sub != nil {
			w.stack = append(w.stack, entries[i].sub)
			n++
		}
	}
	w.mu.Unlock()
	for range min(n, 2) {
		w.wake.Signal()
	}
}

func (w *walker) reader() {
	defer w.wg.Done()
	for {
		w.mu.Lock()
		for len(w.stack) == 0 && !w.quit {
			w.wake.Wait()
		}
		if w.quit {
			w.mu.Unlock()
			return
		}
		d := w.stack[len(w.stack)-1]
		w.stack = w.stack[:len(w.stack)-1]
		more := len(w.stack) > 0
		w.mu.Unlock()
		if more {
			w.wake.Signal()
		}
		if d.claimed.CompareAndSwap(false, true) {
			w.read(d)
		}
	}
}

// read lists one folder: its own .gitignore joins the rules it inherits,
// .git and what the rules exclude are dropped, subfolders get a listing to
// fill. Unreadable folders keep what could be read, as filepath.WalkDir.
func (w *walker) read(d *dirList) {
	defer close(d.ready)
	ents, err := os.ReadDir(d.abs)
	d.err = err
	rules := d.inherit
	if d.rel == "" {
		rules = parseIgnore(joinPath(d.abs, ".gitignore"), "")
	} else if slices.ContainsFunc(ents, func(e fs.DirEntry) bool { return e.Name() == ".gitignore" }) {
		if own := parseIgnore(joinPath(d.abs, ".gitignore"), d.rel); len(own) > 0 {
			rules = slices.Concat(d.inherit, own)
		}
	}
	d.entries = make([]walkEntry, 0, len(ents))
	for _, de := range ents {
		name := de.Name()
		rel := name
		if d.rel != "" {
			rel = d.rel + "/" + name
		}
		isDir := de.IsDir()
		if isDir && name == ".git" || ignored(rules, rel, name, isDir) {
			continue
		}
		e := walkEntry{rel: rel, name: name, typ: de.Type()}
		if isDir {
			e.sub = &dirList{abs: joinPath(d.abs, name), rel: rel, inherit: rules, ready: make(chan struct{})}
		}
		d.entries = append(d.entries, e)
	}
}

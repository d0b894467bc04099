package tools

import (
	"bytes"
	"context"
	"encoding/base64"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Change is what happened to a file during a run.
type Change string

// The changes a run reports.
const (
	Created  Change = "created"
	Modified Change = "modified"
	Deleted  Change = "deleted"
)

// FileChange is one file a run's tools changed; Path is relative to the
// working directory when the file is inside it. A path that is not UTF-8
// (a name JSON cannot carry as it is) has its bad bytes shown as U+FFFD
// in Path, and its exact bytes in PathBase64.
type FileChange struct {
	Path       string `json:"path"`
	PathBase64 string `json:"pathBase64,omitempty"`
	Change     Change `json:"change"`
}

// listed is the entry for path p.
func listed(p string, ch Change) FileChange {
	if utf8.ValidString(p) {
		return FileChange{Path: p, Change: ch}
	}
	return FileChange{Path: strings.ToValidUTF8(p, "\uFFFD"), PathBase64: base64.StdEncoding.EncodeToString([]byte(p)), Change: ch}
}

// Changes records the files a run's tools changed: write and edit say so
// themselves; bash and custom tools are seen by comparing the working
// tree before and after each call (git's view of it in a repository,
// sizes and modification times elsewhere). Safe for concurrent calls.
type Changes struct {
	mu    sync.Mutex
	order []string
	first map[string]Change // the first change seen of each path
	last  map[string]Change
	// Inexact is set when a comparison was cut short (a tree too big to
	// walk in time): a change there may be missing.
	inexact bool
	// tops caches each working directory's repository folder ("" for
	// none), so a bash call costs two git status and nothing more.
	tops map[string]string
}

// maxWalk bounds the files one snapshot of a tree without git looks at,
// and walkTime how long it may take.
// gitWait bounds one git status.
const (
	walkTime = 500 * time.Millisecond
	gitWait  = 5 * time.Second
)

var maxWalk = 20000 // a variable so that a test can lower it

func (c *Changes) record(path string, ch Change) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.first == nil {
		c.first, c.last = map[string]Change{}, map[string]Change{}
	}
	if _, seen := c.first[path]; !seen {
		c.order = append(c.order, path)
		c.first[path] = ch
	}
	c.last[path] = ch
}

// List returns the files changed, in the order first seen, each with
// its change over the whole run: created then deleted is nothing,
// created then modified is created, deleted then created is modified.
func (c *Changes) List(cwd string) []FileChange {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	out := []FileChange{}
	for _, p := range c.order {
		first, last := c.first[p], c.last[p]
		ch := last
		switch {
		case first == Created && last == Deleted:
			continue
		case first == Created:
			ch = Created
		case first == Deleted && last != Deleted:
			ch = Modified
		}
		out = append(out, listed(shownPath(cwd, p), ch))
	}
	return out
}

// Inexact reports that some comparison was cut short.
func (c *Changes) Inexact() bool {
	if c == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.inexact
}

func shownPath(cwd, p string) string {
	if rel, err := filepath.Rel(cwd, p); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return p
}

// fileState is what a snapshot knows of one file.
type fileState struct {
	status string // git's XY code; "" outside git
	size   int64
	mtime  time.Time
	exists bool
}

// treeSnapshot is the state of the working tree before a command.
type treeSnapshot struct {
	files    map[string]fileState // absolute paths
	complete bool
}

// snapshot records the tree at cwd: the files git reports as not clean
// (untracked ones included) with their size and time in a repository, or
// every file's size and time elsewhere, bounded.
func (c *Changes) snapshot(ctx context.Context, env *Env) *treeSnapshot {
	if c == nil {
		return nil
	}
	// Taken whether or not the call was cancelled, within a bound.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), gitWait)
	defer cancel()
	c.mu.Lock()
	top, known := c.tops[env.Cwd]
	c.mu.Unlock()
	if !known {
		top, _ = gitTop(ctx, env)
		c.mu.Lock()
		if c.tops == nil {
			c.tops = map[string]string{}
		}
		c.tops[env.Cwd] = top
		c.mu.Unlock()
	}
	if top != "" {
		if s, ok := gitSnapshot(ctx, env, top); ok {
			return s
		}
	}
	return walkSnapshot(env.Cwd)
}

// compare records what changed between before and now.
func (c *Changes) compare(ctx context.Context, env *Env, before *treeSnapshot) {
	if c == nil || before == nil {
		return
	}
	after := c.snapshot(ctx, env)
	if !before.complete || !after.complete {
		c.mu.Lock()
		c.inexact = true
		c.mu.Unlock()
	}
	paths := make([]string, 0, len(after.files))
	for p := range after.files {
		paths = append(paths, p)
	}
	for p := range before.files {
		if _, ok := after.files[p]; !ok {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	for _, p := range paths {
		b, a := before.files[p], after.files[p]
		if ch, changed := fileChange(p, b, a); changed {
			c.record(p, ch)
		}
	}
}

// fileChange compares one path's states. A path git stops listing was
// made clean again (modified back) or, when it was untracked, removed.
func fileChange(path string, b, a fileState) (Change, bool) {
	if !a.exists && b.exists && a.status == "" {
		// Gone from the listing: look at the file itself.
		st, err := os.Lstat(path)
		switch {
		case err != nil:
			return Deleted, true
		case b.status == "":
			return "", false
		default:
			a = fileState{exists: true, size: st.Size(), mtime: st.ModTime()}
		}
	}
	switch {
	case !b.exists && !a.exists:
		return "", false
	case strings.Contains(a.status, "D") && !strings.Contains(b.status, "D"):
		return Deleted, true
	case !b.exists && a.status == "??", !b.exists && strings.Contains(a.status, "A"):
		return Created, true
	case !b.exists && a.status == "" && a.exists:
		return Created, true
	case !b.exists:
		return Modified, true
	case a.status != b.status && a.status != "":
		return Modified, true
	case a.size != b.size || !a.mtime.Equal(b.mtime):
		return Modified, true
	}
	return "", false
}

// gitSnapshot asks git for the files that are not clean; ok is false
// outside a repository or without git.
func gitSnapshot(ctx context.Context, env *Env, top string) (*treeSnapshot, bool) {
	cmd := exec.CommandContext(ctx, "git", "status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames", "--ignore-submodules", ".")
	cmd.Dir = env.Cwd
	cmd.Env = gitEnv(env)
	out, err := cmd.Output()
	if err != nil {
		return nil, false
	}
	s := &treeSnapshot{files: map[string]fileState{}, complete: true}
	for _, rec := range bytes.Split(out, []byte{0}) {
		if len(rec) < 4 {
			continue
		}
		code, rel := string(rec[:2]), string(rec[3:])
		p := filepath.Join(top, filepath.FromSlash(rel))
		fs := fileState{status: code, exists: true}
		if st, err := os.Lstat(p); err == nil {
			fs.size, fs.mtime = st.Size(), st.ModTime()
		}
		s.files[p] = fs
	}
	return s, true
}

func gitTop(ctx context.Context, env *Env) (string, error) {
	cmd := exec.CommandContext(ctx, "git", "rev-parse", "--show-toplevel")
	cmd.Dir = env.Cwd
	cmd.Env = gitEnv(env)
	out, err := cmd.Output()
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// gitEnv is the tools' environment, credentials removed, with git told
// not to take the index lock for a read.
func gitEnv(env *Env) []string {
	return append(commandEnv(env.Environ), "GIT_OPTIONAL_LOCKS=0")
}

// walkSnapshot records every file under cwd (not in .git), at most
// maxWalk of them within walkTime.
func walkSnapshot(cwd string) *treeSnapshot {
	s := &treeSnapshot{files: map[string]fileState{}, complete: true}
	deadline := time.Now().Add(walkTime)
	_ = filepath.WalkDir(cwd, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if d.Name() == ".git" && p != cwd {
				return filepath.SkipDir
			}
			return nil
		}
		if len(s.files) >= maxWalk || time.Now().After(deadline) {
			s.complete = false
			return filepath.SkipAll
		}
		if info, err := d.Info(); err == nil {
			s.files[p] = fileState{exists: true, size: info.Size(), mtime: info.ModTime()}
		}
		return nil
	})
	return s
}

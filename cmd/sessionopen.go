package cmd

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"

	"gopi/pkg/session"
)

// sessionsRoot is where sessions live: $GOPI_HOME/sessions.
func sessionsRoot(c *config) string { return filepath.Join(c.home, "sessions") }

// openSession opens (or prepares) the run's store and chooses its leaf.
// It never guesses a leaf: a non-empty session needs --leaf or -c.
func openSession(sys *System, s *runSettings, o *runOptions, p *prepared) error {
	if o.noSession {
		if o.session != "" || o.leaf != "" || o.cont {
			return usageErr("--no-session cannot be combined with --session, --leaf or --continue")
		}
		p.store = session.NewMemoryStore(s.cwd, session.Options{Now: sys.Now})
		return nil
	}
	if o.leaf != "" && o.session == "" && !o.cont {
		return usageErr("--leaf %s: name the session it is in with --session FILE or ID (gopi session list shows them)", o.leaf)
	}
	fs, err := openFileStore(sys, s, o)
	if err != nil {
		return err
	}
	p.store, p.file = fs, fs.Path()
	for _, w := range fs.Warnings() {
		fmt.Fprintf(sys.Stderr, "gopi: warning: %s\n", w)
	}
	leaf, err := chooseLeaf(fs, o)
	p.leaf = leaf
	return err
}

// gcPaused runs read with the garbage collector paused. Reading a session
// allocates almost nothing but the entries it keeps, so a collection
// during the read finds nothing to free: a 10,000-entry read ran five of
// them, about a fifth of a resume's time on two cores (scripts/bench),
// and the first collection after the read does their work once. What the
// read leaves as garbage is a few buffers.
// Overlapping reads (tests run commands in parallel in one process)
// share one pause: the first saves the setting, the last restores it.
func gcPaused[T any](read func() (T, error)) (T, error) {
	gcPause.Lock()
	if gcPause.n == 0 {
		gcPause.saved = debug.SetGCPercent(-1)
	}
	gcPause.n++
	gcPause.Unlock()
	defer func() {
		gcPause.Lock()
		defer gcPause.Unlock()
		if gcPause.n--; gcPause.n == 0 {
			debug.SetGCPercent(gcPause.saved)
		}
	}()
	return read()
}

var gcPause struct {
	sync.Mutex
	n     int
	saved int
}

func openFileStore(sys *System, s *runSettings, o *runOptions) (*session.FileStore, error) {
	return gcPaused(func() (*session.FileStore, error) { return openFileStoreNow(sys, s, o) })
}

func openFileStoreNow(sys *System, s *runSettings, o *runOptions) (*session.FileStore, error) {
	root := sessionsRoot(s.cfg)
	opts := session.Options{Now: sys.Now, NoSync: s.noSync}
	var fs *session.FileStore
	var err error
	switch {
	case o.session != "":
		fs, err = openNamed(root, s, o, opts)
	case o.cont:
		info, lerr := session.Latest(root, s.cwd)
		if lerr != nil {
			return nil, usageErr("-c: no session to continue for %s: %v", s.cwd, lerr)
		}
		fs, err = session.Open(info.Path, opts)
	default:
		fs, err = session.NewSession(root, s.cwd, opts)
	}
	if err != nil {
		return nil, classifyOpen(err)
	}
	return fs, nil
}

// openNamed opens the session --session names: an existing file or an id
// prefix, or a path where a new session starts. A path that does not
// exist has nothing to continue from, so -c and --leaf refuse it and
// nothing is created.
func openNamed(root string, s *runSettings, o *runOptions, opts session.Options) (*session.FileStore, error) {
	path, rerr := session.Resolve(root, o.session)
	switch {
	case rerr == nil:
		return session.Open(path, opts)
	case !errors.Is(rerr, session.ErrNotFound) || !looksLikePath(o.session):
		return nil, usageErr("--session %s: %v (gopi session list shows the sessions of this folder)", o.session, rerr)
	}
	if _, err := os.Stat(o.session); err == nil {
		return session.Open(o.session, opts) // a folder: Open says so
	}
	switch {
	case o.leaf != "":
		return nil, usageErr("--session %s does not exist, so it has no entry %s; leave out --leaf to start it", o.session, o.leaf)
	case o.cont:
		return nil, usageErr("--session %s does not exist, so there is nothing to continue; leave out -c to start it", o.session)
	}
	abs, err := filepath.Abs(o.session)
	if err != nil {
		return nil, usageErr("--session %s: %v", o.session, err)
	}
	return session.OpenOrCreate(abs, s.cwd, opts)
}

// classifyOpen: a lock held elsewhere or an I/O failure is a session
// error (exit 5); a file that is not a session (a bad header, a folder, a
// FIFO, a device) is an input error (exit 2).
func classifyOpen(err error) error {
	var ce *classedError
	switch {
	case errors.As(err, &ce):
		return err
	case errors.Is(err, session.ErrLocked):
		return sessionErr(err)
	case errors.Is(err, session.ErrInvalidHeader), errors.Is(err, session.ErrOldVersion), errors.Is(err, session.ErrNotRegular):
		return usageErr("%v", err)
	}
	return sessionErr(err)
}

func looksLikePath(ref string) bool {
	return strings.ContainsAny(ref, `/\`) || strings.HasSuffix(ref, ".jsonl")
}

func chooseLeaf(fs *session.FileStore, o *runOptions) (string, error) {
	entries := fs.Entries()
	switch {
	case o.leaf != "":
		if len(entries) == 0 {
			return "", usageErr("--leaf %s: session %s has no entries yet; leave out --leaf to start it", o.leaf, fs.Path())
		}
		id, err := session.ResolveID(entries, o.leaf)
		if err != nil {
			return "", usageErr("--leaf: %v", err)
		}
		return id, nil
	case len(entries) == 0:
		return "", nil
	case o.cont:
		n, _ := session.Newest(entries)
		return n.ID, nil
	}
	var ids []string
	for i, l := range session.Leaves(entries) {
		if i == 8 {
			ids = append(ids, "…")
			break
		}
		ids = append(ids, l.ID)
	}
	return "", usageErr("session %s is not empty: continue from an entry with --leaf ID, or from the newest with -c (leaves, newest first: %s)",
		fs.Path(), strings.Join(ids, ", "))
}

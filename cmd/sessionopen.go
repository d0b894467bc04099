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

// sessionDir is --session-dir (or its setting) as an absolute folder, ""
// when not given: then sessions live under $GOPI_HOME/sessions, in the
// folder of the working directory.
func sessionDir(s *runSettings) string {
	d := s.cfg.v.GetString("sessionDir")
	if d == "" || filepath.IsAbs(d) {
		return d
	}
	return filepath.Join(s.cwd, d)
}

// newSessionDir is where a new session of this run is created.
func newSessionDir(s *runSettings) string {
	if d := sessionDir(s); d != "" {
		return d
	}
	return session.SessionDir(sessionsRoot(s.cfg), s.cwd)
}

// checkSessionNaming refuses a --session-id or --name that pi would
// refuse, and normalises the name as pi does.
func checkSessionNaming(o *runOptions, p *prepared) error {
	if o.sessionID != "" && !session.ValidSessionID(o.sessionID) {
		return usageErr("--session-id %q: an id is letters, digits, '.', '_' and '-', starting and ending with a letter or digit", o.sessionID)
	}
	if o.name.set {
		name := strings.TrimSpace(strings.Join(strings.FieldsFunc(o.name.v, func(r rune) bool { return r == '\n' || r == '\r' }), " "))
		if name == "" {
			return usageErr("--name: give a non-empty name")
		}
		p.name = name
	}
	return nil
}

// openSession opens (or prepares) the run's store and chooses its leaf.
// It never guesses a leaf: a non-empty session needs --leaf or -c (or is
// named by --fork or --session-id, which continue from its newest entry).
func openSession(sys *System, s *runSettings, o *runOptions, p *prepared) error {
	if err := checkSessionNaming(o, p); err != nil {
		return err
	}
	if o.noSession {
		if o.session != "" || o.leaf != "" || o.cont || o.fork != "" {
			return usageErr("--no-session cannot be combined with --session, --fork, --leaf or --continue")
		}
		p.store = session.NewMemoryStore(s.cwd, session.Options{Now: sys.Now, ID: o.sessionID})
		return nil
	}
	if o.leaf != "" && o.session == "" && !o.cont && o.fork == "" && o.sessionID == "" {
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
	case o.fork != "":
		fs, err = openFork(root, s, o, opts)
	case o.session != "":
		fs, err = openNamed(root, s, o, opts)
	case o.cont:
		info, lerr := latestSession(root, s)
		if lerr != nil {
			return nil, usageErr("-c: no session to continue for %s: %v", s.cwd, lerr)
		}
		fs, err = session.Open(info.Path, opts)
	case o.sessionID != "":
		info, ferr := session.FindID(newSessionDir(s), o.sessionID)
		switch {
		case ferr == nil:
			fs, err = session.Open(info.Path, opts)
		case errors.Is(ferr, session.ErrNotFound):
			opts.ID = o.sessionID
			fs, err = session.NewSessionIn(newSessionDir(s), s.cwd, opts)
		default:
			return nil, sessionErr(ferr)
		}
	default:
		fs, err = session.NewSessionIn(newSessionDir(s), s.cwd, opts)
	}
	if err != nil {
		return nil, classifyOpen(err)
	}
	return fs, nil
}

// latestSession is the newest session of the working directory.
func latestSession(root string, s *runSettings) (session.Info, error) {
	dir := sessionDir(s)
	if dir == "" {
		return session.Latest(root, s.cwd)
	}
	list, err := session.ListIn(dir, s.cwd)
	if err != nil {
		return session.Info{}, err
	}
	if len(list) == 0 {
		return session.Info{}, fmt.Errorf("no session for %s in %s: %w", s.cwd, dir, session.ErrNotFound)
	}
	return list[0], nil
}

// resolveSession finds a session by file or id prefix, in --session-dir
// when given.
func resolveSession(root string, s *runSettings, ref string) (string, error) {
	if dir := sessionDir(s); dir != "" {
		return session.ResolveIn(dir, ref)
	}
	return session.Resolve(root, ref)
}

// openFork starts a new session holding a copy of the one --fork names
// (pi's --fork); with --session-id it gets that id, which no session of
// the folder may have yet. Nothing is written until the run's first entry.
func openFork(root string, s *runSettings, o *runOptions, opts session.Options) (*session.FileStore, error) {
	src, err := resolveSession(root, s, o.fork)
	if errors.Is(err, session.ErrNotFound) && looksLikePath(o.fork) {
		return nil, usageErr("--fork %s: no such session file: give an existing session file or id", o.fork)
	}
	if err != nil {
		return nil, usageErr("--fork %s: %v (gopi session list shows the sessions of this folder)", o.fork, err)
	}
	dir := newSessionDir(s)
	if o.sessionID != "" {
		if _, ferr := session.FindID(dir, o.sessionID); ferr == nil {
			return nil, usageErr("--session-id %s: a session with this id exists already in %s; choose another id for the fork", o.sessionID, dir)
		}
		opts.ID = o.sessionID
	}
	fs, err := session.Fork(src, dir, s.cwd, opts)
	if err != nil {
		if errors.Is(err, session.ErrDuplicateID) {
			return nil, usageErr("--fork %s: %v", o.fork, err)
		}
		return nil, classifyOpen(err)
	}
	return fs, nil
}

// openNamed opens the session --session names: an existing file or an id
// prefix, or a path where a new session starts. A path that does not
// exist has nothing to continue from, so -c and --leaf refuse it and
// nothing is created.
func openNamed(root string, s *runSettings, o *runOptions, opts session.Options) (*session.FileStore, error) {
	path, rerr := resolveSession(root, s, o.session)
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
	case o.cont || o.fork != "" || o.sessionID != "":
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

package assemble

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"gopi/pkg/session"
)

// SessionsRoot is where sessions live: $GOPI_HOME/sessions.
func SessionsRoot(home string) string { return filepath.Join(home, "sessions") }

// sessionDir is --session-dir as an absolute folder, "" when not given:
// then sessions live under $GOPI_HOME/sessions, in the folder of the
// working directory.
func (s *Settings) sessionDir(ss SessionSettings) string {
	d := ss.Dir
	if d == "" || filepath.IsAbs(d) {
		return d
	}
	return filepath.Join(s.Cwd, d)
}

// newSessionDir is where a new session is created.
func (s *Settings) newSessionDir(ss SessionSettings) string {
	if d := s.sessionDir(ss); d != "" {
		return d
	}
	return session.SessionDir(SessionsRoot(s.Home), s.Cwd)
}

// checkNaming refuses a --session-id or --name that pi would refuse, and
// returns the name normalised as pi does.
func checkNaming(ss SessionSettings) (string, error) {
	if ss.ID != "" && !session.ValidSessionID(ss.ID) {
		return "", Usagef("--session-id %q: an id is letters, digits, '.', '_' and '-', starting and ending with a letter or digit", ss.ID)
	}
	if !ss.NameSet {
		return "", nil
	}
	name := strings.TrimSpace(strings.Join(strings.FieldsFunc(ss.Name, func(r rune) bool { return r == '\n' || r == '\r' }), " "))
	if name == "" {
		return "", Usagef("--name: give a non-empty name")
	}
	return name, nil
}

// openSession opens (or prepares) the store and chooses its leaf. It
// never guesses a leaf: a non-empty session needs --leaf or -c (or is
// named by --fork or --session-id, which continue from its newest entry,
// or opened for chat or rpc: SessionSettings.Newest).
func (a *Assembly) openSession(ss SessionSettings) error {
	name, err := checkNaming(ss)
	if err != nil {
		return err
	}
	a.name = name
	if ss.None {
		if ss.Path != "" || ss.Leaf != "" || ss.Continue || ss.Fork != "" {
			return Usagef("--no-session cannot be combined with --session, --fork, --leaf or --continue")
		}
		opts := session.Options{Now: a.env.Now, ID: ss.ID}
		a.parent.header(&opts)
		a.store = session.NewMemoryStore(a.s.Cwd, opts)
		return nil
	}
	if ss.Leaf != "" && ss.Path == "" && !ss.Continue && ss.Fork == "" && ss.ID == "" {
		return Usagef("--leaf %s: name the session it is in with --session FILE or ID (gopi session list shows them)", ss.Leaf)
	}
	fs, err := GCPaused(func() (*session.FileStore, error) { return a.openFileStore(ss) })
	if err != nil {
		return err
	}
	a.store, a.file = fs, fs.Path()
	a.Guard().KeepReadOnly(a.file) // no command may empty or forge it
	for _, w := range fs.Warnings() {
		fmt.Fprintf(a.env.Stderr, "gopi: warning: %s\n", w)
	}
	a.leaf, err = chooseLeaf(fs, ss)
	if err == nil && a.firstSession {
		// The first session gopi keeps (its sessions folder is new): say
		// once that runs are recorded, and how not to.
		fmt.Fprintf(a.env.Stderr, "gopi: session saved to %s (gopi session list shows it; --no-session keeps none)\n", fs.Path())
	}
	return err
}

// GCPaused runs read with the garbage collector paused. Reading a session
// allocates almost nothing but the entries it keeps, so a collection
// during the read finds nothing to free: a 10,000-entry read ran five of
// them, about a fifth of a resume's time on two cores (scripts/bench),
// and the first collection after the read does their work once. What the
// read leaves as garbage is a few buffers. That collection comes when the
// heap has doubled since the read (resumeGC), not at once.
// Overlapping reads (tests run commands in parallel in one process)
// share one pause: the first saves the setting, the last restores it.
func GCPaused[T any](read func() (T, error)) (T, error) {
	gcPause.Lock()
	if gcPause.n == 0 {
		// While resumeGC's setting holds, the saved one stays saved.
		if cur := debug.SetGCPercent(-1); !gcPause.raised || cur != gcPause.raisedTo {
			gcPause.saved = cur
		}
		gcPause.raised = false
	}
	gcPause.n++
	gcPause.Unlock()
	defer func() {
		gcPause.Lock()
		defer gcPause.Unlock()
		if gcPause.n--; gcPause.n == 0 {
			resumeGC()
		}
	}()
	return read()
}

var gcPause struct {
	sync.Mutex
	n     int
	saved int
	// raised: the setting is resumeGC's (raisedTo), until the next
	// collection restores saved.
	raised   bool
	raisedTo int
}

func (a *Assembly) openFileStore(ss SessionSettings) (*session.FileStore, error) {
	s := &a.s
	root := SessionsRoot(s.Home)
	opts := session.Options{Now: a.env.Now, NoSync: ss.NoSync, ParentSession: ss.Parent}
	var fs *session.FileStore
	var err error
	switch {
	case ss.Fork != "":
		fs, err = s.openFork(root, ss, opts)
	case ss.Path != "":
		fs, err = s.openNamed(root, ss, opts)
	case ss.Continue:
		info, lerr := s.latestSession(root, ss)
		switch {
		case errors.Is(lerr, session.ErrNotFound) && ss.Leaf == "":
			// As pi does: -c with nothing to continue starts a session,
			// so that a script can say "continue or start" with it.
			fmt.Fprintf(a.env.Stderr, "gopi: -c: no session of %s to continue; starting a new one\n", s.Cwd)
			fs, err = a.newSession(root, ss, opts)
		case lerr != nil:
			return nil, Usagef("-c: no session to continue for %s: %v", s.Cwd, lerr)
		default:
			fs, err = session.Open(info.Path, opts)
		}
	case ss.ID != "":
		info, ferr := session.FindID(s.newSessionDir(ss), ss.ID)
		switch {
		case ferr == nil:
			fs, err = session.Open(info.Path, opts)
		case errors.Is(ferr, session.ErrNotFound):
			opts.ID = ss.ID
			fs, err = a.newSession(root, ss, opts)
		default:
			return nil, SessionErr(ferr)
		}
	default:
		fs, err = a.newSession(root, ss, opts)
	}
	if err != nil {
		return nil, classifyOpen(err)
	}
	return fs, nil
}

// newSession starts a session where ss says. When it is the first in gopi's
// sessions folder (root does not exist yet), the Assembly notes it, and
// openSession tells the user once where runs are recorded.
// With --session-dir the user chose the folder, and nothing is said.
func (a *Assembly) newSession(root string, ss SessionSettings, opts session.Options) (*session.FileStore, error) {
	_, err := os.Lstat(root)
	first := errors.Is(err, os.ErrNotExist) && a.s.sessionDir(ss) == ""
	a.parent.header(&opts)
	st, err := session.NewSessionIn(a.s.newSessionDir(ss), a.s.Cwd, opts)
	if err == nil && first {
		a.firstSession = true
	}
	return st, err
}

// latestSession is the newest session of the working directory.
func (s *Settings) latestSession(root string, ss SessionSettings) (session.Info, error) {
	dir := s.sessionDir(ss)
	if dir == "" {
		return session.Latest(root, s.Cwd)
	}
	list, err := session.ListIn(dir, s.Cwd)
	if err != nil {
		return session.Info{}, err
	}
	if len(list) == 0 {
		return session.Info{}, fmt.Errorf("no session for %s in %s: %w", s.Cwd, dir, session.ErrNotFound)
	}
	return list[0], nil
}

// resolveSession finds a session by file or id prefix, in --session-dir
// when given.
func (s *Settings) resolveSession(root string, ss SessionSettings, ref string) (string, error) {
	if dir := s.sessionDir(ss); dir != "" {
		return session.ResolveIn(dir, ref)
	}
	return session.Resolve(root, ref)
}

// openFork starts a new session holding a copy of the one --fork names
// (pi's --fork), or with Branch of the path to Leaf in it (pi's fork and
// clone); with --session-id it gets that id, which no session of the
// folder may have yet. A whole copy is written with the run's first
// entry, a path at once when it holds a conversation (as pi's).
func (s *Settings) openFork(root string, ss SessionSettings, opts session.Options) (*session.FileStore, error) {
	src, err := s.resolveSession(root, ss, ss.Fork)
	if errors.Is(err, session.ErrNotFound) && LooksLikePath(ss.Fork) {
		return nil, Usagef("--fork %s: no such session file: give an existing session file or id", ss.Fork)
	}
	if err != nil {
		return nil, Usagef("--fork %s: %v (gopi session list shows the sessions of this folder)", ss.Fork, err)
	}
	dir := s.newSessionDir(ss)
	if ss.ID != "" {
		if _, ferr := session.FindID(dir, ss.ID); ferr == nil {
			return nil, Usagef("--session-id %s: a session with this id exists already in %s; choose another id for the fork", ss.ID, dir)
		}
		opts.ID = ss.ID
	}
	var fs *session.FileStore
	if ss.Branch {
		fs, err = session.Branch(src, ss.Leaf, dir, s.Cwd, opts)
	} else {
		fs, err = session.Fork(src, dir, s.Cwd, opts)
	}
	if err != nil {
		if errors.Is(err, session.ErrDuplicateID) {
			return nil, Usagef("--fork %s: %v", ss.Fork, err)
		}
		return nil, classifyOpen(err)
	}
	return fs, nil
}

// openNamed opens the session --session names: an existing file or an id
// prefix, or a path where a new session starts. A path that does not
// exist has nothing to continue from, so -c and --leaf refuse it and
// nothing is created.
func (s *Settings) openNamed(root string, ss SessionSettings, opts session.Options) (*session.FileStore, error) {
	path, rerr := s.resolveSession(root, ss, ss.Path)
	switch {
	case rerr == nil:
		return openWaiting(path, opts, ss.LockWait)
	case !errors.Is(rerr, session.ErrNotFound) || !LooksLikePath(ss.Path):
		return nil, Usagef("--session %s: %v (gopi session list shows the sessions of this folder)", ss.Path, rerr)
	}
	if _, err := os.Stat(ss.Path); err == nil {
		return session.Open(ss.Path, opts) // a folder: Open says so
	}
	switch {
	case ss.Leaf != "":
		return nil, Usagef("--session %s does not exist, so it has no entry %s; leave out --leaf to start it", ss.Path, ss.Leaf)
	case ss.Continue:
		return nil, Usagef("--session %s does not exist, so there is nothing to continue; leave out -c to start it", ss.Path)
	}
	abs, err := filepath.Abs(ss.Path)
	if err != nil {
		return nil, Usagef("--session %s: %v", ss.Path, err)
	}
	return session.OpenOrCreate(abs, s.Cwd, opts)
}

// openWaiting opens path; while another process holds its lock it tries
// again for at most wait (a bridge that restarts gopi on the same file
// starts the new process before the old one let go).
func openWaiting(path string, opts session.Options, wait time.Duration) (*session.FileStore, error) {
	deadline := time.Now().Add(wait)
	for {
		fs, err := session.Open(path, opts)
		if !errors.Is(err, session.ErrLocked) || !time.Now().Before(deadline) {
			return fs, err
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// classifyOpen: a lock held elsewhere or an I/O failure is a session
// error (exit 5); a file that is not a session (a bad header, a folder, a
// FIFO, a device) is an input error (exit 2).
func classifyOpen(err error) error {
	var ce *Error
	switch {
	case errors.As(err, &ce):
		return err
	case errors.Is(err, session.ErrLocked):
		return SessionErr(err)
	case errors.Is(err, session.ErrInvalidHeader), errors.Is(err, session.ErrOldVersion), errors.Is(err, session.ErrNotRegular):
		return Usagef("%v", err)
	}
	return SessionErr(err)
}

// LooksLikePath says whether a session reference is a path rather than an
// id prefix.
func LooksLikePath(ref string) bool {
	return strings.ContainsAny(ref, `/\`) || strings.HasSuffix(ref, ".jsonl")
}

func chooseLeaf(fs *session.FileStore, ss SessionSettings) (string, error) {
	entries := fs.Entries()
	switch {
	case ss.Branch:
		n, _ := session.Newest(entries)
		return n.ID, nil
	case ss.Leaf != "":
		if len(entries) == 0 {
			return "", Usagef("--leaf %s: session %s has no entries yet; leave out --leaf to start it", ss.Leaf, fs.Path())
		}
		id, err := session.ResolveID(entries, ss.Leaf)
		if err != nil {
			return "", Usagef("--leaf: %v", err)
		}
		return id, nil
	case len(entries) == 0:
		return "", nil
	case ss.Continue || ss.Fork != "" || ss.ID != "" || ss.Newest:
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
	return "", Usagef("session %s is not empty: continue from an entry with --leaf ID, or from the newest with -c (leaves, newest first: %s)",
		fs.Path(), strings.Join(ids, ", "))
}

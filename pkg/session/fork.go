package session

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// sessionIDPattern is pi's rule for a session id a user chooses: letters,
// digits, '.', '_' and '-', starting and ending with a letter or digit.
var sessionIDPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$`) })

// ValidSessionID reports whether id may name a session (pi's rule).
func ValidSessionID(id string) bool { return sessionIDPattern().MatchString(id) }

// NewSessionIn starts a new session for cwd directly in dir (pi's
// --session-dir): dir/<time>_<id>.jsonl.
func NewSessionIn(dir, cwd string, opts Options) (*FileStore, error) {
	now := opts.now()
	h := Header{Type: "session", Version: CurrentVersion, ID: opts.newUUID(), Timestamp: FormatTime(now), Cwd: cwd, ParentSession: opts.ParentSession, Extra: opts.HeaderExtra}
	ts := strings.NewReplacer(":", "-", ".", "-").Replace(FormatTime(now))
	return create(filepath.Join(dir, ts+"_"+h.ID+".jsonl"), h, opts)
}

// FindID returns the session in dir whose id is exactly id (its file
// name ends in _<id>.jsonl and its header says so), or ErrNotFound.
func FindID(dir, id string) (Info, error) {
	matches, err := filepath.Glob(filepath.Join(dir, "*_"+escapeGlob(id)+".jsonl"))
	if err != nil {
		return Info{}, fmt.Errorf("find session %s: %w", id, err)
	}
	for _, m := range matches {
		if info, err := statSession(m); err == nil && info.Header.ID == id {
			return info, nil
		}
	}
	return Info{}, fmt.Errorf("no session with id %s in %s: %w", id, dir, ErrNotFound)
}

// ListIn lists the sessions directly in dir whose header names cwd, most
// recently modified first (List's rules; pi's --session-dir).
func ListIn(dir, cwd string) ([]Info, error) {
	all, err := listDir(dir)
	if err != nil {
		return nil, err
	}
	out := all[:0]
	for _, in := range all {
		if in.Header.Cwd == cwd {
			out = append(out, in)
		}
	}
	return out, nil
}

// ResolveIn is Resolve for sessions kept directly in dir.
func ResolveIn(dir, ref string) (string, error) {
	if ref == "" {
		return "", fmt.Errorf("resolve session: empty id: %w", ErrNotFound)
	}
	if st, err := os.Stat(ref); err == nil && !st.IsDir() {
		return ref, nil
	}
	return resolveGlob(filepath.Join(dir, "*_"+escapeGlob(ref)+"*.jsonl"), dir, ref)
}

// Fork starts a new session for cwd in dir holding every entry of the
// session file src (pi's --fork): the new header's parentSession is src's
// absolute path, and the entries keep their ids, parents and times. As for
// any new session, nothing is written until the first Append, which
// writes the header, the copied entries and its own entry with one write.
func Fork(src, dir, cwd string, opts Options) (*FileStore, error) {
	abs, err := filepath.Abs(src)
	if err != nil {
		return nil, fmt.Errorf("fork %s: %w", src, err)
	}
	raw, err := readRegular(abs)
	if err != nil {
		return nil, err
	}
	f, err := Read(bytes.NewReader(raw), abs)
	if err != nil {
		return nil, err
	}
	opts.ParentSession = abs
	s, err := NewSessionIn(dir, cwd, opts)
	if err != nil {
		return nil, err
	}
	var pending []byte
	for i, e := range f.Entries {
		if e.ID == "" || s.ids[e.ID] {
			_ = s.Close()
			return nil, fmt.Errorf("fork %s: entry %d: %w", src, i+1, ErrDuplicateID)
		}
		b, err := e.MarshalJSON()
		if err != nil {
			_ = s.Close()
			return nil, fmt.Errorf("fork %s: %w", src, err)
		}
		pending = append(append(pending, b...), '\n')
		s.commit(e)
	}
	// A current file read without a warning is copied as it is, line for
	// line; otherwise (migrated, torn, corrupt lines) as gopi reads it.
	if f.Version == CurrentVersion && len(f.Warnings) == 0 {
		if i := bytes.IndexByte(raw, '\n'); i >= 0 {
			pending = raw[i+1:]
			if len(pending) > 0 && pending[len(pending)-1] != '\n' {
				pending = append(pending, '\n')
			}
		}
	}
	s.pending = pending
	return s, nil
}

// readRegular reads a whole session file, refusing what is not a regular
// file as Open does.
func readRegular(path string) ([]byte, error) {
	f, _, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// FileStore is a session kept in a JSONL file, open for appending. It holds
// the file's write lock from open to Close.
//
// Each Append is one write(2) of complete lines to a file opened with
// O_APPEND, followed by fsync unless Options.NoSync. A new session's header
// is written in the same write as its first entry. After a failed write or
// fsync the store refuses further appends (ErrBroken): what reached the
// disk is unknown, and the caller must reopen the file to go on. Before
// each append the store checks that the path still names the file it
// holds, at the size it left it, and checks again after the fsync (two
// stat(2) calls per append); a file another program deleted, replaced,
// truncated or appended to fails the append with a *ChangedError and
// breaks the store the same way.
type FileStore struct {
	*index
	path     string
	lock     *fileLock
	file     WriteFile
	warnings []Warning
	created  bool        // the file exists on disk
	held     os.FileInfo // the file, once it exists: what the path must still name
	size     int64       // the bytes it holds: those read, then those written
	newline  bool        // the next write must start with "\n"
	broken   error
	closed   bool
	// pending are entry lines the first write puts after the header (the
	// entries of a forked session).
	pending []byte
	// newDirs are the folders Create made for the file, deepest first:
	// the first write makes their names durable too.
	newDirs []string
}

// Create starts a new session at path for cwd. Nothing is written until the
// first Append; the lock is held from now. It fails if path exists.
func Create(path, cwd string, opts Options) (*FileStore, error) {
	h := Header{Type: "session", Version: CurrentVersion, ID: opts.newUUID(), Timestamp: FormatTime(opts.now()), Cwd: cwd, ParentSession: opts.ParentSession, Extra: opts.HeaderExtra}
	return create(path, h, opts)
}

// NewSession starts a new session for cwd under the sessions root, at the
// path pi would choose (see SessionPath).
func NewSession(root, cwd string, opts Options) (*FileStore, error) {
	now := opts.now()
	h := Header{Type: "session", Version: CurrentVersion, ID: opts.newUUID(), Timestamp: FormatTime(now), Cwd: cwd, ParentSession: opts.ParentSession, Extra: opts.HeaderExtra}
	return create(SessionPath(root, cwd, now, h.ID), h, opts)
}

func create(path string, h Header, opts Options) (*FileStore, error) {
	made := missingDirs(filepath.Dir(path))
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create session %s: %w", path, err)
	}
	l, err := lock(path, opts)
	if err != nil {
		return nil, err
	}
	if _, err := os.Lstat(path); err == nil {
		_ = l.unlock()
		return nil, fmt.Errorf("create session %s: %w", path, os.ErrExist)
	}
	return &FileStore{index: newIndex(h, nil, opts), path: path, lock: l, newDirs: made}, nil
}

// missingDirs lists dir and those of its parents that do not exist yet,
// deepest first.
func missingDirs(dir string) []string {
	var out []string
	for {
		if _, err := os.Lstat(dir); !errors.Is(err, os.ErrNotExist) {
			return out
		}
		out = append(out, dir)
		parent := filepath.Dir(dir)
		if parent == dir {
			return out
		}
		dir = parent
	}
}

// Open opens an existing session file for appending: it takes the lock,
// reads the file and keeps it open. A missing or invalid header is an
// error and the file is left untouched. Version 2 files are appended to as
// they are; version 1 files need migrating first (ErrOldVersion). A path
// that is not a regular file is refused (ErrNotRegular) without blocking
// on it; another gopi writing the same file, under this name or another
// (a symlink, a hard link), is ErrLocked.
func Open(path string, opts Options) (*FileStore, error) {
	data, held, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	l, err := lock(path, opts)
	if err != nil {
		data.Close()
		return nil, err
	}
	l.data = data
	s, err := openLocked(path, l, held, opts)
	if err != nil {
		_ = l.unlock()
		return nil, err
	}
	return s, nil
}

// openLocked reads the session from the file the lock holds, so what is
// read is the file that is locked and appended to.
func openLocked(path string, l *fileLock, held os.FileInfo, opts Options) (*FileStore, error) {
	if err := lockData(l.data, path); err != nil {
		return nil, err
	}
	f, err := Read(l.data, path)
	if err != nil {
		return nil, err
	}
	if f.Version < 2 {
		return nil, fmt.Errorf("open session %s: version %d: %w", path, f.Version, ErrOldVersion)
	}
	wf, err := opts.openFile(path, os.O_WRONLY|os.O_APPEND)
	if err != nil {
		return nil, fmt.Errorf("open session %s: %w", path, err)
	}
	if !sameAsOpen(wf, held) {
		wf.Close()
		return nil, fmt.Errorf("open session %s: %w", path, &ChangedError{Path: path, Change: ChangeReplaced})
	}
	s := &FileStore{index: newIndex(f.Header, f.Entries, opts), path: path, lock: l,
		file: wf, warnings: f.Warnings, created: true, newline: f.NeedsNewline, held: held, size: f.Size}
	return s, nil
}

// OpenOrCreate opens path if it exists and creates it otherwise.
func OpenOrCreate(path, cwd string, opts Options) (*FileStore, error) {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return Create(path, cwd, opts)
	}
	return Open(path, opts)
}

func (o Options) pid() int {
	if o.PID != 0 {
		return o.PID
	}
	return os.Getpid()
}

func (o Options) openFile(name string, flag int) (WriteFile, error) {
	if o.OpenFile != nil {
		return o.OpenFile(name, flag, 0o600)
	}
	return os.OpenFile(name, flag, 0o600)
}

// Path returns the session file's path.
func (s *FileStore) Path() string { return s.path }

// Warnings returns what reading the file reported (torn or corrupt lines,
// migration).
func (s *FileStore) Warnings() []Warning { return append([]Warning(nil), s.warnings...) }

// Append implements Store: one write of one line, then fsync.
func (s *FileStore) Append(_ context.Context, e Entry) (Entry, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closed:
		return Entry{}, fmt.Errorf("append to session %s: %w", s.path, ErrClosed)
	case s.broken != nil:
		return Entry{}, fmt.Errorf("append to session %s: %w: %w", s.path, ErrBroken, s.broken)
	}
	e, err := s.prepare(e.Clone())
	if err != nil {
		return Entry{}, fmt.Errorf("session %s: %w", s.path, err)
	}
	line, err := s.encode(e)
	if err != nil {
		return Entry{}, err
	}
	if err := s.write(line); err != nil {
		s.broken = err
		var ce *ChangedError
		if errors.As(err, &ce) {
			return Entry{}, fmt.Errorf("append entry %s: %w", e.ID, err)
		}
		return Entry{}, fmt.Errorf("append entry %s to session %s: %w", e.ID, s.path, err)
	}
	s.commit(e)
	return e, nil
}

// encode returns the bytes of one append: a newline after a torn tail,
// the header before the first entry, then the entry line.
func (s *FileStore) encode(e Entry) ([]byte, error) {
	var buf []byte
	if s.newline {
		buf = append(buf, '\n')
	}
	if !s.created {
		h, err := s.header.MarshalJSON()
		if err != nil {
			return nil, fmt.Errorf("session %s: header: %w", s.path, err)
		}
		buf = append(append(buf, h...), '\n')
		buf = append(buf, s.pending...)
	}
	b, err := e.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("session %s: %w", s.path, err)
	}
	return append(append(buf, b...), '\n'), nil
}

// write appends line to the file the store holds. The path is checked
// before the write, so nothing is written into a file that changed, and
// after the fsync, so no entry is reported that the file at the path
// lost while it was being written.
func (s *FileStore) write(line []byte) error {
	var err error
	if s.created {
		err = s.verify()
	} else {
		err = s.createFile()
	}
	if err != nil {
		return err
	}
	n, err := s.file.Write(line)
	s.size += int64(n)
	if err == nil && n < len(line) {
		err = fmt.Errorf("short write: %d of %d bytes", n, len(line))
	}
	if err != nil {
		return err
	}
	s.newline, s.pending = false, nil
	if !s.opts.NoSync {
		if err := s.file.Sync(); err != nil {
			return fmt.Errorf("fsync: %w", err)
		}
	}
	return s.verify()
}

// createFile creates a new session's file for its first write, takes its
// flock and notes which file it is.
func (s *FileStore) createFile() error {
	wf, err := s.opts.openFile(s.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|os.O_EXCL)
	if errors.Is(err, os.ErrExist) {
		return &ChangedError{Path: s.path, Change: ChangeCreated}
	}
	if err != nil {
		return err
	}
	s.file, s.created = wf, true
	data, held, err := openRegular(s.path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return &ChangedError{Path: s.path, Change: ChangeDeleted}
	case errors.Is(err, ErrNotRegular):
		return &ChangedError{Path: s.path, Change: ChangeReplaced}
	case err != nil:
		return err
	}
	s.lock.data = data
	if err := lockData(data, s.path); err != nil {
		return err
	}
	if !sameAsOpen(wf, held) {
		return &ChangedError{Path: s.path, Change: ChangeReplaced}
	}
	s.held = held
	return s.syncDir()
}

// syncDir makes the new file's name durable, and the names of the folders
// Create made for it: without that a crash can lose a session whose every
// entry was fsynced.
func (s *FileStore) syncDir() error {
	if s.opts.NoSync {
		return nil
	}
	dirs := []string{filepath.Dir(s.path)}
	for _, d := range s.newDirs {
		dirs = append(dirs, filepath.Dir(d))
	}
	for _, d := range dirs {
		if err := s.opts.ops.syncDir(d); err != nil {
			return fmt.Errorf("fsync folder %s: %w", d, err)
		}
	}
	return nil
}

// Close closes the file and releases the lock. It is safe to call twice.
func (s *FileStore) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	var err error
	if s.file != nil {
		if cerr := s.file.Close(); cerr != nil {
			err = fmt.Errorf("close session %s: %w", s.path, cerr)
		}
	}
	return errors.Join(err, s.lock.unlock())
}

var _ Store = (*FileStore)(nil)

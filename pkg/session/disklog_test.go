package session

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// diskLog records, in order, what a store does to the disk: the session
// file's opens, writes, fsyncs and closes (through Options.OpenFile) and
// the folders it fsyncs (through the ops seam). Tests read it to see that
// an append returned only once what it promised was done.
type diskLog struct {
	events []string
	// failDirSync, when set, is what a folder fsync returns.
	failDirSync error
	// failClose, when set, is what closing the session file returns.
	failClose error
}

func (l *diskLog) add(format string, args ...any) {
	l.events = append(l.events, fmt.Sprintf(format, args...))
}

// take returns the events since the last take.
func (l *diskLog) take() []string {
	ev := l.events
	l.events = nil
	return ev
}

// options returns testOptions that record into l.
func (l *diskLog) options() Options {
	opts := testOptions()
	opts.OpenFile = func(name string, flag int, perm os.FileMode) (WriteFile, error) {
		f, err := os.OpenFile(name, flag, perm)
		if err != nil {
			return nil, err
		}
		how := "open"
		if flag&os.O_CREATE != 0 {
			how = "create"
		}
		l.add("%s %s %#o", how, filepath.Base(name), perm)
		return &loggedFile{File: f, log: l}, nil
	}
	opts.ops.openDir = func(name string) (dirHandle, error) {
		d, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		return &loggedDir{File: d, log: l}, nil
	}
	return opts
}

// loggedFile is a session file that records what is done to it. It keeps
// *os.File's Stat, so the store can tell which file it is.
type loggedFile struct {
	*os.File
	log *diskLog
}

func (f *loggedFile) Write(p []byte) (int, error) {
	f.log.add("write %s", filepath.Base(f.Name()))
	return f.File.Write(p)
}

func (f *loggedFile) Sync() error {
	f.log.add("fsync %s", filepath.Base(f.Name()))
	return f.File.Sync()
}

func (f *loggedFile) Close() error {
	f.log.add("close %s", filepath.Base(f.Name()))
	err := f.File.Close()
	if f.log.failClose != nil {
		return f.log.failClose
	}
	return err
}

// loggedDir is a folder opened for its fsync.
type loggedDir struct {
	*os.File
	log *diskLog
}

func (d *loggedDir) Sync() error {
	d.log.add("fsync folder %s", d.Name())
	if d.log.failDirSync != nil {
		return d.log.failDirSync
	}
	return d.File.Sync()
}

func (d *loggedDir) Close() error {
	d.log.add("close folder %s", d.Name())
	return d.File.Close()
}

// mustHappenBefore fails t unless a and b are both in events, once
// each, a first.
func mustHappenBefore(t *testing.T, events []string, a, b string) {
	t.Helper()
	i, j := slices.Index(events, a), slices.Index(events, b)
	if i < 0 || j < 0 || i >= j || count(events, a) != 1 || count(events, b) != 1 {
		t.Errorf("events %q: want %q once, before %q once", events, a, b)
	}
}

func count(events []string, e string) int {
	n := 0
	for _, x := range events {
		if x == e {
			n++
		}
	}
	return n
}

// mustBeUnlocked fails t unless path's write lock is free: no lock file
// is left, and another store can open (or create) the session at once.
func mustBeUnlocked(t *testing.T, path string) {
	t.Helper()
	mustNotExist(t, LockPath(path))
	s, err := OpenOrCreate(path, "/p", testOptions())
	if err != nil {
		t.Errorf("the lock of %s is not free: %v", path, err)
		return
	}
	if err := s.Close(); err != nil {
		t.Error(err)
	}
}

// mustBeLockedBy fails t unless path's write lock is held by pid.
func mustBeLockedBy(t *testing.T, path string, pid int) {
	t.Helper()
	var le *LockedError
	s, err := OpenOrCreate(path, "/p", Options{PID: 1})
	if err == nil {
		s.Close()
	}
	if !errors.As(err, &le) || le.PID != pid {
		t.Errorf("open of %s: %v, want it locked by %d", path, err, pid)
	}
}

package session

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"gopi/internal/filekind"
)

// A session is the file the user named, not the name. The write lock
// belongs to the file: the sidecar lock is derived from the path with
// symlinks resolved, and the store also holds an exclusive flock on the
// session file itself, which every hard link to it shares. Before each
// append the store checks that its path still names the file it holds
// open, at the size it left it (one stat(2) per append, next to an
// fsync): a file deleted, replaced, truncated or appended to by another
// program is reported once and never written to again.

// realPath resolves the symlinks of path. A path that does not exist yet
// (a new session) resolves its folder, so every name of one folder
// shares one sidecar lock.
func realPath(path string) (string, error) {
	real, err := filepath.EvalSymlinks(path)
	if err == nil {
		return real, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(path))
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, filepath.Base(path)), nil
}

// openRegular opens path for reading only if it is a regular file: it
// stats first, and opens with O_NONBLOCK so that a FIFO or a device put
// there in between cannot block the open; the fstat after the open is
// what counts.
func openRegular(path string) (*os.File, os.FileInfo, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, nil, fmt.Errorf("open session %s: %w", path, err)
	}
	if !st.Mode().IsRegular() {
		return nil, nil, &NotRegularError{Path: path, Kind: filekind.Of(st.Mode())}
	}
	f, err := os.OpenFile(path, os.O_RDONLY|oNonblock|oCloexec, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("open session %s: %w", path, err)
	}
	st, err = f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("open session %s: %w", path, err)
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, nil, &NotRegularError{Path: path, Kind: filekind.Of(st.Mode())}
	}
	return f, st, nil
}

// lockData takes the exclusive flock of the session file open as f. A
// refusal means another gopi writes the same file, perhaps under another
// name; its pid is in the sidecar of that name, which is not known here.
func lockData(f *os.File, session string) error {
	if err := lockFile(f); err != nil {
		if errors.Is(err, errWouldBlock) {
			return &LockedError{Path: session}
		}
		return fmt.Errorf("lock session %s: %w", session, err)
	}
	return nil
}

// sameAsOpen checks that the file opened for appending is the one read
// and locked. Only real files can say; a test's WriteFile need not.
func sameAsOpen(wf WriteFile, held os.FileInfo) bool {
	st, ok := wf.(interface{ Stat() (os.FileInfo, error) })
	if !ok {
		return true
	}
	fi, err := st.Stat()
	return err == nil && os.SameFile(fi, held)
}

// verify checks, before an append, that the path still names the file
// the store holds, at the size the store left it.
func (s *FileStore) verify() error {
	st, err := os.Stat(s.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &ChangedError{Path: s.path, Change: ChangeDeleted}
	case err != nil:
		return fmt.Errorf("check session %s: %w", s.path, err)
	case !os.SameFile(st, s.held):
		return &ChangedError{Path: s.path, Change: ChangeReplaced}
	case st.Size() < s.size:
		return &ChangedError{Path: s.path, Change: ChangeTruncated, Was: s.size, Now: st.Size()}
	case st.Size() > s.size:
		return &ChangedError{Path: s.path, Change: ChangeGrown, Was: s.size, Now: st.Size()}
	}
	return nil
}

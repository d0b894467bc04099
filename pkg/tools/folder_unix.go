//go:build unix

package tools

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// folder is the open folder a write or edit replaces a file in: every
// step of the replace (stat, temporary file, rename, sync) names the file
// relative to it, so no symbolic link swapped into the file's path after
// the folder was opened moves the write elsewhere.
type folder struct {
	f    *os.File
	path string // for messages and the tests' hooks
}

// openWriteFolder opens the folder of target (the file a write or edit
// replaces, its links followed from asked, the absolute path asked for) and returns it with the file's name in
// it. With the sandbox on the guard opens it (Guard.OpenFolder: checked
// on the real path, reached without following a link; a refusal is its
// *sandbox.DeniedError); otherwise it is opened by its path, made first
// when mk is set.
func openWriteFolder(call Call, asked, target string, mk bool) (*folder, string, error) {
	f, name, err := call.Env.Guard.OpenFolder(call.Name, asked, target)
	if err != nil {
		return nil, "", err
	}
	if f != nil {
		return &folder{f: f, path: f.Name()}, name, nil
	}
	dir := filepath.Dir(target)
	if mk {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, "", err
		}
	}
	if f, err = os.OpenFile(dir, os.O_RDONLY|syscall.O_DIRECTORY, 0); err != nil {
		return nil, "", err
	}
	return &folder{f: f, path: dir}, filepath.Base(target), nil
}

func (d *folder) close()                  { d.f.Close() }
func (d *folder) join(name string) string { return filepath.Join(d.path, name) }
func (d *folder) fd() int                 { return int(d.f.Fd()) }

// stat is name's lstat in the folder.
func (d *folder) stat(name string) (fs.FileInfo, error) {
	var st unix.Stat_t
	if err := unix.Fstatat(d.fd(), name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return nil, &fs.PathError{Op: "lstat", Path: d.join(name), Err: err}
	}
	return &statInfo{name: name, st: st}, nil
}

// create makes a new file in the folder: O_EXCL and O_NOFOLLOW, so it
// never opens anything that was already there.
func (d *folder) create(name string, perm fs.FileMode) (*os.File, error) {
	for {
		fd, err := unix.Openat(d.fd(), name, unix.O_RDWR|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(perm.Perm()))
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "open", Path: d.join(name), Err: err}
		}
		return os.NewFile(uintptr(fd), d.join(name)), nil
	}
}

func (d *folder) remove(name string) { _ = unix.Unlinkat(d.fd(), name, 0) }

func (d *folder) rename(from, to string) error {
	if err := unix.Renameat(d.fd(), from, d.fd(), to); err != nil {
		return &os.LinkError{Op: "rename", Old: d.join(from), New: d.join(to), Err: err}
	}
	return nil
}

// writable fails unless the process may write name (faccessat(2)).
func (d *folder) writable(name string) error {
	if err := unix.Faccessat(d.fd(), name, unix.W_OK, 0); err != nil {
		return &fs.PathError{Op: "access", Path: d.join(name), Err: err}
	}
	return nil
}

// sync fsyncs the folder so a rename in it is durable. File systems that
// cannot sync a folder (EINVAL, ENOTSUP) have nothing more to offer and
// are not an error.
func (d *folder) sync() error {
	if err := d.f.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.ENOTSUP) {
		return err
	}
	return nil
}

// statInfo is an fs.FileInfo of an fstatat(2).
type statInfo struct {
	name string
	st   unix.Stat_t
}

func (s *statInfo) Name() string       { return s.name }
func (s *statInfo) Size() int64        { return s.st.Size }
func (s *statInfo) ModTime() time.Time { return time.Unix(s.st.Mtim.Unix()) }
func (s *statInfo) IsDir() bool        { return s.Mode().IsDir() }
func (s *statInfo) Sys() any           { return &s.st }
func (s *statInfo) Mode() fs.FileMode {
	m := fs.FileMode(s.st.Mode & 0o777)
	if s.st.Mode&unix.S_IFMT != unix.S_IFREG {
		m |= modeOf(uint32(s.st.Mode))
	}
	if s.st.Mode&unix.S_ISUID != 0 {
		m |= fs.ModeSetuid
	}
	if s.st.Mode&unix.S_ISGID != 0 {
		m |= fs.ModeSetgid
	}
	if s.st.Mode&unix.S_ISVTX != 0 {
		m |= fs.ModeSticky
	}
	return m
}

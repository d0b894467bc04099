//go:build unix

package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"gopi/internal/filekind"
)

// Folder is the open folder a file is replaced in: every step of a
// replace (stat, temporary file, rename, sync) names the file relative to
// it, so no symbolic link swapped into the file's path after the folder
// was opened moves the write elsewhere.
type Folder struct {
	f    *os.File
	path string // for messages and the tests' hooks
}

// OpenFolder opens the folder at path.
func OpenFolder(path string) (*Folder, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_DIRECTORY, 0)
	if err != nil {
		return nil, err
	}
	return &Folder{f: f, path: path}, nil
}

// NewFolder is the folder f, opened (and checked) by the caller; the
// Folder closes it.
func NewFolder(f *os.File) *Folder { return &Folder{f: f, path: f.Name()} }

func (d *Folder) Close()                  { d.f.Close() }
func (d *Folder) Path() string            { return d.path }
func (d *Folder) Join(name string) string { return filepath.Join(d.path, name) }
func (d *Folder) fd() int                 { return int(d.f.Fd()) }

// Stat is name's lstat in the folder.
func (d *Folder) Stat(name string) (fs.FileInfo, error) {
	var st unix.Stat_t
	if err := unix.Fstatat(d.fd(), name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return nil, &fs.PathError{Op: "lstat", Path: d.Join(name), Err: err}
	}
	return &statInfo{name: name, st: st}, nil
}

// Create makes a new file in the folder: O_EXCL and O_NOFOLLOW, so it
// never opens anything that was already there.
func (d *Folder) Create(name string, perm fs.FileMode) (*os.File, error) {
	for {
		fd, err := unix.Openat(d.fd(), name, unix.O_RDWR|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(perm.Perm()))
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "open", Path: d.Join(name), Err: err}
		}
		return os.NewFile(uintptr(fd), d.Join(name)), nil
	}
}

// Remove removes name, if it can.
func (d *Folder) Remove(name string) { _ = unix.Unlinkat(d.fd(), name, 0) }

// Rename renames from over to, both in the folder.
func (d *Folder) Rename(from, to string) error {
	if err := unix.Renameat(d.fd(), from, d.fd(), to); err != nil {
		return &os.LinkError{Op: "rename", Old: d.Join(from), New: d.Join(to), Err: err}
	}
	return nil
}

// Writable fails unless the process may write name (faccessat(2)).
func (d *Folder) Writable(name string) error {
	if err := unix.Faccessat(d.fd(), name, unix.W_OK, 0); err != nil {
		return &fs.PathError{Op: "access", Path: d.Join(name), Err: err}
	}
	return nil
}

// Sync fsyncs the folder so a rename in it is durable. File systems that
// cannot sync a folder (EINVAL, ENOTSUP) have nothing more to offer and
// are not an error.
func (d *Folder) Sync() error {
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
	m := fs.FileMode(s.st.Mode&0o777) | filekind.ModeOf(uint32(s.st.Mode))
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

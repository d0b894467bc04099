package resources

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"

	"gopi/internal/filekind"
)

// MaxFileSize bounds every file gopi reads as a setting or a resource:
// settings.json, AGENTS.md and CLAUDE.md, SYSTEM.md and APPEND_SYSTEM.md,
// a skill, a prompt template, a --system-prompt file. Anything larger is
// not an instruction a person wrote and would only fill memory and the
// model's context.
const MaxFileSize = 1 << 20

// ErrRefused marks a file ReadFile would not read: it is not a regular
// file (a named pipe would block the open, /dev/zero never ends) or it is
// larger than the bound. errors.Is(err, ErrRefused) tells it from a file
// that is missing or cannot be opened.
var ErrRefused = errors.New("refused")

// refusal is an ErrRefused with its reason ("is a named pipe (FIFO), not
// a regular file").
type refusal struct{ reason string }

func (r *refusal) Error() string        { return r.reason }
func (r *refusal) Is(target error) bool { return target == ErrRefused }

// ReadFile reads the regular file at the absolute path abs from fsys (nil:
// the real filesystem), refusing anything that is not a regular file or is
// larger than limit bytes. It never blocks on a named pipe and never reads
// more than limit+1 bytes: the path is looked at before it is opened, the
// real filesystem is opened without blocking, the opened file is looked at
// again (it may have been swapped in between), and the read goes through a
// LimitReader, so a file growing while it is read is refused too. Every
// file gopi reads as a setting or a resource goes through here.
func ReadFile(fsys fs.FS, abs string, limit int64) ([]byte, error) {
	var st fs.FileInfo
	var err error
	if fsys == nil {
		st, err = os.Stat(abs)
	} else {
		st, err = fs.Stat(fsys, rel(abs))
	}
	if err != nil {
		return nil, err
	}
	if err := checkFile(st, limit); err != nil {
		return nil, err
	}
	f, err := openNonBlocking(fsys, abs)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err = f.Stat(); err != nil {
		return nil, err
	}
	if err := checkFile(st, limit); err != nil {
		return nil, err
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, &refusal{fmt.Sprintf("grew past %s while it was read", sizeText(limit))}
	}
	return b, nil
}

// openNonBlocking opens abs for reading; on the real filesystem with
// O_NONBLOCK, so that a named pipe put there after the first look cannot
// hang the open (reading a regular file is not changed by the flag).
func openNonBlocking(fsys fs.FS, abs string) (fs.File, error) {
	if fsys == nil {
		return os.OpenFile(abs, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	}
	return fsys.Open(rel(abs))
}

// checkFile refuses what is not a regular file, or is larger than limit.
func checkFile(st fs.FileInfo, limit int64) error {
	if !st.Mode().IsRegular() {
		return &refusal{"is " + filekind.Of(st.Mode()) + ", not a regular file"}
	}
	if st.Size() > limit {
		return &refusal{fmt.Sprintf("is %d bytes, larger than the %s allowed", st.Size(), sizeText(limit))}
	}
	return nil
}

// sizeText writes a byte count the way people read limits.
func sizeText(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// refusedAdvice is what to do about a refused resource file.
func refusedAdvice(err error) string {
	return fmt.Sprintf("%v; make it a regular file of at most %s, or remove it", err, sizeText(MaxFileSize))
}

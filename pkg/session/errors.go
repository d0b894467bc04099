package session

import (
	"errors"
	"fmt"
)

// Sentinel errors; match them with errors.Is.
var (
	// ErrLocked: another process holds the session's write lock.
	ErrLocked = errors.New("session is locked by another process")
	// ErrInvalidHeader: line 1 is missing or is not a session header.
	ErrInvalidHeader = errors.New("invalid session header")
	// ErrOldVersion: the file is a version 1 session, readable but not appendable.
	ErrOldVersion = errors.New("session file needs migration before gopi can append to it")
	// ErrUnknownLeaf: no entry has the given id (or id prefix).
	ErrUnknownLeaf = errors.New("unknown leaf")
	// ErrAmbiguous: an id prefix matches more than one entry or session.
	ErrAmbiguous = errors.New("ambiguous id prefix")
	// ErrNotFound: no session matches.
	ErrNotFound = errors.New("session not found")
	// ErrDuplicateID: an appended entry reuses an id already in the session.
	ErrDuplicateID = errors.New("duplicate entry id")
	// ErrMissingParent: an entry's parent is not in the session.
	ErrMissingParent = errors.New("missing parent")
	// ErrCycle: following parentId leads back to an entry already visited.
	ErrCycle = errors.New("cycle in parent chain")
	// ErrClosed: the store was closed.
	ErrClosed = errors.New("session store is closed")
	// ErrBroken: an earlier write failed part way; the store refuses further appends.
	ErrBroken = errors.New("session store is broken by an earlier write error")
	// ErrNothingToCompact: the path has nothing before the kept recent part.
	ErrNothingToCompact = errors.New("nothing to compact")
	// ErrChanged: another program deleted, replaced, truncated or appended
	// to the session file while a store had it open (see ChangedError).
	ErrChanged = errors.New("session file changed on disk by another program")
	// ErrNotRegular: the path names a folder, a named pipe, a device or a
	// socket, not a session file (see NotRegularError).
	ErrNotRegular = errors.New("not a regular file")
)

// LockedError says who holds a session's write lock.
type LockedError struct {
	Path string
	PID  int // 0 when the holder could not be determined
}

func (e *LockedError) Error() string {
	if e.PID == 0 {
		// The holder may have opened the file under another name (a hard
		// link): only its lock on the file itself says it is there.
		return fmt.Sprintf("session %s is locked by another gopi process; wait for it to finish", e.Path)
	}
	return fmt.Sprintf("session %s is locked by process %d; wait for it to finish or stop it", e.Path, e.PID)
}

// Is makes errors.Is(err, ErrLocked) true.
func (e *LockedError) Is(target error) bool { return target == ErrLocked }

// Changes a ChangedError reports.
const (
	ChangeDeleted   = "deleted"
	ChangeReplaced  = "replaced"
	ChangeTruncated = "truncated"
	ChangeGrown     = "grown"
	ChangeCreated   = "created" // a new session's path was taken before its first write
)

// ChangedError says how the session file changed under a store that had
// it open. The store refuses every later append: the file at Path is no
// longer the one whose entries it holds.
type ChangedError struct {
	Path   string
	Change string // one of the Change constants
	// Was and Now are the sizes in bytes the store expected and found
	// (truncated, grown).
	Was, Now int64
}

func (e *ChangedError) Error() string {
	var what string
	switch e.Change {
	case ChangeDeleted:
		what = "was deleted (or moved away)"
	case ChangeReplaced:
		what = "was replaced by another file"
	case ChangeTruncated:
		what = fmt.Sprintf("was truncated from %d to %d bytes", e.Was, e.Now)
	case ChangeGrown:
		what = fmt.Sprintf("was grown from %d to %d bytes by another writer", e.Was, e.Now)
	case ChangeCreated:
		return fmt.Sprintf("session %s was created by another program before gopi's first write to it; gopi stopped writing to it", e.Path)
	default:
		what = "changed"
	}
	return fmt.Sprintf("session %s %s while gopi was writing it; gopi stopped writing to it", e.Path, what)
}

// Is makes errors.Is(err, ErrChanged) true.
func (e *ChangedError) Is(target error) bool { return target == ErrChanged }

// EntriesLost reports whether entries the store read or wrote may be
// missing from the file at Path now: true unless someone only appended.
func (e *ChangedError) EntriesLost() bool { return e.Change != ChangeGrown }

// NotRegularError says what a path that should be a session file is.
type NotRegularError struct {
	Path string
	Kind string // filekind.Of: "a folder", "a named pipe (FIFO)", ...
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("session %s is %s, not a session file: give the path of a .jsonl session file or a session id", e.Path, e.Kind)
}

// Is makes errors.Is(err, ErrNotRegular) true.
func (e *NotRegularError) Is(target error) bool { return target == ErrNotRegular }

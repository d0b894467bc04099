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
)

// LockedError says who holds a session's write lock.
type LockedError struct {
	Path string
	PID  int // 0 when the holder could not be determined
}

func (e *LockedError) Error() string {
	if e.PID == 0 {
		return fmt.Sprintf("session %s is locked by another process; wait for it to finish", e.Path)
	}
	return fmt.Sprintf("session %s is locked by process %d; wait for it to finish or stop it", e.Path, e.PID)
}

// Is makes errors.Is(err, ErrLocked) true.
func (e *LockedError) Is(target error) bool { return target == ErrLocked }

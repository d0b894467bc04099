package session

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/google/uuid"
)

// Store keeps one session: a header and an append-only list of entries.
type Store interface {
	// Header returns the session header.
	Header() Header
	// Entries returns the entries in append (file) order. The slice and
	// the entries in it must be treated as read-only (later appends never
	// show through it).
	Entries() []Entry
	// Append stores e and returns it as stored: an empty ID is drawn from
	// the id source (unique in the session) and an empty Timestamp is
	// taken from the clock. It fails when e's id is already used or its
	// parent is unknown. When it returns nil the entry is durable (the file
	// store has written and fsynced it). A cancelled ctx does not stop an
	// append: the entries that record an abort must still be written.
	Append(ctx context.Context, e Entry) (Entry, error)
	// Close releases the store; a file store drops its write lock.
	Close() error
}

// Options configure a store. The zero value is valid.
type Options struct {
	Now     func() time.Time // clock for timestamps; default time.Now
	NewID   func() string    // entry ids; default 8 random lowercase hex characters
	NewUUID func() string    // session ids; default a UUIDv7, as pi's
	// ID is a new session's id chosen by the caller (--session-id); it
	// must pass ValidSessionID. Empty: NewUUID's.
	ID string
	// NoSync skips the fsync after each append (a --fsync=never option).
	// A crash may then lose appended entries.
	NoSync bool
	// ParentSession is written into a new session's header.
	ParentSession string
	// HeaderExtra are more fields of a new session's header (a child
	// run's "parentToolCallId").
	HeaderExtra map[string]json.RawMessage
	// OpenFile opens the session file for appending; tests inject failing
	// files here. Default os.OpenFile.
	OpenFile func(name string, flag int, perm os.FileMode) (WriteFile, error)
	// PID is written into the lock file; default os.Getpid().
	PID int

	ops fsOps // the real file system unless a test says otherwise
}

// WriteFile is what a file store needs of its open session file.
type WriteFile interface {
	Write(p []byte) (int, error)
	Sync() error
	Close() error
}

func (o Options) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

func (o Options) newUUID() string {
	if o.ID != "" {
		return o.ID
	}
	if o.NewUUID != nil {
		return o.NewUUID()
	}
	if id, err := uuid.NewV7(); err == nil {
		return id.String()
	}
	return uuid.NewString()
}

// RandomID returns 8 random lowercase hex characters, pi's entry id shape.
func RandomID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// FormatTime formats t as pi's timestamps: UTC, milliseconds, a Z suffix.
func FormatTime(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000Z")
}

// index is the in-memory state shared by both stores.
type index struct {
	mu      sync.Mutex
	opts    Options
	header  Header
	entries []Entry
	ids     map[string]bool
}

func newIndex(h Header, entries []Entry, opts Options) *index {
	ix := &index{opts: opts, header: h, entries: entries, ids: make(map[string]bool, len(entries))}
	for _, e := range entries {
		ix.ids[e.ID] = true
	}
	return ix
}

const maxIDDraws = 100

// prepare fills in id and timestamp and checks e against the session.
func (ix *index) prepare(e Entry) (Entry, error) {
	if e.Type == "" {
		return e, fmt.Errorf("append entry: no type")
	}
	if e.ID == "" {
		id, err := ix.drawID()
		if err != nil {
			return e, err
		}
		e.ID = id
	} else if ix.ids[e.ID] {
		return e, fmt.Errorf("append entry %s: %w", e.ID, ErrDuplicateID)
	}
	if p := e.Parent(); p != "" && !ix.ids[p] {
		return e, fmt.Errorf("append entry %s: parent %s: %w", e.ID, p, ErrMissingParent)
	}
	if e.Timestamp == "" {
		e.Timestamp = FormatTime(ix.opts.now())
	}
	return e, nil
}

func (ix *index) drawID() (string, error) {
	gen := ix.opts.NewID
	if gen == nil {
		gen = RandomID
	}
	for range maxIDDraws {
		id := gen()
		if id != "" && !ix.ids[id] {
			return id, nil
		}
	}
	return "", fmt.Errorf("append entry: the id source returned %d used ids in a row", maxIDDraws)
}

func (ix *index) commit(e Entry) {
	ix.entries = append(ix.entries, e)
	ix.ids[e.ID] = true
}

func (ix *index) Header() Header {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return ix.header
}

func (ix *index) Entries() []Entry {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	// Clipped, not copied: appends reallocate instead of writing into the
	// caller's view, and a 10,000-entry copy per call showed in profiles.
	return slices.Clip(ix.entries)
}

// MemoryStore keeps a session in memory only (--no-session).
type MemoryStore struct {
	*index
}

// NewMemoryStore returns an empty in-memory session for cwd.
func NewMemoryStore(cwd string, opts Options) *MemoryStore {
	h := Header{Type: "session", Version: CurrentVersion, ID: opts.newUUID(), Timestamp: FormatTime(opts.now()), Cwd: cwd, ParentSession: opts.ParentSession, Extra: opts.HeaderExtra}
	return &MemoryStore{index: newIndex(h, nil, opts)}
}

// Append implements Store.
func (m *MemoryStore) Append(ctx context.Context, e Entry) (Entry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, err := m.prepare(e.Clone())
	if err != nil {
		return Entry{}, err
	}
	m.commit(e)
	return e, nil
}

// Close implements Store; it does nothing.
func (m *MemoryStore) Close() error { return nil }

var _ Store = (*MemoryStore)(nil)

// Package session is gopi's memory: pi-compatible (format version 3) JSONL
// session files holding a tree of entries, the paths through that tree,
// the model context built from a path, and compaction.
//
// Guarantees:
//   - Every entry type and field pi writes is read; unknown entry types and
//     unknown fields are kept and written back unchanged (same JSON value;
//     unknown fields follow the known ones, in sorted key order).
//   - FileStore.Append returns only after one write(2) of the complete
//     line(s) to a file opened O_APPEND and an fsync (unless NoSync). A new
//     session's header goes out in the same write as its first entry, and
//     that first append also fsyncs the file's folder and the folders made
//     for it, so a crash cannot lose a session whose Append returned.
//     Files are created 0600, folders 0700.
//   - One writer per file: a FileStore holds an exclusive flock on
//     <file>.lock (which names the holder's pid) from open to Close; a
//     second writer fails at once with a *LockedError (ErrLocked). Readers
//     (ReadFile, List, ReadHeader) never lock.
//   - Reading never fails on a bad line after the header: a torn last line
//     is a warning with its offset and the next append starts on a fresh
//     line; a corrupt middle line is a warning with file:line and the
//     entries after it are kept. Lines may be of any length. A missing or
//     invalid header is an error. Nothing in this package rewrites,
//     truncates or deletes a session file; version 1 and 2 files are
//     migrated in memory only.
//   - Warnings are returned as values, never printed.
//   - Clock and id sources are injected (Options.Now, NewID, NewUUID).
package session

package session

import (
	"encoding/json"
	"fmt"
)

// migrate brings entries of a version 1 or 2 file to version 3 in memory,
// as pi's session manager does on load. Unlike pi, gopi never writes the
// result back: the file on disk stays as it is.
func (f *File) migrate() {
	if f.Version >= CurrentVersion {
		return
	}
	if f.Version < 2 {
		migrateV1(f.Entries)
	}
	migrateV2(f.Entries)
	f.Warnings = append(f.Warnings, Warning{
		Kind: WarnMigrated, File: f.Path, Offset: -1,
		Message: fmt.Sprintf("version %d session migrated to version %d in memory; the file is unchanged", f.Version, CurrentVersion),
	})
	f.Header.Version = CurrentVersion
}

// v1ID is the id a version 1 entry gets: derived from its position, so that
// every read of the same file gives the same ids (pi draws random ones and
// rewrites the file; gopi does not rewrite).
func v1ID(i int) string { return fmt.Sprintf("%08x", i+1) }

// migrateV1 links the entries of a version 1 file into a chain (each entry's
// parent is the one before it) and turns a compaction's firstKeptEntryIndex
// (an index into the file's lines, the header being 0) into
// firstKeptEntryId.
func migrateV1(entries []Entry) {
	var prev *string
	for i := range entries {
		e := &entries[i]
		e.ID = v1ID(i)
		e.ParentID = prev
		prev = Ref(e.ID)
		if e.Type != TypeCompaction {
			continue
		}
		raw, ok := e.Extra["firstKeptEntryIndex"]
		if !ok {
			continue
		}
		var idx float64
		if json.Unmarshal(raw, &idx) == nil && idx >= 1 && int(idx) <= len(entries) && idx == float64(int(idx)) {
			// pi reads the target's id as it is at this moment: only entries
			// before this one have been given ids yet.
			if t := int(idx) - 1; t <= i {
				e.FirstKeptEntryID = v1ID(t)
			}
		}
		delete(e.Extra, "firstKeptEntryIndex")
		if len(e.Extra) == 0 {
			e.Extra = nil
		}
	}
}

// migrateV2 renames the message role hookMessage to custom.
func migrateV2(entries []Entry) {
	for i := range entries {
		m := entries[i].Message
		if entries[i].Type == TypeMessage && m != nil && m.Role == "hookMessage" {
			m.Role = "custom"
		}
	}
}

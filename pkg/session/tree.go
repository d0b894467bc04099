package session

import (
	"fmt"
	"slices"
	"strings"
)

// maxListed caps how many candidates an error message lists.
const maxListed = 10

// PathTo returns the entries from the root to the leaf ref (an id or a
// unique id prefix), root first. A parent that is missing from the file
// (a corrupt line was skipped) ends the path there with a WarnGap warning;
// a path through an id used twice gets a WarnDuplicateID warning (the
// later entry counts, as in pi). An unknown leaf is ErrUnknownLeaf listing
// the existing leaves newest first; an ambiguous prefix ErrAmbiguous; a
// loop in the parent chain ErrCycle.
func PathTo(entries []Entry, ref string) ([]Entry, []Warning, error) {
	byID, dups := indexByID(entries)
	id, err := resolveID(entries, byID, ref)
	if err != nil {
		return nil, nil, err
	}
	var warns []Warning
	n := pathLen(entries, byID, id)
	// Without a cycle the walk ends within len(entries) steps; only a walk
	// that does not needs the set that names the entry where it loops.
	var seen map[string]bool
	if n > len(entries) {
		seen = make(map[string]bool, len(entries))
		n = len(entries)
	}
	// Filled from the end: the walk goes from the leaf to the root.
	path := make([]Entry, n, n+appendRoom)
	k := n
	for cur := id; cur != ""; {
		i, ok := byID[cur]
		if !ok {
			warns = append(warns, Warning{Kind: WarnGap, Offset: -1, EntryID: cur, Message: fmt.Sprintf(
				"entry %s is missing (its line was lost); the path to %s starts after it", cur, id)})
			break
		}
		if seen != nil {
			if seen[cur] {
				return nil, warns, fmt.Errorf("path to %s: entry %s is its own ancestor: %w", id, cur, ErrCycle)
			}
			seen[cur] = true
		}
		if dups[cur] {
			warns = append(warns, Warning{Kind: WarnDuplicateID, Offset: -1, EntryID: cur, Message: fmt.Sprintf(
				"id %s is used by more than one entry; the last one in the file counts", cur)})
		}
		k--
		path[k] = entries[i]
		cur = entries[i].Parent()
	}
	return path[k:], warns, nil
}

// appendRoom is the spare capacity of the entry slices a store or a path
// starts with: a run appends a few entries, and room for them spares a
// copy of a long session's whole slice.
const appendRoom = 16

// pathLen counts the entries from id to its root; more than len(entries)
// means the parent chain loops.
func pathLen(entries []Entry, byID map[string]int, id string) int {
	n := 0
	for cur := id; cur != "" && n <= len(entries); n++ {
		i, ok := byID[cur]
		if !ok {
			break
		}
		cur = entries[i].Parent()
	}
	return n
}

// indexByID maps ids to the index of their last entry and reports ids
// that occur more than once.
func indexByID(entries []Entry) (map[string]int, map[string]bool) {
	byID := make(map[string]int, len(entries))
	var dups map[string]bool
	for i, e := range entries {
		if _, ok := byID[e.ID]; ok {
			if dups == nil {
				dups = map[string]bool{}
			}
			dups[e.ID] = true
		}
		byID[e.ID] = i
	}
	return byID, dups
}

// ResolveID turns an entry id or unique id prefix into the full id.
func ResolveID(entries []Entry, ref string) (string, error) {
	byID, _ := indexByID(entries)
	return resolveID(entries, byID, ref)
}

func resolveID(entries []Entry, byID map[string]int, ref string) (string, error) {
	if _, ok := byID[ref]; ok && ref != "" {
		return ref, nil
	}
	var found []string
	if ref != "" {
		for id := range byID {
			if strings.HasPrefix(id, ref) {
				found = append(found, id)
			}
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return "", fmt.Errorf("no entry %q in the session; leaves, newest first: %s: %w",
			ref, listIDs(Leaves(entries)), ErrUnknownLeaf)
	}
	slices.Sort(found)
	return "", fmt.Errorf("entry id %q matches %s; give more characters: %w",
		ref, strings.Join(capList(found), ", "), ErrAmbiguous)
}

func listIDs(es []Entry) string {
	if len(es) == 0 {
		return "(none)"
	}
	ids := make([]string, len(es))
	for i, e := range es {
		ids[i] = e.ID
	}
	return strings.Join(capList(ids), ", ")
}

func capList(s []string) []string {
	if len(s) <= maxListed {
		return s
	}
	return append(slices.Clone(s[:maxListed]), fmt.Sprintf("… %d more", len(s)-maxListed))
}

// Leaves returns the entries no other entry names as parent, newest (last
// in the file) first.
func Leaves(entries []Entry) []Entry {
	parents := make(map[string]bool, len(entries))
	for _, e := range entries {
		if p := e.Parent(); p != "" {
			parents[p] = true
		}
	}
	var out []Entry
	for i := len(entries) - 1; i >= 0; i-- {
		if !parents[entries[i].ID] {
			out = append(out, entries[i])
		}
	}
	return out
}

// Children returns the entries whose parent is id, in file order; id ""
// gives the roots.
func Children(entries []Entry, id string) []Entry {
	var out []Entry
	for _, e := range entries {
		if e.Parent() == id {
			out = append(out, e)
		}
	}
	return out
}

// Newest returns the last entry in file order (what -c continues from).
func Newest(entries []Entry) (Entry, bool) {
	if len(entries) == 0 {
		return Entry{}, false
	}
	return entries[len(entries)-1], true
}

// Labels returns each labelled entry's current label: the last label entry
// for a target wins, and an absent or empty label clears it.
func Labels(entries []Entry) map[string]string {
	out := map[string]string{}
	for _, e := range entries {
		if e.Type != TypeLabel {
			continue
		}
		if e.Label != nil && *e.Label != "" {
			out[e.TargetID] = *e.Label
		} else {
			delete(out, e.TargetID)
		}
	}
	return out
}

// SessionName returns the name of the last session_info entry with a
// non-empty name, trimmed; "" when none.
func SessionName(entries []Entry) string {
	for i := len(entries) - 1; i >= 0; i-- {
		e := entries[i]
		if e.Type == TypeSessionInfo && e.Name != nil && strings.TrimSpace(*e.Name) != "" {
			return strings.TrimSpace(*e.Name)
		}
	}
	return ""
}

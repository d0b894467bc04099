package session

import (
	"fmt"
	"path/filepath"
)

// Branch starts a new session for cwd in dir holding only the path from
// the root of the session file src to its entry leaf, as pi's fork and
// clone do (createBranchedSession): the new header's parentSession is
// src's absolute path; the path's entries keep their ids, times and
// fields, each one's parent is the path entry before it (label entries
// are left out of the path, so an entry under a label hangs from the
// entry before it, and a compaction kept from a label keeps from the
// entry after it); the current labels of the path's entries follow as new
// label entries, chained after the last. When the path holds a user or
// assistant message the file is written at once, as pi writes it;
// otherwise, as for any new session, at the first Append. The new
// session continues from its last entry. An empty leaf gives an empty
// session whose parent is src (a fork before the first message).
func Branch(src, leaf, dir, cwd string, opts Options) (*FileStore, error) {
	abs, err := filepath.Abs(src)
	if err != nil {
		return nil, fmt.Errorf("fork %s: %w", src, err)
	}
	f, err := ReadFile(abs)
	if err != nil {
		return nil, err
	}
	var path []Entry
	if leaf != "" {
		if path, _, err = PathTo(f.Entries, leaf); err != nil {
			return nil, fmt.Errorf("fork %s: %w", src, err)
		}
	}
	opts.ParentSession = abs
	s, err := NewSessionIn(dir, cwd, opts)
	if err != nil {
		return nil, err
	}
	parent := ""
	for _, e := range relink(path) {
		s.commit(e)
		parent = e.ID
	}
	if err := s.commitLabels(currentLabels(f.Entries), parent); err != nil {
		_ = s.Close()
		return nil, err
	}
	conversation, err := s.pendEntries()
	if err != nil {
		_ = s.Close()
		return nil, fmt.Errorf("fork %s: %w", src, err)
	}
	if conversation {
		if err := s.writeHeader(); err != nil {
			_ = s.Close()
			return nil, err
		}
	}
	return s, nil
}

// relink returns copies of path's entries without its labels, each one's
// parent the entry before it; a compaction that keeps from a label keeps
// from the entry after the label.
func relink(path []Entry) []Entry {
	kept := make([]Entry, 0, len(path))
	after := map[string]string{} // a label left out → the path entry after it
	var labels []string
	parent := ""
	for _, e := range path {
		if e.Type == TypeLabel {
			labels = append(labels, e.ID)
			continue
		}
		for _, id := range labels {
			after[id] = e.ID
		}
		labels = labels[:0]
		e = e.Clone()
		e.ParentID = Ref(parent)
		if e.Type == TypeCompaction && e.FirstKeptEntryID != e.ID {
			if next, ok := after[e.FirstKeptEntryID]; ok {
				e.FirstKeptEntryID = next
			}
		}
		kept = append(kept, e)
		parent = e.ID
	}
	return kept
}

// commitLabels commits a new label entry for each of labels whose target
// the session holds, chained after parent.
func (s *FileStore) commitLabels(labels []currentLabel, parent string) error {
	for _, l := range labels {
		if !s.ids[l.TargetID] {
			continue
		}
		id, err := s.drawID()
		if err != nil {
			return err
		}
		text := l.label
		e := Entry{Type: TypeLabel, ID: id, ParentID: Ref(parent), Timestamp: l.Timestamp, TargetID: l.TargetID, Label: &text}
		s.commit(e)
		parent = id
	}
	return nil
}

// pendEntries makes the session's entries its pending lines, and says
// whether they hold a user or assistant message.
func (s *FileStore) pendEntries() (conversation bool, err error) {
	var pending []byte
	for _, e := range s.entries {
		b, err := e.MarshalJSON()
		if err != nil {
			return false, err
		}
		pending = append(append(pending, b...), '\n')
		conversation = conversation || (e.Type == TypeMessage && e.Message != nil && (e.Message.Role == "user" || e.Message.Role == "assistant"))
	}
	s.pending = pending
	return conversation, nil
}

// currentLabel is one target's label as the file ends, with the time of
// the label entry that set it.
type currentLabel struct {
	TargetID, Timestamp string
	label               string
}

// currentLabels are the labels set at the end of entries, in the order pi
// keeps them (a Map: first set first; cleared and set again moves last).
func currentLabels(entries []Entry) []currentLabel {
	var out []currentLabel
	at := map[string]int{}
	for _, e := range entries {
		if e.Type != TypeLabel {
			continue
		}
		i, ok := at[e.TargetID]
		switch {
		case e.Label != nil && *e.Label != "" && ok:
			out[i].label, out[i].Timestamp = *e.Label, e.Timestamp
		case e.Label != nil && *e.Label != "":
			at[e.TargetID] = len(out)
			out = append(out, currentLabel{TargetID: e.TargetID, Timestamp: e.Timestamp, label: *e.Label})
		case ok:
			out = append(out[:i], out[i+1:]...)
			delete(at, e.TargetID)
			for t, j := range at {
				if j > i {
					at[t] = j - 1
				}
			}
		}
	}
	return out
}

// writeHeader writes the header and the pending entries now, with one
// write and an fsync, instead of with the first Append.
func (s *FileStore) writeHeader() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	h, err := s.header.MarshalJSON()
	if err != nil {
		return fmt.Errorf("session %s: header: %w", s.path, err)
	}
	if err := s.write(append(append(h, '\n'), s.pending...)); err != nil {
		s.broken = err
		return fmt.Errorf("write session %s: %w", s.path, err)
	}
	return nil
}

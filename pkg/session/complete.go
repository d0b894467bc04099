package session

import "strings"

// Candidate is a value offered for a flag in shell completion, with what
// the shell shows beside it.
type Candidate struct {
	Value, Description string
}

// MaxSessionCandidates bounds the sessions offered for --session (each
// is read for its first prompt): the newest.
const MaxSessionCandidates = 50

// MaxLeafCandidates bounds the entries offered for --leaf: the newest.
const MaxLeafCandidates = 200

// SessionCandidates offers the ids of cwd's sessions under root that
// start with typed, newest first, at most MaxSessionCandidates, each
// with when it changed and how it began (read with read, ReadFile when
// nil).
func SessionCandidates(root, cwd, typed string, read ReadFunc) []Candidate {
	infos, _ := List(root, cwd)
	var out []Candidate
	for _, info := range infos {
		if !strings.HasPrefix(info.Header.ID, typed) || len(out) == MaxSessionCandidates {
			continue
		}
		desc := info.ModTime.Format("2006-01-02 15:04")
		if s, ok := Summarize(info, read); ok && s.FirstPrompt != "" {
			desc += " · " + OneLine(s.FirstPrompt, 50)
		}
		out = append(out, Candidate{info.Header.ID, desc})
	}
	return out
}

// LeafCandidates offers the entry ids of the session ref names (Resolve
// under root), or with latest and no ref the newest session of cwd, that
// start with typed: newest first, at most MaxLeafCandidates, each with
// its role and first words. Nothing when no session is named or it cannot
// be read.
func LeafCandidates(root, cwd, ref string, latest bool, typed string) []Candidate {
	var path string
	var err error
	switch {
	case ref != "":
		path, err = Resolve(root, ref)
	case latest:
		var info Info
		info, err = Latest(root, cwd)
		path = info.Path
	default:
		return nil // no session named: nothing to offer
	}
	if err != nil {
		return nil
	}
	f, err := ReadFile(path)
	if err != nil {
		return nil
	}
	var out []Candidate
	for i := len(f.Entries) - 1; i >= 0 && len(out) < MaxLeafCandidates; i-- {
		e := f.Entries[i]
		if !strings.HasPrefix(e.ID, typed) {
			continue
		}
		kind, preview := Preview(e, 60)
		out = append(out, Candidate{e.ID, OneLine(kind+": "+preview, 60)})
	}
	return out
}

package mode

import "gopi/pkg/assemble"

// SessionOf names a's session file for the result object; nil when a
// (nil before it was built) opened no file: --no-session keeps nothing a
// later run could resume.
func SessionOf(a *assemble.Assembly) *SessionInfo {
	if !Opened(a) {
		return nil
	}
	leaf := a.Leaf()
	if rt := a.Runtime(); rt != nil {
		leaf = rt.Leaf()
	}
	return &SessionInfo{ID: a.Store().Header().ID, File: a.File(), LeafID: leaf}
}

// Opened says whether a opened a session file.
func Opened(a *assemble.Assembly) bool {
	return a != nil && a.Store() != nil && a.File() != ""
}

// HeaderOf is the session header line of a's session, as events mode
// writes it first; tools are the run's.
func HeaderOf(a *assemble.Assembly, tools []string) Header {
	return Header{Header: a.Store().Header(), File: a.File(), LeafID: a.Leaf(), Model: a.Model().Info, Tools: tools}
}

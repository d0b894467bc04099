package invocation

import (
	"fmt"
	"io"
	"os"

	"gopi/internal/filekind"
	"gopi/pkg/assemble"
	"gopi/pkg/session"
	"gopi/pkg/settings"
)

// Sessions are where this invocation keeps sessions ($GOPI_HOME/sessions:
// root) and the working folder whose sessions an id refers to (cwdFlag,
// --cwd, or the process's), read without the settings files.
func (p *Process) Sessions(cwdFlag string) (root, cwd string, err error) {
	if cwd, err = p.Cwd(cwdFlag); err != nil {
		return "", "", err
	}
	home, err := settings.GopiHome(p.Getenv)
	if err != nil {
		return "", "", err
	}
	return assemble.SessionsRoot(home), cwd, nil
}

// ReadSession reads a session by its file or a prefix of its id among
// the working folder's, without its lock and with the collector paused,
// and says its warnings on stderr. A ref that names no session file is
// a usage error that says what to give.
func (p *Process) ReadSession(ref, cwdFlag string) (*session.File, error) {
	root, _, err := p.Sessions(cwdFlag)
	if err != nil {
		return nil, err
	}
	path, err := session.Resolve(root, ref)
	if err != nil {
		if assemble.LooksLikePath(ref) {
			st, serr := os.Stat(ref)
			if serr != nil {
				return nil, assemble.Usagef("session %s: %s: give a session file or id (gopi session list shows the sessions of this folder)", ref, filekind.Problem(serr))
			}
			if !st.Mode().IsRegular() {
				return nil, assemble.Usagef("session %s is not a file (a folder?): give a session file or id", ref)
			}
		}
		return nil, assemble.Usagef("session %s: %v (gopi session list shows the sessions of this folder)", ref, err)
	}
	f, err := ReadPaused(path)
	if err != nil {
		return nil, assemble.Usagef("%v", err)
	}
	Warn(p.Stderr, f.Warnings)
	return f, nil
}

// ReadPaused reads a session file with the collector paused.
func ReadPaused(path string) (*session.File, error) {
	return assemble.GCPaused(func() (*session.File, error) { return session.ReadFile(path) })
}

// Warn says each warning (a session file's damage) on w.
func Warn(w io.Writer, warns []session.Warning) {
	for _, s := range warns {
		fmt.Fprintf(w, "gopi: warning: %s\n", s)
	}
}

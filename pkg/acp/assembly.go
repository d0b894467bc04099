package acp

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"

	"gopi/pkg/ai"
	"gopi/pkg/assemble"
	"gopi/pkg/resources"
	"gopi/pkg/session"
)

// Opening is a session the AssemblyHost asks its opener for.
type Opening struct {
	Cwd string // the session's folder, absolute
	// File is an existing session file to continue from its newest
	// entry; "" starts a new session.
	File    string
	Servers []MCPServer // the client's, started beside the settings' own
	// Sandbox is a sandbox mode replacing the settings' one; "" keeps it.
	Sandbox string
}

// Assembled is an opened Assembly with what the command line read
// beside it for the session.
type Assembled struct {
	Assembly *assemble.Assembly
	Catalog  *resources.Catalog // the prompt templates and skills; nil: none
	// MaxPrompt bounds a template's expansion in bytes (--max-prompt-bytes).
	MaxPrompt int
	// Close releases the Assembly and everything it holds; nil is the
	// Assembly's Close.
	Close func()
}

func (a *Assembled) close() {
	if a.Close != nil {
		a.Close()
		return
	}
	a.Assembly.Close()
}

// HostConfig is what an AssemblyHost needs from the command line, which
// reads the settings.
type HostConfig struct {
	// Open opens a session's Assembly (Open called: its first Runtime
	// built) with the settings of o.Cwd and the command's flags.
	Open func(ctx context.Context, o Opening) (*Assembled, error)
	// Root is the folder holding every folder's sessions, where Load
	// resolves an id; cwd is the session's folder.
	Root func(cwd string) (string, error)
	// List lists the session files of cwd ("": every folder's), newest
	// first.
	List func(cwd string) ([]session.Info, error)
	// Diag gets the warnings of a session's file (stderr); nil: none.
	Diag io.Writer
}

// AssemblyHost is the Host whose sessions are each an Assembly of their
// own folder, opened by HostConfig.Open. Opening is one at a time.
type AssemblyHost struct {
	cfg HostConfig
	mu  sync.Mutex
}

// NewHost is the Host over the Assemblies cfg opens.
func NewHost(cfg HostConfig) *AssemblyHost {
	if cfg.Diag == nil {
		cfg.Diag = io.Discard
	}
	return &AssemblyHost{cfg: cfg}
}

// checkFolder refuses a session folder that is not one.
func checkFolder(cwd string) error {
	if fi, err := os.Stat(cwd); err != nil || !fi.IsDir() {
		return fmt.Errorf("cwd %s: no such folder: give the project's folder", cwd)
	}
	return nil
}

// New opens a new session in cwd.
func (h *AssemblyHost) New(ctx context.Context, cwd string, servers []MCPServer) (Session, error) {
	if err := checkFolder(cwd); err != nil {
		return nil, err
	}
	return h.open(ctx, Opening{Cwd: cwd, Servers: servers})
}

// Load opens the session id names, an id under Root or a file, at its
// newest entry.
func (h *AssemblyHost) Load(ctx context.Context, cwd, id string, servers []MCPServer) (Session, error) {
	if err := checkFolder(cwd); err != nil {
		return nil, err
	}
	root, err := h.cfg.Root(cwd)
	if err != nil {
		return nil, err
	}
	path := id
	if !assemble.LooksLikePath(id) {
		if path, err = session.Resolve(root, id); err != nil {
			return nil, fmt.Errorf("session %q: no such session (session/list lists them)", id)
		}
	} else if _, err := os.Stat(id); err != nil {
		return nil, fmt.Errorf("session %q: no such session file", id)
	}
	return h.open(ctx, Opening{Cwd: cwd, File: path, Servers: servers})
}

// open builds a session's Assembly and says its file's warnings.
func (h *AssemblyHost) open(ctx context.Context, o Opening) (*assembled, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	as, err := h.cfg.Open(ctx, o)
	if err != nil {
		return nil, err
	}
	rt := as.Assembly.Runtime()
	for _, w := range rt.Warnings() {
		fmt.Fprintf(h.cfg.Diag, "gopi: warning: %s\n", w)
	}
	return &assembled{host: h, as: as, opening: o, rt: rt}, nil
}

// release closes a session's Assembly.
func (h *AssemblyHost) release(as *Assembled) {
	h.mu.Lock()
	defer h.mu.Unlock()
	as.close()
}

// List lists the sessions of cwd ("": every folder's), titled by their
// names or first prompts; a file that cannot be read is left out.
func (h *AssemblyHost) List(cwd string) ([]Listed, error) {
	infos, err := h.cfg.List(cwd)
	if err != nil {
		return nil, err
	}
	var out []Listed
	for _, in := range infos {
		if l, ok := listed(in); ok {
			out = append(out, l)
		}
	}
	return out, nil
}

// firstPromptChars is how much of a first prompt titles a session.
const firstPromptChars = 60

// listed is the session file in as List says it.
func listed(in session.Info) (Listed, bool) {
	f, err := assemble.GCPaused(func() (*session.File, error) { return session.ReadFile(in.Path) })
	if err != nil {
		return Listed{}, false
	}
	title := session.SessionName(f.Entries)
	for _, e := range f.Entries {
		if title != "" {
			break
		}
		if e.Type == session.TypeMessage && e.Message != nil && e.Message.Role == ai.RoleUser {
			_, title = session.Preview(e, firstPromptChars)
			break
		}
	}
	return Listed{ID: f.Header.ID, Cwd: f.Header.Cwd, Title: title, Updated: in.ModTime}, true
}

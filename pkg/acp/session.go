package acp

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"gopi/pkg/ai"
)

// sess is an open session and its prompt going on.
type sess struct {
	id  string
	cwd string
	s   Session

	mu      sync.Mutex // guards the fields below
	running context.CancelFunc
	done    chan struct{}
	name    string          // the name last told the client
	cost    float64         // US dollars spent on this connection
	ctx     context.Context // the running prompt's
	turn    *turn
	always  map[string]bool // the client's "always" answers, by permissionKey
}

// abort aborts the prompt going on, if any, without waiting: its
// response says when it ended.
func (ss *sess) abort() {
	ss.mu.Lock()
	stop := ss.running
	ss.mu.Unlock()
	if stop != nil {
		stop()
	}
}

// cancel aborts the prompt going on, if any, and waits for it to end.
func (ss *sess) cancel() {
	ss.mu.Lock()
	stop, done := ss.running, ss.done
	ss.mu.Unlock()
	if stop != nil {
		stop()
		<-done
	}
}

func (s *Server) session(id string) (*sess, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if id == "" {
		return nil, paramsErr(`"sessionId" is missing: give the id session/new answered`)
	}
	ss, ok := s.sessions[id]
	if !ok {
		return nil, &rpcError{codeNotFound, fmt.Sprintf("session %q is not open: start one with session/new or open it with session/load", id)}
	}
	return ss, nil
}

// wireMCP is an MCP server as session/new gives it.
type wireMCP struct {
	Type    string    `json:"type"`
	Name    string    `json:"name"`
	Command string    `json:"command"`
	Args    []string  `json:"args"`
	Env     []nameVal `json:"env"`
	URL     string    `json:"url"`
	Headers []nameVal `json:"headers"`
}

type nameVal struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

type setupParams struct {
	SessionID  string    `json:"sessionId"`
	Cwd        string    `json:"cwd"`
	MCPServers []wireMCP `json:"mcpServers"`
}

// servers checks the client's MCP servers.
func (p setupParams) servers() ([]MCPServer, error) {
	var out []MCPServer
	for i, w := range p.MCPServers {
		if strings.TrimSpace(w.Name) == "" {
			return nil, paramsErr(fmt.Sprintf(`mcpServers[%d]: "name" is missing`, i))
		}
		m := MCPServer{Name: w.Name, Command: w.Command, Args: w.Args, URL: w.URL}
		switch w.Type {
		case "", "stdio":
			if w.Command == "" {
				return nil, paramsErr(fmt.Sprintf(`mcpServers[%d] (%s): "command" is missing`, i, w.Name))
			}
			for _, e := range w.Env {
				if m.Env == nil {
					m.Env = map[string]string{}
				}
				m.Env[e.Name] = e.Value
			}
		case "http":
			if w.URL == "" {
				return nil, paramsErr(fmt.Sprintf(`mcpServers[%d] (%s): "url" is missing`, i, w.Name))
			}
			for _, h := range w.Headers {
				if m.Headers == nil {
					m.Headers = map[string]string{}
				}
				m.Headers[h.Name] = h.Value
			}
		default:
			return nil, paramsErr(fmt.Sprintf(`mcpServers[%d] (%s): type %q is not served: give a command (stdio) or "type":"http"`, i, w.Name, w.Type))
		}
		out = append(out, m)
	}
	return out, nil
}

func checkCwd(cwd string) error {
	if cwd == "" {
		return paramsErr(`"cwd" is missing: give the project's folder as an absolute path`)
	}
	if !filepath.IsAbs(cwd) {
		return paramsErr(fmt.Sprintf(`"cwd" %q is not an absolute path: give the project's folder as one`, cwd))
	}
	return nil
}

func (s *Server) newSession(ctx context.Context, decode func(any) error) (any, error) {
	var p setupParams
	if err := decode(&p); err != nil {
		return nil, err
	}
	if err := checkCwd(p.Cwd); err != nil {
		return nil, err
	}
	servers, err := p.servers()
	if err != nil {
		return nil, err
	}
	gs, err := s.host.New(ctx, p.Cwd, servers)
	if err != nil {
		return nil, err
	}
	ss, err := s.add(gs, p.Cwd)
	if err != nil {
		return nil, err
	}
	out := s.setup(ss)
	out["sessionId"] = ss.id
	s.announce(ss)
	return out, nil
}

func (s *Server) loadSession(ctx context.Context, decode func(any) error, replay bool) (any, error) {
	var p setupParams
	if err := decode(&p); err != nil {
		return nil, err
	}
	if p.SessionID == "" {
		return nil, paramsErr(`"sessionId" is missing: give an id session/list answered`)
	}
	if err := checkCwd(p.Cwd); err != nil {
		return nil, err
	}
	servers, err := p.servers()
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	_, open := s.sessions[p.SessionID]
	s.mu.Unlock()
	if open {
		return nil, paramsErr(fmt.Sprintf("session %q is already open on this connection", p.SessionID))
	}
	gs, err := s.host.Load(ctx, p.Cwd, p.SessionID, servers)
	if err != nil {
		return nil, err
	}
	ss, err := s.add(gs, p.Cwd)
	if err != nil {
		return nil, err
	}
	if replay {
		s.replay(ss)
	}
	out := s.setup(ss)
	s.announce(ss)
	return out, nil
}

// add registers an opened session.
func (s *Server) add(gs Session, cwd string) (*sess, error) {
	ss := &sess{id: gs.ID(), cwd: cwd, s: gs}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.sessions[ss.id]; dup {
		gs.Close()
		return nil, paramsErr(fmt.Sprintf("session %q is already open on this connection", ss.id))
	}
	s.sessions[ss.id] = ss
	gs.SetAsk(func(p Permission) bool { return s.askPermission(ss, p) })
	return ss, nil
}

// setup is the part of session/new's and session/load's answers that
// describes the session's options.
func (s *Server) setup(ss *sess) map[string]any {
	return map[string]any{"configOptions": configOptions(ss.s), "modes": modes(ss.s)}
}

// announce tells the client the session's commands and name.
func (s *Server) announce(ss *sess) {
	cmds := []map[string]any{}
	for _, c := range ss.s.Commands() {
		cmds = append(cmds, map[string]any{"name": c.Name, "description": c.Description, "input": map[string]any{"hint": "arguments"}})
	}
	s.update(ss.id, map[string]any{"sessionUpdate": "available_commands_update", "availableCommands": cmds})
	s.nameChanged(ss)
}

// nameChanged sends session_info_update when the name differs from the
// one last sent.
func (s *Server) nameChanged(ss *sess) {
	name := ss.s.Name()
	ss.mu.Lock()
	changed := name != ss.name
	ss.name = name
	ss.mu.Unlock()
	if changed {
		s.update(ss.id, map[string]any{"sessionUpdate": "session_info_update", "title": name,
			"updatedAt": s.opts.Now().UTC().Format(time.RFC3339)})
	}
}

func (s *Server) update(id string, u map[string]any) {
	s.notify("session/update", map[string]any{"sessionId": id, "update": u})
}

func (s *Server) listSessions(decode func(any) error) (any, error) {
	var p struct {
		Cwd    string `json:"cwd"`
		Cursor string `json:"cursor"`
	}
	if err := decode(&p); err != nil {
		return nil, err
	}
	if p.Cwd != "" && !filepath.IsAbs(p.Cwd) {
		return nil, paramsErr(fmt.Sprintf(`"cwd" %q is not an absolute path: give the project's folder as one`, p.Cwd))
	}
	list, err := s.host.List(p.Cwd)
	if err != nil {
		return nil, err
	}
	out := []map[string]any{}
	for _, l := range list {
		e := map[string]any{"sessionId": l.ID, "cwd": l.Cwd, "updatedAt": l.Updated.UTC().Format(time.RFC3339)}
		if l.Title != "" {
			e["title"] = l.Title
		}
		out = append(out, e)
	}
	return map[string]any{"sessions": out}, nil
}

func (s *Server) closeSession(decode func(any) error) (any, error) {
	var p struct {
		SessionID string `json:"sessionId"`
	}
	if err := decode(&p); err != nil {
		return nil, err
	}
	ss, err := s.session(p.SessionID)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	delete(s.sessions, ss.id)
	s.mu.Unlock()
	ss.cancel()
	ss.s.Close()
	return nil, nil
}

// configOptions are the model and the thinking level.
func configOptions(gs Session) []map[string]any {
	cur := gs.Model()
	var models []map[string]any
	for _, m := range gs.Models() {
		name := m.Name
		if name == "" {
			name = m.ID
		}
		models = append(models, map[string]any{"value": m.Provider + "/" + m.ID, "name": name, "description": m.Provider})
	}
	var levels []map[string]any
	for _, l := range ai.ThinkingLevels {
		levels = append(levels, map[string]any{"value": string(l), "name": string(l)})
	}
	thinking := gs.Thinking()
	if thinking == "" {
		thinking = ai.ThinkingOff
	}
	return []map[string]any{
		{"id": "model", "name": "Model", "category": "model", "type": "select", "currentValue": cur.Provider + "/" + cur.ID, "options": models},
		{"id": "thinking", "name": "Thinking", "category": "thought_level", "type": "select", "currentValue": string(thinking), "options": levels},
	}
}

// modeName describes a sandbox mode: its name and description.
func modeName(m string) [2]string {
	return map[string][2]string{
		"read-only":       {"Read only", "Commands and tools may read, not write (sandbox read-only)"},
		"workspace-write": {"Workspace write", "Writes inside the project's folder only (sandbox workspace-write)"},
		"off":             {"No sandbox", "Commands run without a sandbox"},
	}[m]
}

// modes are the sandbox modes.
func modes(gs Session) map[string]any {
	var avail []map[string]any
	for _, m := range gs.Sandboxes() {
		n := modeName(m)
		if n[0] == "" {
			n = [2]string{m, ""}
		}
		avail = append(avail, map[string]any{"id": m, "name": n[0], "description": n[1]})
	}
	return map[string]any{"currentModeId": gs.Sandbox(), "availableModes": avail}
}

func (s *Server) setConfigOption(decode func(any) error) (any, error) {
	var p struct {
		SessionID string `json:"sessionId"`
		ConfigID  string `json:"configId"`
		Value     any    `json:"value"`
	}
	if err := decode(&p); err != nil {
		return nil, err
	}
	ss, err := s.session(p.SessionID)
	if err != nil {
		return nil, err
	}
	v, ok := p.Value.(string)
	if !ok {
		return nil, paramsErr(fmt.Sprintf(`"value" of %q must be a string`, p.ConfigID))
	}
	if err := ss.idle(); err != nil {
		return nil, err
	}
	switch p.ConfigID {
	case "model":
		ok := false
		for _, m := range ss.s.Models() {
			ok = ok || m.Provider+"/"+m.ID == v
		}
		if !ok {
			return nil, paramsErr(fmt.Sprintf("model %q is not one gopi offers here: pick one of the model option's values", v))
		}
		err = ss.s.SetModel(v)
	case "thinking":
		if !slices.Contains(ai.ThinkingLevels, ai.ThinkingLevel(v)) {
			return nil, paramsErr(fmt.Sprintf("thinking level %q: use off, minimal, low, medium, high or xhigh", v))
		}
		err = ss.s.SetThinking(ai.ThinkingLevel(v))
	default:
		return nil, paramsErr(fmt.Sprintf("unknown config option %q: gopi has model and thinking", p.ConfigID))
	}
	if err != nil {
		return nil, paramsErr(err.Error())
	}
	return map[string]any{"configOptions": configOptions(ss.s)}, nil
}

func (s *Server) setMode(decode func(any) error) (any, error) {
	var p struct {
		SessionID string `json:"sessionId"`
		ModeID    string `json:"modeId"`
	}
	if err := decode(&p); err != nil {
		return nil, err
	}
	ss, err := s.session(p.SessionID)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(ss.s.Sandboxes(), p.ModeID) {
		return nil, paramsErr(fmt.Sprintf("mode %q: use one of %s", p.ModeID, strings.Join(ss.s.Sandboxes(), ", ")))
	}
	if err := ss.idle(); err != nil {
		return nil, err
	}
	if err := ss.s.SetSandbox(p.ModeID); err != nil {
		return nil, paramsErr(err.Error())
	}
	s.update(ss.id, map[string]any{"sessionUpdate": "current_mode_update", "currentModeId": ss.s.Sandbox()})
	return nil, nil
}

// errBusy refuses what needs the session idle.
func busyErr(id string) error {
	return &rpcError{codeInvalidRequest, fmt.Sprintf("session %q is answering a prompt: wait for its response, or send session/cancel first", id)}
}

func (ss *sess) idle() error {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.running != nil {
		return busyErr(ss.id)
	}
	return nil
}

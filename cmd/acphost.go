package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/spf13/cobra"

	"gopi/internal/buildinfo"
	"gopi/pkg/acp"
	"gopi/pkg/agent"
	"gopi/pkg/ai"
	"gopi/pkg/chat"
	"gopi/pkg/exitcode"
	"gopi/pkg/loop"
	"gopi/pkg/mcp"
	"gopi/pkg/runtime"
	"gopi/pkg/sandbox"
	"gopi/pkg/session"
)

// acpOptions are gopi acp's flags: the agent's. json is run's --json
// with --mode acp, which is refused.
type acpOptions struct {
	agentOptions
	json bool
}

// newACPCmd is gopi acp; runF, when not nil, is called with the options
// in place of running (tests).
func newACPCmd(sys *System, runF func(*cobra.Command, *acpOptions) error) *cobra.Command {
	o := &acpOptions{}
	c := &cobra.Command{
		Use:   "acp [flags]",
		Short: "Serve the Agent Client Protocol on stdin and stdout (Zed, JetBrains and other editors)",
		Long: `Speak the Agent Client Protocol (version 1): JSON-RPC 2.0 messages, one per line, on
stdin and stdout, as editors start coding agents. Each session/new is a gopi session in
the folder the editor names, with that folder's settings, resources and hooks, as gopi
run would have them there, and the MCP servers the editor passes started beside the
settings' own. session/load opens a session by id (session/list lists them) or by its
file, gopi's or pi's, and replays it; session/prompt streams the answer as session/update
notifications; session/cancel aborts a prompt as SIGINT aborts a run. The model and the
thinking level are the session's config options, the sandbox mode its mode.

API keys come from the environment and settings, as for every gopi run; the flags are
gopi run's and apply to every session. Diagnostics go to stderr. Closing stdin cancels
every prompt, keeps what they reached and exits 0. gopi run --mode acp is the same.`,
		Example: `  gopi acp
  gopi acp --provider anthropic --model claude-sonnet-4-5`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if runF != nil {
				return runF(c, o)
			}
			return runACP(c.Context(), sys, c, o)
		},
	}
	o.agentOptions.AddFlags(c.Flags())
	registerAgentCompletions(c, sys)
	return c
}

// runACP serves ACP until stdin ends or a signal arrives.
func runACP(ctx context.Context, sys *System, c *cobra.Command, o *acpOptions) error {
	ctx, untrap := trapSignals(ctx, sys)
	defer untrap()
	if err := checkConflicts(c.Flags()); err != nil {
		return err
	}
	if len(o.args) > 0 {
		return usageErr("acp mode takes no prompt arguments: the editor sends them (session/prompt)")
	}
	if o.json {
		return usageErr("--json and --mode acp ask for different outputs: give one of them")
	}
	for _, f := range []string{"session", "continue", "fork", "session-id", "leaf"} {
		if c.Flags().Changed(f) {
			return usageErr("--%s: in acp mode the editor chooses the session (session/new, session/load)", f)
		}
	}
	host := &acpHost{sys: sys, c: c, o: &o.agentOptions}
	srv := acp.NewServer(sys.Stdout, host, acp.Options{Version: buildinfo.Read().Version, Diag: sys.Stderr, Now: sys.Now})
	if err := srv.Serve(ctx, sys.Stdin); err != nil {
		fmt.Fprintf(sys.Stderr, "gopi: writing the output failed: %v\n", err)
		return &reported{code: exitcode.Internal}
	}
	if ctx.Err() != nil {
		return &reported{code: exitcode.Interrupted}
	}
	return nil
}

// acpHost opens ACP's sessions, each a host (its Assembly) of its own
// folder. Opening is one at a time: the settings are read through the
// command's flags.
type acpHost struct {
	sys *System
	c   *cobra.Command
	o   *agentOptions

	mu sync.Mutex
}

// checkFolder refuses a session folder that is not one, in the
// protocol's words (gopi run's would name --cwd).
func checkFolder(cwd string) error {
	if fi, err := os.Stat(cwd); err != nil || !fi.IsDir() {
		return fmt.Errorf("cwd %s: no such folder: give the project's folder", cwd)
	}
	return nil
}

func (a *acpHost) New(ctx context.Context, cwd string, servers []acp.MCPServer) (acp.Session, error) {
	if err := checkFolder(cwd); err != nil {
		return nil, err
	}
	o := *a.o
	o.cwd = cwd
	return a.open(ctx, &o, servers, "")
}

func (a *acpHost) Load(ctx context.Context, cwd, id string, servers []acp.MCPServer) (acp.Session, error) {
	if err := checkFolder(cwd); err != nil {
		return nil, err
	}
	root, _, err := sessionEnv(a.sys, cwd)
	if err != nil {
		return nil, err
	}
	path := id
	if !looksLikePath(id) {
		if path, err = session.Resolve(root, id); err != nil {
			return nil, fmt.Errorf("session %q: no such session (session/list lists them)", id)
		}
	} else if _, err := os.Stat(id); err != nil {
		return nil, fmt.Errorf("session %q: no such session file", id)
	}
	o := *a.o
	o.cwd, o.session, o.cont = cwd, path, true
	return a.open(ctx, &o, servers, "")
}

// open builds a session's host; sandbox, when given, replaces the
// sandbox mode of the flags and settings.
func (a *acpHost) open(ctx context.Context, o *agentOptions, servers []acp.MCPServer, sandboxMode string) (*acpSession, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	want := *o
	if sandboxMode != "" {
		want.sandbox = setString{v: sandboxMode, set: true}
	}
	more := make([]mcp.Server, 0, len(servers))
	for _, s := range servers {
		more = append(more, mcp.Server{Name: s.Name, Command: s.Command, Args: s.Args, Env: s.Env, URL: s.URL,
			Headers: s.Headers, Cwd: o.cwd, Source: "the editor's session"})
	}
	h, err := openHost(ctx, a.sys, a.c, &chatOptions{agentOptions: want, moreMCP: more})
	if err != nil {
		return nil, err
	}
	for _, w := range h.a.Runtime().Warnings() {
		fmt.Fprintf(a.sys.Stderr, "gopi: warning: %s\n", w)
	}
	return &acpSession{host: a, h: h, o: *o, servers: servers, rpc: &rpcHost{h: h, sys: a.sys}, rt: h.a.Runtime()}, nil
}

func (a *acpHost) List(cwd string) ([]acp.Listed, error) {
	root, dir, err := sessionEnv(a.sys, cwd)
	if err != nil {
		return nil, err
	}
	infos, err := listSessions(root, dir, cwd == "")
	if err != nil {
		return nil, err
	}
	var out []acp.Listed
	for _, in := range infos {
		s, ok := summarize(in)
		if !ok {
			continue
		}
		title := s.Name
		if title == "" {
			title = s.FirstPrompt
		}
		out = append(out, acp.Listed{ID: s.ID, Cwd: s.Cwd, Title: title, Updated: in.ModTime})
	}
	return out, nil
}

// acpSession is one ACP session: a host and its current Runtime.
type acpSession struct {
	host    *acpHost
	h       *host
	o       agentOptions
	servers []acp.MCPServer // the client's
	rpc     *rpcHost

	mu  sync.Mutex
	rt  *runtime.Runtime
	ask func(acp.Permission) bool
}

func (s *acpSession) runtime() *runtime.Runtime {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rt
}

func (s *acpSession) ID() string            { return s.runtime().Session().Header().ID }
func (s *acpSession) Path() []session.Entry { return s.runtime().Path() }
func (s *acpSession) Name() string          { return s.runtime().Name() }
func (s *acpSession) Model() ai.Info        { return s.h.a.Model().Info }
func (s *acpSession) Thinking() ai.ThinkingLevel {
	return s.h.a.Thinking()
}

// Prompt runs msgs on the current Runtime, its events to on; ctx's end
// aborts the run.
func (s *acpSession) Prompt(ctx context.Context, msgs []ai.Message, on func(loop.Event)) (runtime.Result, error) {
	rt := s.runtime()
	unsub := rt.Control().Subscribe(func(e agent.Event) { on(e.Event) }, agent.Except(agent.RunEnd))
	defer unsub()
	stop := context.AfterFunc(ctx, rt.Control().Abort)
	defer stop()
	return rt.Prompt(ctx, msgs...)
}

func (s *acpSession) Models() []ai.Info {
	s.host.mu.Lock()
	defer s.host.mu.Unlock()
	return s.rpc.Models()
}

// swap makes rt the session's Runtime and releases the previous one.
func (s *acpSession) swap(o chat.Opened) {
	s.mu.Lock()
	old := s.rt
	s.rt = o.Runtime
	s.mu.Unlock()
	if old != o.Runtime {
		_ = old.Dispose(context.Background())
	}
}

func (s *acpSession) SetModel(ref string) error {
	s.host.mu.Lock()
	defer s.host.mu.Unlock()
	o, err := s.h.openChat(chat.Want{Leaf: s.runtime().Leaf(), Model: ref, Thinking: s.h.a.Thinking()})
	if err != nil {
		return err
	}
	s.swap(o)
	return nil
}

func (s *acpSession) SetThinking(l ai.ThinkingLevel) error {
	s.host.mu.Lock()
	defer s.host.mu.Unlock()
	o, err := s.h.openChat(chat.Want{Leaf: s.runtime().Leaf(), Thinking: l})
	if err != nil {
		return err
	}
	s.swap(o)
	return nil
}

func (s *acpSession) Sandbox() string { return string(s.h.a.Guard().Policy().Mode) }

func (s *acpSession) Sandboxes() []string {
	return []string{string(sandbox.ReadOnly), string(sandbox.WorkspaceWrite), string(sandbox.Off)}
}

// SetSandbox opens the session again under another sandbox mode: the
// sandbox is the Assembly's, so the session is continued by a new one
// from its newest entry, with the same model and thinking level.
func (s *acpSession) SetSandbox(m string) error {
	if m == s.Sandbox() {
		return nil
	}
	file := s.h.a.File()
	if file == "" {
		return errors.New("the sandbox mode of a session kept nowhere (--no-session) cannot change: start a new session")
	}
	model, thinking := s.Model(), s.Thinking()
	old := s.h
	rt := s.runtime()
	_ = rt.Dispose(context.Background())
	s.host.mu.Lock()
	s.host.releaseLocked(old)
	s.host.mu.Unlock()
	o := s.o
	o.session, o.cont = file, true
	ns, err := s.host.open(context.Background(), &o, s.servers, m)
	if err != nil {
		// The session was released: open it again as it was.
		back, berr := s.host.open(context.Background(), &o, s.servers, "")
		if berr == nil {
			s.adopt(back)
		}
		return err
	}
	s.adopt(ns)
	if cur := s.Model(); cur.Provider != model.Provider || cur.ID != model.ID {
		_ = s.SetModel(model.Provider + "/" + model.ID)
	}
	if s.Thinking() != thinking {
		_ = s.SetThinking(thinking)
	}
	return nil
}

func (s *acpSession) adopt(n *acpSession) {
	s.mu.Lock()
	s.h, s.rpc, s.rt = n.h, n.rpc, n.rt
	s.mu.Unlock()
	s.applyAsk()
}

// SetAsk asks ask about every call the permission rules refuse.
func (s *acpSession) SetAsk(ask func(acp.Permission) bool) {
	s.mu.Lock()
	s.ask = ask
	s.mu.Unlock()
	s.applyAsk()
}

func (s *acpSession) applyAsk() {
	s.mu.Lock()
	ask, g := s.ask, s.h.a.Guard()
	s.mu.Unlock()
	if ask == nil {
		g.SetAsk(nil)
		return
	}
	g.SetAsk(func(d sandbox.Denial) bool {
		return ask(acp.Permission{Tool: d.Tool, Operation: d.Operation, Target: d.Target, Rule: d.Rule})
	})
}

func (s *acpSession) Commands() []acp.Command {
	var out []acp.Command
	for _, c := range s.rpc.Commands() {
		out = append(out, acp.Command{Name: c.Name, Description: c.Description})
	}
	return out
}

// Expand expands a template or skill within the prompt size limit
// (--max-prompt-bytes, as gopi run).
func (s *acpSession) Expand(text string) (string, error) {
	return s.h.a.Catalog().ExpandWithin(text, s.h.set.MaxPromptBytes)
}

// Close releases the Runtime, the session's MCP servers and its store.
func (s *acpSession) Close() {
	_ = s.runtime().Dispose(context.Background())
	s.host.mu.Lock()
	defer s.host.mu.Unlock()
	s.host.releaseLocked(s.h)
}

// releaseLocked closes a session's host; a.mu is held.
func (a *acpHost) releaseLocked(h *host) {
	h.close()
}

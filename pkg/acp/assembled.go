package acp

import (
	"context"
	"errors"
	"sync"

	"gopi/pkg/agent"
	"gopi/pkg/ai"
	"gopi/pkg/assemble"
	"gopi/pkg/loop"
	"gopi/pkg/runtime"
	"gopi/pkg/sandbox"
	"gopi/pkg/session"
)

// assembled is one session of an AssemblyHost: its Assembly and the
// current Runtime.
type assembled struct {
	host    *AssemblyHost
	opening Opening // what the Assembly was opened with

	mu  sync.Mutex // guards the fields below
	as  *Assembled
	rt  *runtime.Runtime
	ask func(Permission) bool
}

func (s *assembled) runtime() *runtime.Runtime {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rt
}

// current is the session's Assembly and what came with it.
func (s *assembled) current() *Assembled {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.as
}

func (s *assembled) assembly() *assemble.Assembly { return s.current().Assembly }

func (s *assembled) ID() string                 { return s.runtime().Session().Header().ID }
func (s *assembled) Path() []session.Entry      { return s.runtime().Path() }
func (s *assembled) Name() string               { return s.runtime().Name() }
func (s *assembled) Model() ai.Info             { return s.assembly().Model().Info }
func (s *assembled) Thinking() ai.ThinkingLevel { return s.assembly().Thinking() }

// Prompt runs msgs on the current Runtime, its events to on; ctx's end
// aborts the run.
func (s *assembled) Prompt(ctx context.Context, msgs []ai.Message, on func(loop.Event)) (runtime.Result, error) {
	rt := s.runtime()
	unsub := rt.Control().Subscribe(func(e agent.Event) { on(e.Event) }, agent.Except(agent.RunEnd))
	defer unsub()
	stop := context.AfterFunc(ctx, rt.Control().Abort)
	defer stop()
	return rt.Prompt(ctx, msgs...)
}

// Models are the current model, the catalog's models of its provider and
// the models the session folder's settings declare.
func (s *assembled) Models() []ai.Info {
	s.host.mu.Lock()
	defer s.host.mu.Unlock()
	return s.assembly().Models()
}

// reopen builds a Runtime for w and makes it the session's, releasing
// the previous one.
func (s *assembled) reopen(w assemble.Want) error {
	s.host.mu.Lock()
	defer s.host.mu.Unlock()
	a := s.assembly()
	w.Leaf = s.runtime().Leaf()
	rt, err := a.Reopen(w)
	if err != nil {
		return err
	}
	s.mu.Lock()
	old := s.rt
	s.rt = rt
	s.mu.Unlock()
	if old != rt {
		_ = old.Dispose(context.Background())
	}
	return nil
}

func (s *assembled) SetModel(ref string) error {
	return s.reopen(assemble.Want{ModelRef: ref, Thinking: s.Thinking()})
}

func (s *assembled) SetThinking(l ai.ThinkingLevel) error {
	return s.reopen(assemble.Want{Thinking: l})
}

func (s *assembled) Sandbox() string { return string(s.assembly().Guard().Policy().Mode) }

func (s *assembled) Sandboxes() []string {
	return []string{string(sandbox.ReadOnly), string(sandbox.WorkspaceWrite), string(sandbox.Off)}
}

// SetSandbox opens the session again under another sandbox mode: the
// sandbox is the Assembly's, so the session is continued by a new one
// from its newest entry, with the same model and thinking level.
func (s *assembled) SetSandbox(m string) error {
	if m == s.Sandbox() {
		return nil
	}
	file := s.assembly().File()
	if file == "" {
		return errors.New("the sandbox mode of a session kept nowhere (--no-session) cannot change: start a new session")
	}
	model, thinking := s.Model(), s.Thinking()
	s.mu.Lock()
	old, rt, was := s.as, s.rt, s.opening
	s.mu.Unlock()
	_ = rt.Dispose(context.Background())
	s.host.release(old)
	was.File, was.Sandbox = file, ""
	want := was
	want.Sandbox = m
	ns, err := s.host.open(context.Background(), want)
	if err != nil {
		// The session was released: open it again as it was.
		if back, berr := s.host.open(context.Background(), was); berr == nil {
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

// adopt takes n's Assembly and Runtime as the session's own.
func (s *assembled) adopt(n *assembled) {
	s.mu.Lock()
	s.as, s.rt, s.opening = n.as, n.rt, n.opening
	s.mu.Unlock()
	s.applyAsk()
}

// SetAsk asks ask about every call the permission rules refuse.
func (s *assembled) SetAsk(ask func(Permission) bool) {
	s.mu.Lock()
	s.ask = ask
	s.mu.Unlock()
	s.applyAsk()
}

func (s *assembled) applyAsk() {
	s.mu.Lock()
	ask, g := s.ask, s.as.Assembly.Guard()
	s.mu.Unlock()
	if ask == nil {
		g.SetAsk(nil)
		return
	}
	g.SetAsk(func(d sandbox.Denial) bool {
		return ask(Permission{Tool: d.Tool, Operation: d.Operation, Target: d.Target, Rule: d.Rule})
	})
}

// Commands are the prompt templates and skills.
func (s *assembled) Commands() []Command {
	cat := s.current().Catalog
	if cat == nil {
		return nil
	}
	var out []Command
	for _, t := range cat.Templates {
		out = append(out, Command{Name: t.Name, Description: t.Description})
	}
	for _, sk := range cat.Skills {
		out = append(out, Command{Name: "skill:" + sk.Name, Description: sk.Description})
	}
	return out
}

// Expand expands a template or skill within the prompt size limit
// (--max-prompt-bytes, as gopi run).
func (s *assembled) Expand(text string) (string, error) {
	as := s.current()
	if as.Catalog == nil {
		return text, nil
	}
	return as.Catalog.ExpandWithin(text, as.MaxPrompt)
}

// Close releases the Runtime, the session's MCP servers and its store.
func (s *assembled) Close() {
	_ = s.runtime().Dispose(context.Background())
	s.host.release(s.current())
}

package rpc

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"gopi/pkg/ai"
	"gopi/pkg/session"
)

// reopen asks the host for another Runtime. As pi: another session
// (new, switched to, forked, cloned) ends what is going on first; a model
// or thinking level asked for during a run is the run's from its end
// (pending), said at once; while idle the switch is recorded at once.
func (r *Server) reopen(w Want) (Opened, error) {
	if op := r.busy(); op != nil {
		switch {
		case w.NewSession:
			r.abortOp()
		case op.compact:
			return Opened{}, errBusy
		default:
			return r.later(w)
		}
	}
	if w.Thinking == "" {
		w.Thinking = r.level()
	}
	o, err := r.host.Open(w)
	if err != nil {
		return Opened{}, err
	}
	r.swap(o)
	if !w.NewSession {
		if err := o.Runtime.RecordSettings(context.Background()); err != nil {
			return o, err
		}
	}
	return o, nil
}

// later switches the run going on to the model or thinking level w asks
// for, from its next request on, as pi does (the switch is recorded at
// once), and keeps w for the Runtime built when the run ends; the Opened
// it returns describes the model asked for.
func (r *Server) later(w Want) (Opened, error) {
	cur, _ := r.current()
	o := Opened{Runtime: cur.Runtime, Model: cur.Model, File: cur.File, Thinking: w.Thinking}
	var model ai.Model
	if w.Model != "" {
		prov, id, _ := strings.Cut(w.Model, "/")
		if !slices.ContainsFunc(r.host.Models(), func(m ai.Info) bool { return m.Provider == prov && m.ID == id }) {
			return Opened{}, fmt.Errorf("Model not found: %s", w.Model)
		}
		var err error
		if model, o.Model, err = r.host.Model(prov, id); err != nil {
			return Opened{}, err
		}
	} else if p := r.pendingInfo(); p != nil {
		o.Model = *p
	}
	level := cmp.Or(w.Thinking, r.level())
	if !o.Model.Reasoning {
		level = ai.ThinkingOff
	}
	// Under r.mu, so that the run's end (applyPending) finds the switch
	// and the Want for the Runtime after the run together.
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := cur.Runtime.SetModel(model, o.Model, level); err != nil {
		return Opened{}, err
	}
	if r.pending == nil {
		r.pending = &Want{}
	}
	if w.Model != "" {
		r.pending.Model = w.Model
		m := o.Model
		r.pendingModel = &m
	}
	if w.Thinking != "" {
		r.pending.Thinking = w.Thinking
	}
	o.Thinking, r.thinking = level, level
	return o, nil
}

// pendingInfo is the model asked for during the run going on, or nil.
func (r *Server) pendingInfo() *ai.Info {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.pendingModel
}

// abortOp ends the run or compaction going on and waits
// for it; queued prompts are dropped.
func (r *Server) abortOp() {
	r.mu.Lock()
	op := r.op
	r.next = nil
	r.mu.Unlock()
	if op != nil {
		// As abort: a client that stopped reading does not keep the
		// run from ending.
		r.bound(true)
		op.cancel()
		op.rt.Control().Abort()
		<-op.done
		r.bound(false)
	}
}

// atLeaf is a Want for the current session at its current leaf.
func (r *Server) atLeaf() Want {
	cur, _ := r.current()
	return Want{Leaf: cur.Runtime.Leaf()}
}

func (r *Server) cmdNewSession(_ context.Context, c *rpcCommand) (any, error) {
	w := Want{NewSession: true}
	if c.ParentSession != nil {
		w.Parent = *c.ParentSession
	}
	if _, err := r.reopen(w); err != nil {
		return nil, err
	}
	return notCancelled, nil
}

func (r *Server) cmdExport(_ context.Context, c *rpcCommand) (any, error) {
	cur, _ := r.current()
	path, err := r.host.Export(cur.Runtime.Session(), cur.File, c.OutputPath)
	if err != nil {
		return nil, err
	}
	return map[string]string{"path": path}, nil
}

func (r *Server) cmdSwitch(_ context.Context, c *rpcCommand) (any, error) {
	path, err := need(c.SessionPath, "sessionPath")
	if err != nil {
		return nil, err
	}
	if _, err := r.reopen(Want{NewSession: true, Session: path}); err != nil {
		return nil, err
	}
	return notCancelled, nil
}

// forkable refuses a fork or clone of a session with nothing in its file.
func (r *Server) forkable() (Opened, error) {
	cur, _ := r.current()
	if cur.File == "" {
		return cur, errors.New("this session is kept in memory only (--no-session): there is no file to fork")
	}
	if len(cur.Runtime.Session().Entries()) == 0 {
		return cur, errors.New("This session has not been saved yet. Send a message before cloning or forking it.")
	}
	return cur, nil
}

// cmdFork starts a new session from before a user message of the
// session and answers with that message's text, as pi does.
func (r *Server) cmdFork(_ context.Context, c *rpcCommand) (any, error) {
	id, err := need(c.EntryID, "entryId")
	if err != nil {
		return nil, err
	}
	cur, _ := r.current()
	var target *session.Entry
	for _, e := range cur.Runtime.Session().Entries() {
		if e.ID == id && e.Type == session.TypeMessage && e.Message != nil && e.Message.Role == ai.RoleUser {
			target = &e
			break
		}
	}
	if target == nil {
		return nil, errors.New("Invalid entry ID for forking")
	}
	if _, err := r.forkable(); err != nil {
		return nil, err
	}
	// Before the first message the new session is empty, its parent this one.
	if _, err := r.reopen(Want{NewSession: true, Fork: true, Leaf: target.Parent()}); err != nil {
		return nil, err
	}
	return struct {
		Text      string `json:"text"`
		Cancelled bool   `json:"cancelled"`
	}{target.Message.Text(), false}, nil
}

func (r *Server) cmdClone(_ context.Context, _ *rpcCommand) (any, error) {
	cur, err := r.forkable()
	if err != nil {
		return nil, err
	}
	leaf := cur.Runtime.Leaf()
	if leaf == "" {
		return nil, errors.New("Cannot clone session: no current entry selected")
	}
	if _, err := r.reopen(Want{NewSession: true, Fork: true, Leaf: leaf}); err != nil {
		return nil, err
	}
	return notCancelled, nil
}

func (r *Server) cmdForkMessages(_ context.Context, _ *rpcCommand) (any, error) {
	cur, _ := r.current()
	type forkMsg struct {
		EntryID string `json:"entryId"`
		Text    string `json:"text"`
	}
	out := []forkMsg{}
	for _, e := range cur.Runtime.Path() {
		if e.Type == session.TypeMessage && e.Message != nil && e.Message.Role == ai.RoleUser {
			out = append(out, forkMsg{e.ID, e.Message.Text()})
		}
	}
	return map[string]any{"messages": out}, nil
}

func (r *Server) cmdEntries(_ context.Context, c *rpcCommand) (any, error) {
	cur, _ := r.current()
	entries := cur.Runtime.Session().Entries()
	if c.Since != nil {
		i := slices.IndexFunc(entries, func(e session.Entry) bool { return e.ID == *c.Since })
		if i < 0 {
			return nil, fmt.Errorf("Entry not found: %s", *c.Since)
		}
		entries = entries[i+1:]
	}
	if entries == nil {
		entries = []session.Entry{}
	}
	return struct {
		Entries []session.Entry `json:"entries"`
		LeafID  *string         `json:"leafId"`
	}{entries, session.Ref(cur.Runtime.Leaf())}, nil
}

// treeNode is a node of get_tree.
type treeNode struct {
	Entry          session.Entry `json:"entry"`
	Children       []*treeNode   `json:"children"`
	Label          *string       `json:"label,omitempty"`
	LabelTimestamp string        `json:"labelTimestamp,omitempty"`
}

func (r *Server) cmdTree(_ context.Context, _ *rpcCommand) (any, error) {
	cur, _ := r.current()
	return struct {
		Tree   []*treeNode `json:"tree"`
		LeafID *string     `json:"leafId"`
	}{buildRPCTree(cur.Runtime.Session().Entries()), session.Ref(cur.Runtime.Leaf())}, nil
}

// buildRPCTree arranges entries as pi's getTree does: session.Tree's
// roots and children, labels on their target.
func buildRPCTree(entries []session.Entry) []*treeNode {
	t := session.NewTree(entries)
	nodes := make([]*treeNode, len(entries))
	byID := make(map[string]*treeNode, len(entries))
	for i, e := range entries {
		nodes[i] = &treeNode{Entry: e, Children: []*treeNode{}}
		byID[e.ID] = nodes[i]
	}
	for i, n := range nodes {
		for _, c := range t.Children(i) {
			n.Children = append(n.Children, nodes[c])
		}
		if e := entries[i]; e.Type == session.TypeLabel {
			if target, ok := byID[e.TargetID]; ok {
				target.Label, target.LabelTimestamp = e.Label, e.Timestamp
				if e.Label == nil {
					target.LabelTimestamp = ""
				}
			}
		}
	}
	roots := make([]*treeNode, 0, len(t.Roots))
	for _, r := range t.Roots {
		roots = append(roots, nodes[r])
	}
	return roots
}

func (r *Server) cmdLastText(_ context.Context, _ *rpcCommand) (any, error) {
	cur, _ := r.current()
	msgs := cur.Runtime.Messages()
	for i := len(msgs) - 1; i >= 0; i-- {
		if m := msgs[i]; m.Role == ai.RoleAssistant {
			if t := m.Text(); strings.TrimSpace(t) != "" {
				return map[string]any{"text": t}, nil
			}
		}
	}
	return map[string]any{"text": nil}, nil
}

// cmdSetName records the name at once, also during a run, as pi does.
func (r *Server) cmdSetName(_ context.Context, c *rpcCommand) (any, error) {
	name, err := need(c.Name, "name")
	if err != nil {
		return nil, err
	}
	name = strings.TrimSpace(name)
	if name == "" {
		return nil, errors.New("Session name cannot be empty")
	}
	cur, _ := r.current()
	if _, err := cur.Runtime.SetName(context.Background(), name); err != nil {
		return nil, err
	}
	r.notice("session_info_changed", "name", name)
	return nil, nil
}

func (r *Server) cmdCommands(_ context.Context, _ *rpcCommand) (any, error) {
	cmds := r.host.Commands()
	if cmds == nil {
		cmds = []Command{}
	}
	return map[string]any{"commands": cmds}, nil
}

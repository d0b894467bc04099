package assemble

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"gopi/pkg/agent"
	"gopi/pkg/ai"
	"gopi/pkg/loop"
	"gopi/pkg/resources"
	"gopi/pkg/runtime"
	"gopi/pkg/session"
	"gopi/pkg/tools"
)

// SubagentSettings configure the task tool's child runs.
type SubagentSettings struct {
	// MaxConcurrency bounds the children of one run at once; 0 means
	// tools.DefaultTaskConcurrency.
	MaxConcurrency int
	// MaxDepth bounds how deep children nest: 1 (the default, for 0)
	// gives children no task tool.
	MaxDepth int
	// Agents are the defined agents the model may choose; each one's
	// Prompt is its child's whole system prompt (Catalog.AgentPrompt:
	// the body with the project's context).
	Agents []resources.Agent
	// SystemPrompt is a general child's system prompt: the parent's
	// without what only the parent's answer needs (an output schema);
	// "" for the parent's.
	SystemPrompt string
	// NoTask: --exclude-tools names the task tool, so defined agents do
	// not add it.
	NoTask bool
}

func (s SubagentSettings) maxDepth() int {
	if s.MaxDepth <= 0 {
		return 1
	}
	return s.MaxDepth
}

// childOf is what a child Assembly knows of its parent.
type childOf struct {
	depth      int
	tree       *runtime.Tree
	changes    *tools.Changes // the parent's: its result lists what children changed
	parentFile string
	parentCall string
}

// ChildDetails are the details of a task call's result: where the child
// run is recorded, so `gopi run --session SESSION --leaf LEAF` continues it.
type ChildDetails struct {
	Agent     string      `json:"agent,omitempty"`
	Session   string      `json:"session,omitempty"` // the child's session file; "" without one
	SessionID string      `json:"sessionId"`
	Leaf      string      `json:"leaf"`
	Reason    loop.Reason `json:"reason"`
	Usage     ai.Usage    `json:"usage"`
	// Warnings are what is wrong with the agent's file (a tool it names
	// that this run has not), also said on stderr and to the model.
	Warnings []string `json:"warnings,omitempty"`
}

// ChildEvent is the details of the tool_execution_update that carries one
// of a child run's events: the parent's tool call id is the update's,
// the child's session id is SessionID, and Event is the child's event as
// events output writes it.
type ChildEvent struct {
	Subagent struct {
		SessionID string `json:"sessionId"`
		Agent     string `json:"agent,omitempty"`
	} `json:"subagent"`
	Event json.RawMessage `json:"event"`
}

// taskTool is the task tool of a Runtime built on store, or nil when the
// settings do not offer it or the depth is reached.
func (a *Assembly) taskTool(store session.Store) tools.Tool {
	s := &a.s
	if !slices.Contains(s.Tools, tools.TaskName) || a.parent.depth >= s.Subagents.maxDepth() {
		return nil
	}
	file := ""
	if fs, ok := store.(interface{ Path() string }); ok {
		file = fs.Path()
	}
	var offered []tools.TaskAgent
	for _, ag := range s.Subagents.Agents {
		offered = append(offered, tools.TaskAgent{Name: ag.Name, Description: ag.Description})
	}
	return tools.NewTask(tools.TaskOptions{Agents: offered, MaxConcurrency: s.Subagents.MaxConcurrency,
		Run: func(ctx context.Context, call tools.Call, args tools.TaskArgs) (tools.Result, error) {
			return a.runChild(ctx, store, file, call, args)
		}})
}

// runChild runs one child to its end (or ctx's) and returns its final
// answer as the task call's result.
func (a *Assembly) runChild(ctx context.Context, parentStore session.Store, parentFile string, call tools.Call, args tools.TaskArgs) (tools.Result, error) {
	depth := a.parent.depth + 1
	s := a.childSettings(parentFile, depth)
	choice, thinking := a.choice, a.thinking
	var def *resources.Agent
	var notes []string
	if args.Agent != "" {
		i := slices.IndexFunc(s.Subagents.Agents, func(x resources.Agent) bool { return x.Name == args.Agent })
		if i < 0 {
			return tools.ErrorResult(fmt.Sprintf("Unknown agent %q.", args.Agent)), nil
		}
		def = &s.Subagents.Agents[i]
		notes = a.warnAgentTools(def, true)
		var refusal string
		if choice, thinking, refusal = a.applyAgent(&s, def, choice, thinking); refusal != "" {
			return tools.ErrorResult(refusal), nil
		}
	}
	child := &Assembly{s: s, env: a.env, choice: choice, chosen: true, thinking: thinking, held: a.held,
		parent: childOf{depth: depth, tree: a.parent.tree, changes: a.changes, parentFile: parentFile, parentCall: call.ID}}
	if err := child.openSession(s.Session); err != nil {
		child.Close()
		return tools.ErrorResult("The sub-agent could not start: " + err.Error()), nil
	}
	defer child.Close()
	rt, _, err := child.build(choice, thinking, child.store, "", "")
	if err != nil {
		return tools.ErrorResult("The sub-agent could not start: " + err.Error()), nil
	}
	agentName := ""
	if def != nil {
		agentName = def.Name
	}
	return withNotes(child.prompt(ctx, rt, call, args, agentName), notes), nil
}

// withNotes adds what is wrong with the agent's file to a task call's
// result: its details' warnings, and a text the model reads after the
// child's answer.
func withNotes(res tools.Result, notes []string) tools.Result {
	if len(notes) == 0 {
		return res
	}
	if d, ok := res.Details.(ChildDetails); ok {
		d.Warnings = notes
		res.Details = d
	}
	res.Content = append(slices.Clip(res.Content), ai.TextContent("[gopi: "+strings.Join(notes, "\n")+"]"))
	return res
}

// childSettings are a general child's: the parent's without the output
// schema, with the sub-agents' system prompt, a memory or new session
// next to the parent's, and the parent's tools, task only while the
// depth allows.
func (a *Assembly) childSettings(parentFile string, depth int) Settings {
	s := a.s // a copy: the child's settings
	s.OutputSchema = nil
	if s.Subagents.SystemPrompt != "" {
		s.SystemPrompt = s.Subagents.SystemPrompt
	}
	s.Session = SessionSettings{None: a.s.Session.None, NoSync: a.s.Session.NoSync}
	if parentFile != "" {
		s.Session.Dir = filepath.Dir(parentFile)
	}
	s.Tools = slices.DeleteFunc(slices.Clone(a.s.Tools), func(n string) bool {
		return n == tools.TaskName && depth >= s.Subagents.maxDepth()
	})
	return s
}

// applyAgent narrows s to the defined agent def: its tools (only ever
// fewer than the parent's: narrowTools), prompt, step limit, thinking
// level and model. A model that cannot be used is the refusal returned.
func (a *Assembly) applyAgent(s *Settings, def *resources.Agent, choice Choice, thinking ai.ThinkingLevel) (Choice, ai.ThinkingLevel, string) {
	narrowTools(s, def)
	if def.Prompt != "" {
		s.SystemPrompt = def.Prompt
	}
	if def.MaxSteps > 0 {
		s.MaxSteps = def.MaxSteps
	}
	if def.Thinking != "" {
		thinking = ai.ThinkingLevel(def.Thinking)
	}
	if def.Model != "" {
		prov, id, ok := strings.Cut(def.Model, "/")
		if !ok {
			prov, id = "", def.Model
		}
		ch, err := a.ChooseModel(prov, id)
		if err != nil {
			return choice, thinking, fmt.Sprintf("Agent %s: model %s cannot be used: %v", def.Name, def.Model, err)
		}
		choice = ch
	}
	return choice, thinking, ""
}

// prompt runs the task's prompt on the child's Runtime, every event of
// it reaching the parent's stream, in order, as an update of the task
// call, and returns the child's final answer as the call's result.
func (a *Assembly) prompt(ctx context.Context, rt *runtime.Runtime, call tools.Call, args tools.TaskArgs, agentName string) tools.Result {
	sid := a.store.Header().ID
	var enc loop.Encoder
	var buf []byte
	unsub := rt.Control().Subscribe(func(e agent.Event) {
		b, err := enc.Append(buf[:0], e.Event)
		if err != nil {
			return
		}
		buf = b
		var d ChildEvent
		d.Subagent.SessionID, d.Subagent.Agent = sid, agentName
		d.Event = json.RawMessage(slices.Clone(b))
		call.Update(tools.Result{Content: progress(e.Event, args.Description), Details: d})
	}, agent.Except(agent.RunEnd))
	res, perr := rt.Prompt(ctx, ai.UserText(args.Prompt, a.now().UnixMilli()))
	unsub()
	_ = rt.Dispose(context.WithoutCancel(ctx))
	det := ChildDetails{Agent: agentName, Session: a.file, SessionID: sid, Leaf: res.Leaf, Reason: res.Reason, Usage: res.Usage}
	if perr != nil && res.Reason == "" {
		return tools.Result{Content: []ai.Content{ai.TextContent("The sub-agent failed: " + perr.Error())}, Details: det, IsError: true}
	}
	final, _ := res.Final()
	answer := final.Text()
	if res.Reason != loop.ReasonStop {
		why := string(res.Reason)
		if res.Err != nil {
			why += ": " + res.Err.Error()
		}
		msg := "The sub-agent did not finish (" + why + ")."
		if strings.TrimSpace(answer) != "" {
			msg += " Its last answer:\n\n" + answer
		}
		return tools.Result{Content: []ai.Content{ai.TextContent(msg)}, Details: det, IsError: true}
	}
	return tools.Result{Content: []ai.Content{ai.TextContent(answer)}, Details: det}
}

// progress is the text of a child event's update: what the chat shows
// under the task call's line.
func progress(e loop.Event, label string) []ai.Content {
	line := label
	switch e.Type {
	case loop.ToolStart:
		line = label + ": " + e.ToolName
	case loop.MessageEnd:
		if e.Message != nil && e.Message.Role == ai.RoleAssistant {
			if t := strings.TrimSpace(e.Message.Text()); t != "" {
				line = label + ": " + firstLine(t)
			}
		}
	}
	return []ai.Content{ai.TextContent(line)}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return s
}

func (a *Assembly) now() time.Time {
	if a.env.Now != nil {
		return a.env.Now()
	}
	return time.Now()
}

// header names the parent session and the parent's tool call in a
// child's new session.
func (c childOf) header(opts *session.Options) {
	if c.parentCall == "" {
		return
	}
	opts.ParentSession = c.parentFile
	id, _ := json.Marshal(c.parentCall)
	opts.HeaderExtra = map[string]json.RawMessage{"parentToolCallId": id}
}

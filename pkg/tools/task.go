package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"gopi/pkg/ai"
)

// TaskName is the name of the tool that delegates work to a child run.
const TaskName = "task"

// DefaultTaskConcurrency bounds the task calls of one answer that run at once.
const DefaultTaskConcurrency = 4

// TaskArgs are the arguments of one task call.
type TaskArgs struct {
	Description string `json:"description"`
	Prompt      string `json:"prompt"`
	Agent       string `json:"agent,omitempty"`
}

// TaskAgent is an agent the model may choose, as the tool describes it.
type TaskAgent struct {
	Name        string
	Description string
}

// TaskRunner runs one child run for a task call and returns the tool's
// result: the child's final answer, or an error result saying why the
// child failed. Cancelling ctx must end the child before it returns.
type TaskRunner func(ctx context.Context, call Call, args TaskArgs) (Result, error)

// TaskOptions configure the task tool.
type TaskOptions struct {
	Run    TaskRunner
	Agents []TaskAgent
	// MaxConcurrency bounds the child runs of this tool running at once;
	// 0 means DefaultTaskConcurrency. Calls past it wait for a free slot.
	MaxConcurrency int
}

type taskTool struct {
	run    TaskRunner
	agents []TaskAgent
	slots  chan struct{}
}

// NewTask returns the task tool: each call is a child run of its own with
// only the call's prompt as its context.
func NewTask(o TaskOptions) Tool {
	n := o.MaxConcurrency
	if n <= 0 {
		n = DefaultTaskConcurrency
	}
	return &taskTool{run: o.Run, agents: o.Agents, slots: make(chan struct{}, n)}
}

func (t *taskTool) Spec() ai.ToolSpec {
	var desc strings.Builder
	desc.WriteString("Delegate a self-contained piece of work to a sub-agent: a separate run with its own context, which sees only the prompt you give it (not this conversation) and returns its final answer as this tool's result. " +
		"Give it the whole job: what to do, where, and what to report back. Several task calls in one answer run at the same time.")
	agentProp := `"agent":{"type":"string","description":"The sub-agent to use; omit for a general agent with your tools."}`
	if len(t.agents) > 0 {
		desc.WriteString("\n\nAvailable agents:")
		names := make([]string, len(t.agents))
		for i, a := range t.agents {
			fmt.Fprintf(&desc, "\n- %s: %s", a.Name, a.Description)
			b, _ := json.Marshal(a.Name)
			names[i] = string(b)
		}
		agentProp = `"agent":{"type":"string","enum":[` + strings.Join(names, ",") + `],"description":"The sub-agent to use; omit for a general agent with your tools."}`
	}
	return ai.ToolSpec{
		Name:        TaskName,
		Description: desc.String(),
		Parameters: json.RawMessage(`{"type":"object","properties":{` +
			`"description":{"type":"string","description":"A short (3-5 words) label of the task."},` +
			`"prompt":{"type":"string","description":"The whole job for the sub-agent."},` +
			agentProp + `},"required":["description","prompt"]}`),
	}
}

func (t *taskTool) Run(ctx context.Context, call Call) (Result, error) {
	var args TaskArgs
	if err := json.Unmarshal(call.Args, &args); err != nil {
		return ErrorResult("Invalid task arguments: " + err.Error()), nil
	}
	if strings.TrimSpace(args.Prompt) == "" {
		return ErrorResult("The task's prompt is empty: give the sub-agent the whole job."), nil
	}
	if args.Agent != "" && len(t.agents) > 0 {
		known := false
		for _, a := range t.agents {
			known = known || a.Name == args.Agent
		}
		if !known {
			return ErrorResult(fmt.Sprintf("Unknown agent %q: choose one the tool lists, or omit agent.", args.Agent)), nil
		}
	}
	if ctx.Err() != nil {
		return ErrorResult("Task not started: the run was cancelled."), nil
	}
	select {
	case t.slots <- struct{}{}:
	case <-ctx.Done():
		return ErrorResult("Task not started: the run was cancelled."), nil
	}
	defer func() { <-t.slots }()
	if t.run == nil {
		return ErrorResult("Sub-agents are not available in this run."), nil
	}
	res, err := t.run(ctx, call, args)
	return boundAnswer(res), err
}

// boundAnswer bounds the child's answer as every tool result is bounded
// (DefaultMaxLines, DefaultMaxBytes), saying where the rest is.
func boundAnswer(res Result) Result {
	for i, c := range res.Content {
		if c.Type != ai.TypeText {
			continue
		}
		tr := truncateHead(c.Text, DefaultMaxLines, DefaultMaxBytes)
		if !tr.Truncated {
			continue
		}
		res.Content = append([]ai.Content(nil), res.Content...)
		res.Content[i] = ai.TextContent(fmt.Sprintf("%s\n\n[The sub-agent's answer was cut to %d of its %d lines (%s of %s); the whole answer is the last entry of its session.]",
			tr.Content, tr.OutputLines, tr.TotalLines, formatSize(tr.OutputBytes), formatSize(tr.TotalBytes)))
	}
	return res
}

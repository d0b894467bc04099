package assemble_test

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"gopi/internal/fdcheck"
	"gopi/pkg/agent"
	"gopi/pkg/ai"
	"gopi/pkg/assemble"
	"gopi/pkg/loop"
	"gopi/pkg/mcp"
	"gopi/pkg/resources"
	"gopi/pkg/session"
)

// taskSettings are settings whose faux model (one script, played in turn
// by the parent and its children) calls the task tool with args first.
func taskSettings(t *testing.T, args string, replies ...string) assemble.Settings {
	t.Helper()
	s := settings(t)
	s.Tools = []string{"bash", "task"}
	js := `[{"toolCalls":[{"id":"call_task_1","name":"task","arguments":` + args + `}]}`
	for _, r := range replies {
		js += "," + r
	}
	s.Model.ID = script(t, js+`]`)
	return s
}

// taskResult runs the parent's prompt and returns the task call's
// childSession reads a task result's details and opens the child's
// session file they name, closed when the test ends.
func childSession(t *testing.T, res ai.Message) (assemble.ChildDetails, *session.FileStore) {
	t.Helper()
	var det assemble.ChildDetails
	if err := json.Unmarshal(res.Details, &det); err != nil {
		t.Fatalf("task details %s: %v", res.Details, err)
	}
	child, err := session.Open(det.Session, session.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { child.Close() })
	return det, child
}

// result message and the updates the call sent.
func taskResult(t *testing.T, a *assemble.Assembly) (ai.Message, []loop.Event) {
	t.Helper()
	var mu sync.Mutex
	var updates []loop.Event
	unsub := a.Runtime().Control().Subscribe(func(e agent.Event) {
		if e.Event.Type == loop.ToolUpdate {
			mu.Lock()
			updates = append(updates, e.Event)
			mu.Unlock()
		}
	})
	prompt(t, a, "delegate")
	unsub()
	for _, e := range a.Store().Entries() {
		if m := e.Message; m != nil && m.Role == ai.RoleToolResult && m.ToolName == "task" {
			mu.Lock()
			defer mu.Unlock()
			return *m, updates
		}
	}
	t.Fatal("no task result")
	return ai.Message{}, nil
}

// A task call runs a child in a session of its own beside the parent's,
// naming the parent session and call; its answer is the call's result,
// its events the call's updates.
func TestTaskRunsAChild(t *testing.T) {
	fdcheck.Check(t)
	var stderr bytes.Buffer
	s := taskSettings(t, `{"description":"scout","prompt":"look around"}`, `{"text":"the child's answer\nsecond line"}`, `{"text":"done"}`)
	s.Session.Dir = "runs"
	a := newOpened(t, s, env(&stderr))
	res, updates := taskResult(t, a)
	if res.IsError || res.Content[0].Text != "the child's answer\nsecond line" {
		t.Fatalf("result %+v", res)
	}
	det, child := childSession(t, res)
	if filepath.Dir(det.Session) != filepath.Join(s.Cwd, "runs") || det.Session == a.File() || det.Reason != loop.ReasonStop || det.Leaf == "" {
		t.Fatalf("details %+v", det)
	}
	h := child.Header()
	if h.ID != det.SessionID || h.ParentSession != a.File() || string(h.Extra["parentToolCallId"]) != `"call_task_1"` {
		t.Errorf("the child's header %+v", h)
	}
	var sawAnswer bool
	for _, u := range updates {
		var d assemble.ChildEvent
		if err := json.Unmarshal(u.Result.Details, &d); err != nil || d.Subagent.SessionID != det.SessionID || len(d.Event) == 0 {
			t.Errorf("update %s: %v", u.Result.Details, err)
		}
		sawAnswer = sawAnswer || u.Result.Content[0].Text == "scout: the child's answer"
	}
	if !sawAnswer {
		t.Errorf("no update shows the answer's first line: %+v", updates)
	}
}

// With --no-session the child's session is in memory too.
func TestTaskWithoutSession(t *testing.T) {
	fdcheck.Check(t)
	var stderr bytes.Buffer
	s := taskSettings(t, `{"description":"scout","prompt":"look around"}`, `{"text":"answer"}`, `{"text":"done"}`)
	s.Session.None = true
	a := newOpened(t, s, env(&stderr))
	res, _ := taskResult(t, a)
	var det assemble.ChildDetails
	if err := json.Unmarshal(res.Details, &det); err != nil || det.Session != "" || det.SessionID == "" || res.IsError {
		t.Errorf("details %s: %v", res.Details, err)
	}
}

// A child that does not finish is an error result with why, and its last
// answer.
func TestTaskChildThatDoesNotFinish(t *testing.T) {
	fdcheck.Check(t)
	var stderr bytes.Buffer
	s := taskSettings(t, `{"description":"scout","prompt":"look around"}`,
		`{"text":"half way","stopReason":"length"}`, `{"text":"done"}`)
	a := newOpened(t, s, env(&stderr))
	res, _ := taskResult(t, a)
	if !res.IsError || !strings.HasPrefix(res.Content[0].Text, "The sub-agent did not finish (") || !strings.HasSuffix(res.Content[0].Text, "). Its last answer:\n\nhalf way") {
		t.Errorf("result %+v", res)
	}
}

// A defined agent narrows the child's tools and gives its prompt; an
// agent whose model cannot be used, and an unknown agent, are refused
// as the call's result.
func TestTaskDefinedAgents(t *testing.T) {
	fdcheck.Check(t)
	agents := []resources.Agent{
		{Name: "reader", Description: "reads", Tools: []string{"read"}, Prompt: "You only read.", MaxSteps: 3},
		{Name: "thinker", Description: "thinks", Thinking: "high"},
		{Name: "broken", Description: "cannot run", Model: "nosuch/model"},
	}
	var stderr bytes.Buffer
	s := taskSettings(t, `{"description":"read","prompt":"read it","agent":"reader"}`,
		`{"toolCalls":[{"name":"bash","arguments":{"command":"echo ran"}}]}`, `{"text":"read it all"}`, `{"text":"done"}`)
	s.Subagents.Agents = agents
	s.Thinking = ai.ThinkingLow
	a := newOpened(t, s, env(&stderr))
	res, _ := taskResult(t, a)
	det, child := childSession(t, res)
	if det.Agent != "reader" || res.Content[0].Text != "read it all" {
		t.Fatalf("result %+v", res)
	}
	if st := session.ModelStateAt(child.Entries(), det.Leaf); st.ThinkingLevel != ai.ThinkingLow {
		t.Errorf("the child of an agent without a level thinks %q, want the parent's low", st.ThinkingLevel)
	}
	for _, e := range child.Entries() {
		if m := e.Message; m != nil && m.Role == ai.RoleToolResult && (!m.IsError || strings.Contains(m.Content[0].Text, "ran")) {
			t.Errorf("bash ran for an agent without it: %+v", m)
		}
	}

	s = taskSettings(t, `{"description":"x","prompt":"x","agent":"thinker"}`, `{"text":"thought"}`, `{"text":"done"}`)
	s.Subagents.Agents = agents
	s.Thinking = ai.ThinkingLow
	th := newOpened(t, s, env(&stderr))
	res, _ = taskResult(t, th)
	if err := json.Unmarshal(res.Details, &det); err != nil {
		t.Fatal(err)
	}
	thinker, err := session.Open(det.Session, session.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer thinker.Close()
	if st := session.ModelStateAt(thinker.Entries(), det.Leaf); st.ThinkingLevel != ai.ThinkingHigh {
		t.Errorf("the thinker's child thinks %q, want high", st.ThinkingLevel)
	}

	s = taskSettings(t, `{"description":"x","prompt":"x","agent":"broken"}`, `{"text":"done"}`)
	s.Subagents.Agents = agents
	b := newOpened(t, s, env(&stderr))
	if res, _ := taskResult(t, b); !res.IsError || !strings.HasPrefix(res.Content[0].Text, "Agent broken: model nosuch/model cannot be used: ") {
		t.Errorf("an agent's model refused: %+v", res)
	}
	s = taskSettings(t, `{"description":"x","prompt":"x","agent":"nobody"}`, `{"text":"done"}`)
	s.Subagents.Agents = agents
	c := newOpened(t, s, env(&stderr))
	if res, _ := taskResult(t, c); !res.IsError || !strings.Contains(res.Content[0].Text, `"nobody"`) {
		t.Errorf("an unknown agent: %+v", res)
	}
}

// Children get the task tool only while the depth allows.
func TestTaskDepth(t *testing.T) {
	fdcheck.Check(t)
	nested := `{"toolCalls":[{"id":"call_task_2","name":"task","arguments":{"description":"deeper","prompt":"go deeper"}}]}`
	for depth, want := range map[int]string{0: "", 1: "", 2: "the grandchild"} {
		var stderr bytes.Buffer
		replies := []string{nested, `{"text":"the grandchild"}`, `{"text":"the child"}`, `{"text":"done"}`}
		if depth < 2 {
			replies = []string{nested, `{"text":"the child"}`, `{"text":"done"}`}
		}
		s := taskSettings(t, `{"description":"scout","prompt":"look around"}`, replies...)
		s.Subagents.MaxDepth = depth
		a := newOpened(t, s, env(&stderr))
		res, _ := taskResult(t, a)
		_, child := childSession(t, res)
		var inner string
		for _, e := range child.Entries() {
			if m := e.Message; m != nil && m.Role == ai.RoleToolResult {
				inner = m.Content[0].Text
			}
		}
		if want == "" && !strings.Contains(inner, "task") || want != "" && inner != want {
			t.Errorf("depth %d: the child's task call gave %q", depth, inner)
		}
	}
}

// A child's end releases only its own session: the parent's MCP servers
// and background processes go on.
func TestTaskChildKeepsTheParentsHoldings(t *testing.T) {
	fdcheck.Check(t)
	srv := newMCPServer(t)
	var stderr bytes.Buffer
	s := taskSettings(t, `{"description":"scout","prompt":"look around"}`, `{"text":"the child"}`,
		`{"toolCalls":[{"name":"mcp__docs__echo","arguments":{"text":"still here"}}]}`, `{"text":"done"}`)
	s.MCP = assemble.MCPSettings{Servers: []mcp.Server{srv.server("docs")}}
	a := newOpened(t, s, mcpEnv(&stderr))
	prompt(t, a, "delegate")
	got := toolTexts(a)
	if len(got) != 2 || got[0] != "the child" || got[1] != "echo: still here" {
		t.Errorf("tool results %q", got)
	}
}

// A defined agent's model, "provider/id" or a bare id, is the child's;
// one that cannot be had is the call's refusal.
func TestTaskAgentModel(t *testing.T) {
	fdcheck.Check(t)
	own := script(t, `[{"text":"from the agent's own model"}]`)
	agents := []resources.Agent{{Name: "own", Description: "own model", Model: "faux/" + own}, {Name: "bare", Description: "bare id", Model: "demo"}}
	var stderr bytes.Buffer
	s := taskSettings(t, `{"description":"x","prompt":"x","agent":"own"}`, `{"text":"done"}`)
	s.Subagents.Agents = agents
	a := newOpened(t, s, env(&stderr))
	if res, _ := taskResult(t, a); res.IsError || res.Content[0].Text != "from the agent's own model" {
		t.Errorf("the agent's model: %+v", res)
	}
	s = taskSettings(t, `{"description":"x","prompt":"x","agent":"bare"}`, `{"text":"done"}`)
	s.Subagents.Agents = agents
	b := newOpened(t, s, env(&stderr))
	if res, _ := taskResult(t, b); !res.IsError || !strings.Contains(res.Content[0].Text, "Agent bare: model demo cannot be used: no model provider") {
		t.Errorf("a bare id no key names: %+v", res)
	}
}

// The call's updates say what the child does: the tool it runs, its
// answer's first line (at most 120 bytes); a child that fails says why.
func TestTaskUpdatesAndFailure(t *testing.T) {
	fdcheck.Check(t)
	long := strings.Repeat("x", 130)
	var stderr bytes.Buffer
	s := taskSettings(t, `{"description":"scout","prompt":"look around"}`,
		`{"toolCalls":[{"name":"bash","arguments":{"command":"true"}}]}`, `{"text":"`+long+`\nmore"}`, `{"text":"done"}`)
	a := newOpened(t, s, env(&stderr))
	_, updates := taskResult(t, a)
	var texts []string
	for _, u := range updates {
		texts = append(texts, u.Result.Content[0].Text)
	}
	all := strings.Join(texts, "\n")
	if !strings.Contains(all, "scout: bash\n") || !strings.Contains(all, "scout: "+long[:120]+"…") || strings.Contains(all, long[:121]) {
		t.Errorf("updates:\n%s", all)
	}

	s = taskSettings(t, `{"description":"scout","prompt":"look around"}`, `{"error":"the model broke"}`, `{"text":"done"}`)
	b := newOpened(t, s, env(&stderr))
	res, _ := taskResult(t, b)
	if !res.IsError || !strings.HasPrefix(res.Content[0].Text, "The sub-agent did not finish (error: ") || !strings.Contains(res.Content[0].Text, "the model broke") {
		t.Errorf("a child that fails: %+v", res)
	}
}

// A defined agent that names its tools gets no MCP server's tools; a
// general child gets its parent's.
func TestTaskAgentToolsLeaveOutMCP(t *testing.T) {
	fdcheck.Check(t)
	srv := newMCPServer(t)
	agents := []resources.Agent{{Name: "reader", Description: "reads", Tools: []string{"read"}}}
	for agentName, wantEcho := range map[string]bool{"reader": false, "": true} {
		var stderr bytes.Buffer
		args := `{"description":"x","prompt":"x","agent":"` + agentName + `"}`
		if agentName == "" {
			args = `{"description":"x","prompt":"x"}`
		}
		s := taskSettings(t, args, `{"toolCalls":[{"name":"mcp__docs__echo","arguments":{"text":"hi"}}]}`, `{"text":"child done"}`, `{"text":"done"}`)
		s.Subagents.Agents = agents
		s.MCP = assemble.MCPSettings{Servers: []mcp.Server{srv.server("docs")}}
		a := newOpened(t, s, mcpEnv(&stderr))
		res, _ := taskResult(t, a)
		_, child := childSession(t, res)
		var echoed bool
		for _, e := range child.Entries() {
			if m := e.Message; m != nil && m.Role == ai.RoleToolResult {
				echoed = echoed || m.Content[0].Text == "echo: hi"
			}
		}
		if echoed != wantEcho {
			t.Errorf("agent %q: the MCP tool ran %v, want %v", agentName, echoed, wantEcho)
		}
	}
}

// A defined agent's step limit is its child's.
func TestTaskAgentStepLimit(t *testing.T) {
	fdcheck.Check(t)
	var stderr bytes.Buffer
	s := taskSettings(t, `{"description":"x","prompt":"x","agent":"brief"}`,
		`{"toolCalls":[{"name":"bash","arguments":{"command":"true"}}]}`, `{"text":"done"}`)
	s.Subagents.Agents = []resources.Agent{{Name: "brief", Description: "one step", MaxSteps: 1}}
	a := newOpened(t, s, env(&stderr))
	res, _ := taskResult(t, a)
	var det assemble.ChildDetails
	if err := json.Unmarshal(res.Details, &det); err != nil || !res.IsError || det.Reason == loop.ReasonStop {
		t.Errorf("a child past its one step: %+v (%v)", res, err)
	}
}

// What a child's model is sent: a defined agent's prompt, else the
// sub-agents' system prompt; never the parent's output schema.
func TestTaskChildRequest(t *testing.T) {
	fdcheck.Check(t)
	rec, url := newRecorder(t)
	yes := true
	provs := map[string]assemble.Provider{"rec": {API: "openai", BaseURL: url, Models: []ai.Info{{ID: "m"}}, Quirks: assemble.Quirks{ResponseFormat: &yes}}}
	agents := []resources.Agent{{Name: "prompted", Description: "p", Model: "rec/m", Prompt: "YOU ONLY READ"}, {Name: "plain", Description: "p", Model: "rec/m"}}
	for name, system := range map[string]string{"prompted": "YOU ONLY READ", "plain": "CHILDREN'S PROMPT"} {
		var stderr bytes.Buffer
		s := taskSettings(t, `{"description":"x","prompt":"x","agent":"`+name+`"}`, `{"text":"done"}`)
		s.Subagents.Agents = agents
		s.Subagents.SystemPrompt = "CHILDREN'S PROMPT"
		s.Model.Providers = provs
		s.Model.Retry = assemble.Retry{MaxAttempts: 1}
		s.OutputSchema = json.RawMessage(`{"type":"object"}`)
		a := newOpened(t, s, env(&stderr))
		if res, _ := taskResult(t, a); !res.IsError {
			t.Errorf("%s: a child whose server answers 500: %+v", name, res)
		}
		bodies := rec.all()
		body := bodies[len(bodies)-1]
		msgs, _ := body["messages"].([]any)
		first, _ := msgs[0].(map[string]any)
		if _, ok := body["response_format"]; ok || first["content"] != system {
			t.Errorf("%s: the child's request: system %q, response_format %v", name, first["content"], body["response_format"])
		}
	}
}

// What a child's tools change is the parent's run's change.
func TestTaskChildChangesAreTheParents(t *testing.T) {
	fdcheck.Check(t)
	var stderr bytes.Buffer
	s := taskSettings(t, `{"description":"x","prompt":"x"}`,
		`{"toolCalls":[{"name":"write","arguments":{"path":"by-child.txt","content":"x"}}]}`, `{"text":"written"}`, `{"text":"done"}`)
	s.Tools = []string{"write", "task"}
	a := newOpened(t, s, env(&stderr))
	prompt(t, a, "delegate")
	if got := a.Changes().List(s.Cwd); len(got) != 1 || got[0].Path != "by-child.txt" {
		t.Errorf("the parent's changes %+v", got)
	}
}

// What a child spends is counted in its parent's run.
func TestTaskChildSpendingCounted(t *testing.T) {
	fdcheck.Check(t)
	var stderr bytes.Buffer
	s := taskSettings(t, `{"description":"x","prompt":"x"}`,
		`{"text":"the child","usage":{"input":7000,"output":70}}`, `{"text":"done","usage":{"input":300,"output":3}}`)
	a := newOpened(t, s, env(&stderr))
	res, err := a.Runtime().Prompt(t.Context(), ai.UserText("delegate", 1))
	if err != nil || res.Err != nil {
		t.Fatal(err, res.Err)
	}
	if res.Usage.Input < 7300 || res.Usage.Output < 73 {
		t.Errorf("the run's usage %+v does not count the child's", res.Usage)
	}
}

package agent

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"gopi/pkg/ai"
	"gopi/pkg/ai/faux"
	"gopi/pkg/loop"
	"gopi/pkg/tools/toolstest"
)

// A failure outside the loop's own recovery (here a Commit hook that
// panics on the second tool result of a batch) keeps every message that
// was committed and reported — the prompt, the assistant's tool calls and
// the first result — and appends the error message after them, as pi's
// runWithLifecycle does. The result whose commit panicked was never
// reported and is not kept. State, result, agent_end and transcript agree,
// and the next request carries each message once.
func TestLifecycleFailureKeepsReportedMessages(t *testing.T) {
	t.Parallel()
	m := faux.New(callResp(call("c1", "w", `{"ms":1}`), call("c2", "w", `{"ms":5}`)), faux.Text("second answer"))
	commits, panicking := 0, true
	a := New(Options{Model: m, Tools: toolstest.Registry(t, waitTool("w")), Commit: func(msg ai.Message) error {
		commits++
		if panicking && commits == 4 { // user, assistant, result c1, then result c2
			panic("store exploded")
		}
		return nil
	}})
	var ended []string
	var agentEnd []ai.Message
	a.Subscribe(func(e Event) {
		switch e.Type {
		case loop.MessageEnd:
			ended = append(ended, e.Message.Role+":"+e.Message.ToolCallID)
		case loop.AgentEnd:
			agentEnd = e.Messages
		}
	})
	res := mustPrompt(t, a, "go")
	got := res.New()
	if roles(got) != "user,assistant,toolResult,assistant" || got[2].ToolCallID != "c1" || len(got[1].ToolCalls()) != 2 {
		t.Fatalf("result %s", roles(got))
	}
	if e := got[3]; e.StopReason != ai.StopError || !strings.Contains(e.ErrorMessage, "store exploded") {
		t.Fatalf("error message %+v", e)
	}
	if res.Reason != loop.ReasonError || res.Err == nil || !strings.Contains(res.Err.Error(), "commit panicked: store exploded") {
		t.Fatalf("reason %s err %v", res.Reason, res.Err)
	}
	if want := []string{"user:", "assistant:", "toolResult:c1", "assistant:"}; !slices.Equal(ended, want) {
		t.Fatalf("message_end %q, want %q", ended, want)
	}
	st := a.State()
	if !reflect.DeepEqual(st.Messages, res.Messages) || !reflect.DeepEqual(agentEnd, got) || !reflect.DeepEqual(a.Messages(), res.Messages) {
		t.Fatalf("state %s, agent_end %s, transcript %s, result %s", roles(st.Messages), roles(agentEnd), roles(a.Messages()), roles(res.Messages))
	}
	if st.Status != Idle || st.LastReason != loop.ReasonError || !strings.Contains(st.ErrorMessage, "store exploded") {
		t.Fatalf("state %s %s %q", st.Status, st.LastReason, st.ErrorMessage)
	}
	if commits != 4 {
		t.Fatalf("the hook that panicked was asked again: %d commits", commits)
	}

	panicking = false
	mustPrompt(t, a, "next")
	reqs := m.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	next := reqs[1].Messages
	if roles(next) != "user,assistant,toolResult,assistant,user" || next[2].ToolCallID != "c1" || next[4].Text() != "next" {
		t.Fatalf("next request %s %q", roles(next), texts(next))
	}
}

package runtime

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"gopi/pkg/ai"
	"gopi/pkg/ai/faux"
	"gopi/pkg/loop"
	"gopi/pkg/tools"
	"gopi/pkg/tools/toolstest"
)

const testKey = "sk-test-0123456789abcdef"

// leakyWrap is an extension whose wrapper hides what it wraps (it passes
// on no Secrets method) and whose after-hook puts the key back into the
// result, as a hook that ran `env` might.
type leakyWrap struct{}

func (leakyWrap) Wrap(next loop.Executor) loop.Executor { return leakyExec{next} }

type leakyExec struct{ next loop.Executor }

func (x leakyExec) Specs() []ai.ToolSpec { return x.next.Specs() }

func (x leakyExec) Execute(ctx context.Context, call ai.Content, update func(tools.Result)) tools.Result {
	update(tools.TextResult("partial KEY=" + testKey))
	res := x.next.Execute(ctx, call, update)
	res.Content = append(res.Content, ai.TextContent("hook saw KEY="+testKey))
	res.Details = map[string]string{"env": testKey}
	return res
}

// Promise 13: the composition root's secrets are scrubbed from every tool
// result after the extensions ran, whatever wrapper stands in between.
func TestSecretsScrubbedAfterExtensions(t *testing.T) {
	t.Parallel()
	s := store(t)
	echoKey := toolstest.Func{Name: "env", Fn: func(context.Context, tools.Call) (tools.Result, error) {
		return tools.TextResult("ANTHROPIC_API_KEY=" + testKey), nil
	}}
	m := faux.New(faux.Response{ToolCalls: []faux.ToolCall{{ID: "c1", Name: "env", Arguments: json.RawMessage(`{}`)}}}, faux.Text("done"))
	secrets := tools.NewSecrets(tools.Secret{Name: "ANTHROPIC_API_KEY", Value: testKey})
	r, err := New(Config{}, Deps{Model: m, Session: s, Tools: toolstest.Registry(t, echoKey), Extensions: leakyWrap{}, Secrets: secrets, Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	var seen strings.Builder
	r.agent.SubscribeEvents(func(_ int, e loop.Event) {
		b, _ := json.Marshal(e)
		seen.Write(b)
	})
	if _, err := r.Prompt(t.Context(), ai.UserText("look", 1)); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(seen.String(), testKey) {
		t.Fatalf("the key reached an event: %s", seen.String())
	}
	if !strings.Contains(seen.String(), tools.Redaction("ANTHROPIC_API_KEY")) {
		t.Fatalf("no redaction in the events, so the tool output never arrived: %s", seen.String())
	}
	for _, e := range s.Entries() {
		b, _ := json.Marshal(e)
		if strings.Contains(string(b), testKey) {
			t.Fatalf("the key reached the session: %s", b)
		}
	}
	last := m.Requests()[1].Messages
	b, _ := json.Marshal(last)
	if strings.Contains(string(b), testKey) {
		t.Fatalf("the key reached the model: %s", b)
	}
}

package loop

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"gopi/pkg/ai"
	"gopi/pkg/ai/faux"
	"gopi/pkg/tools"
	"gopi/pkg/tools/toolstest"
)

// TestSecretsScrubbedFromEveryToolOutput pins that a key a custom tool
// finds reaches no event and no message: not its partial update, text,
// details, nor the text of its panic.
func TestSecretsScrubbedFromEveryToolOutput(t *testing.T) {
	t.Parallel()
	const key = "sk-proj-LEAKLEAKLEAK"
	leaky := toolstest.Func{Name: "leaky", Fn: func(_ context.Context, call tools.Call) (tools.Result, error) {
		call.Update(tools.TextResult("so far: " + key))
		return tools.Result{Content: []ai.Content{ai.TextContent("OPENAI_API_KEY=" + key)},
			Details: map[string]any{"env": []string{"OPENAI_API_KEY=" + key}}}, nil
	}}
	boom := toolstest.Func{Name: "boom", Fn: func(context.Context, tools.Call) (tools.Result, error) { panic("bad key " + key) }}
	reg, err := tools.NewRegistry(tools.Env{Cwd: t.TempDir(), Secrets: tools.NewSecrets(tools.Secret{Name: "OPENAI_API_KEY", Value: key})}, leaky, boom)
	if err != nil {
		t.Fatal(err)
	}
	m := faux.New(calls(call("a", "leaky", `{}`), call("b", "boom", `{}`)), faux.Text("done"))
	var rec recorder
	res := Run(t.Context(), Config{Model: m, Tools: reg, Emit: rec.emit}, nil, prompt("go"))
	if res.Reason != ReasonStop {
		t.Fatalf("reason %s", res.Reason)
	}
	events, _ := json.Marshal(rec.evs)
	messages, _ := json.Marshal(res.Messages)
	for what, s := range map[string]string{"events": string(events), "messages": string(messages)} {
		if strings.Contains(s, "LEAK") {
			t.Errorf("the key is in the %s: %s", what, s)
		}
	}
	var updated bool
	for _, e := range rec.evs {
		updated = updated || e.Type == ToolUpdate && e.Result != nil && strings.Contains(e.Result.Content[0].Text, "so far: [REDACTED:OPENAI_API_KEY]")
	}
	r := res.New()[2]
	if !updated || r.Text() != "OPENAI_API_KEY=[REDACTED:OPENAI_API_KEY]" || !strings.Contains(string(r.Details), `"OPENAI_API_KEY=[REDACTED:OPENAI_API_KEY]"`) {
		t.Errorf("update seen %v; result %q details %s", updated, r.Text(), r.Details)
	}
	if b := res.New()[3]; !b.IsError || !strings.Contains(b.Text(), "bad key [REDACTED:OPENAI_API_KEY]") {
		t.Errorf("panic result %q", b.Text())
	}
}

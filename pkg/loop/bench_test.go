package loop

import (
	"context"
	"encoding/json"
	"iter"
	"testing"

	"gopi/pkg/ai"
	"gopi/pkg/tools"
)

// stepModel answers with a tool call until the step limit, with no delay:
// what remains is the loop's own cost per step.
type stepModel struct{ info ai.Info }

func (m stepModel) Stream(_ context.Context, _ *ai.Request) iter.Seq[ai.Event] {
	return func(yield func(ai.Event) bool) {
		b := ai.NewBuilder(m.info, 1, yield)
		b.Start()
		i, _ := b.TextStart()
		b.TextDelta(i, "step")
		b.TextEnd(i, "")
		j, _ := b.ToolCallStart("c", "noop")
		b.ToolCallDelta(j, `{}`)
		b.ToolCallEnd(j)
		b.Done(ai.StopToolUse)
	}
}

type noopTool struct{}

func (noopTool) Spec() ai.ToolSpec {
	return ai.ToolSpec{Name: "noop", Parameters: json.RawMessage(`{"type":"object"}`)}
}
func (noopTool) Run(context.Context, tools.Call) (tools.Result, error) {
	return tools.TextResult("ok"), nil
}

// BenchmarkLoopStep measures one step (model turn + one tool call) of the
// loop with a model and a tool that cost nothing. Reported: ns and allocs
// per step, and events per step (allocs/event = allocs/op ÷ events/op).
func BenchmarkLoopStep(b *testing.B) {
	reg, err := tools.NewRegistry(tools.Env{Cwd: b.TempDir()}, noopTool{})
	if err != nil {
		b.Fatal(err)
	}
	const steps = 50
	events := 0
	cfg := Config{Model: stepModel{}, Tools: reg, MaxSteps: steps, Emit: func(Event) { events++ }}
	prompt := []ai.Message{ai.UserText("go", 1)}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		res := Run(context.Background(), cfg, nil, prompt)
		if res.Reason != ReasonMaxSteps {
			b.Fatal(res.Reason)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*steps), "ns/step")
	b.ReportMetric(float64(events)/float64(b.N*steps), "events/step")
}

package loop

import (
	"strings"
	"testing"
	"time"

	"gopi/pkg/ai/faux"
	"gopi/pkg/tools/toolstest"
)

// With a Stopwatch, each answer and tool result records how long it took
// (pi 1.6's durationMs); without one, none does.
func TestDurationsRecorded(t *testing.T) {
	t.Parallel()
	watches := 0
	sw := func() func() time.Duration {
		watches++
		d := time.Duration(watches)*time.Second + 400*time.Microsecond // rounds down
		return func() time.Duration { return d }
	}
	for _, withWatch := range []bool{true, false} {
		m := faux.New(calls(call("c1", "fast", `{"ms":1,"text":"f"}`)), faux.Text("done"))
		cfg := Config{Model: m, Tools: toolstest.Registry(t, sleeper("fast"))}
		if withWatch {
			cfg.Stopwatch = sw
		}
		res := Run(t.Context(), cfg, nil, prompt("go"))
		if res.Reason != ReasonStop || len(res.Messages) != 4 {
			t.Fatalf("reason %s, %d messages", res.Reason, len(res.Messages))
		}
		for i, want := range []string{"", "1000", "2000", "3000"} { // user, answer, tool result, answer
			got := string(res.Messages[i].Extra["durationMs"])
			if !withWatch {
				want = ""
			}
			if got != want {
				t.Errorf("stopwatch %v: message %d (%s) durationMs %q, want %q", withWatch, i, res.Messages[i].Role, got, want)
			}
		}
		b, err := res.Messages[2].MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		if withWatch && !strings.Contains(string(b), `"durationMs":2000`) {
			t.Errorf("tool result written as %s", b)
		}
	}
}

package mode

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"gopi/pkg/ai"
	"gopi/pkg/ai/faux"
	"gopi/pkg/runtime"
	"gopi/pkg/session"
)

// A run whose requests leave out old turns says so on stderr once, on a
// terminal (through the progress line) and off one alike.
func TestTrimmedContextIsOneStderrLine(t *testing.T) {
	t.Parallel()
	for _, terminal := range []bool{false, true} {
		t.Run(fmt.Sprint("terminal=", terminal), func(t *testing.T) {
			store := session.NewMemoryStore("/work/proj", session.Options{})
			parent := ""
			for i := range 20 {
				m := ai.UserText(fmt.Sprintf("old %d %s", i, strings.Repeat("x", 400)), 1)
				if i%2 == 1 {
					m = ai.Message{Role: ai.RoleAssistant, Content: []ai.Content{ai.TextContent(strings.Repeat("y", 400))}, StopReason: ai.StopStop}
				}
				e, err := store.Append(t.Context(), session.MessageEntry(parent, m))
				if err != nil {
					t.Fatal(err)
				}
				parent = e.ID
			}
			info := faux.Info
			info.ContextWindow = 1500
			rt, err := runtime.New(runtime.Config{ActiveLeaf: &parent, Model: info, Compaction: runtime.Compaction{Disabled: true, ReserveTokens: 100}},
				runtime.Deps{Model: faux.New(faux.Text("first"), faux.Text("second")), Session: store})
			if err != nil {
				t.Fatal(err)
			}
			var out, errOut bytes.Buffer
			for _, prompt := range []string{"one", "two"} {
				if _, err := Run(context.Background(), rt, []ai.Message{ai.UserText(prompt, 2)}, IO{Out: &out, Err: &errOut, ErrTerminal: terminal}, Options{Mode: Print}); err != nil {
					t.Fatal(err)
				}
			}
			want := "gopi: the conversation does not fit the model's 1500-token window; left out the oldest 6 turns (12 messages) because compaction is disabled\n"
			if n := strings.Count(errOut.String(), want); n != 1 {
				t.Fatalf("%d notices in stderr %q", n, errOut.String())
			}
		})
	}
}

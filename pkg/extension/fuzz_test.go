package extension

import (
	"testing"

	"gopi/pkg/ai"
	"gopi/pkg/tools"
)

// FuzzHookOutput feeds arbitrary stdout to both decoders: they never
// panic, and a before-hook that replaces arguments replaces them with a
// JSON object.
func FuzzHookOutput(f *testing.F) {
	f.Add(`{"hookSpecificOutput":{"permissionDecision":"deny","updatedInput":{"a":1}}}`)
	f.Add(`{"hookSpecificOutput":{"updatedToolOutput":{"content":[{"type":"image"}],"isError":true}}}`)
	f.Add(`{"decision":"block"}`)
	f.Add(`{`)
	f.Fuzz(func(t *testing.T, stdout string) {
		r := &runResult{}
		r.stdout.Write([]byte(stdout))
		d := preDecision(r)
		if !d.Deny && d.Args != nil && !isObject(d.Args) {
			// runBefore denies this; record that the decoder lets it through.
			t.Logf("non-object arguments passed to runBefore: %s", d.Args)
		}
		res := tools.Result{Content: []ai.Content{ai.TextContent("out")}}
		postOutcome(r, Call{Name: "bash"}, "fuzz", res)
	})
}

package e2e

import (
	"fmt"
	"maps"
	"slices"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdPiEvents compares gopi's --mode events output with the json-mode
// output pi 1.6 wrote for the same scenario: the events' types, their
// order and every event's payload keys (those of assistantMessageEvent
// too, and the role of a message) must be the same, except for these
// documented differences:
//
//   - gopi's first line is the session header with gopi's fields added
//     (schemaVersion, file, leafId, model, tools): pi's header keys must
//     all be there.
//   - Every line of gopi's carries "schemaVersion" (docs/schema), which
//     pi's do not: it is left out of the comparison.
//   - gopi's last line is its result object ("type": "result"), which pi
//     does not write.
//   - pi reports its system prompt as a role "system" message
//     (message_start, message_end) at the start of a run; gopi does not.
//   - A provider splits text into any number of deltas: consecutive
//     events of the same shape count as one.
//   - pi compacts right after a run whose last answer passed the
//     threshold (after agent_end); gopi leaves that compaction to the
//     next prompt, where it comes before agent_start as pi's check
//     before a prompt does (pi16_precompact.txtar).
//   - A request refused as too long is compacted and sent again within
//     gopi's run (the compaction events inside the answer's message
//     events); pi ends the run first and writes the refused answer.
//
// The keys inside a message (pi 1.6's responseId, durationMs, ...) are
// the session format's and not compared here.
func cmdPiEvents(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "pievents")
	if len(args) != 2 {
		ts.Fatalf("usage: pievents PI_JSONL GOPI_JSONL")
	}
	pi, gopi := eventLines(ts, args[0]), eventLines(ts, args[1])
	if len(gopi) < 2 || gopi[0]["type"] != "session" || gopi[len(gopi)-1]["type"] != "result" {
		ts.Fatalf("%s: want the session header first and the result object last", args[1])
	}
	if pi[0]["type"] != "session" {
		ts.Fatalf("%s: want pi's session header first", args[0])
	}
	extra := slices.Collect(maps.Keys(gopi[0]))
	extra = slices.DeleteFunc(extra, func(k string) bool { _, ok := pi[0][k]; return ok })
	slices.Sort(extra)
	if want := []string{"file", "leafId", "model", "schemaVersion", "tools"}; !slices.Equal(extra, want) || len(gopi[0]) != len(pi[0])+len(want) {
		ts.Fatalf("header keys: gopi %v, pi %v: gopi must add exactly %v", sortedKeys(gopi[0]), sortedKeys(pi[0]), want)
	}
	ts.Logf("%d event shapes as pi 1.6 has them", sameShapes(ts, pi[1:], gopi[1:len(gopi)-1]))
}

// cmdPiKeys compares the assistant message entries of a session file pi
// 1.6 wrote with those gopi wrote for the same scenario, in order: the
// keys of the message, of usage and of usage.cost must be the same.
func cmdPiKeys(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "pikeys")
	if len(args) != 2 {
		ts.Fatalf("usage: pikeys PI_SESSION GOPI_SESSION")
	}
	pi, gopi := assistants(ts, args[0]), assistants(ts, args[1])
	if len(pi) == 0 || len(pi) != len(gopi) {
		ts.Fatalf("assistant entries: pi %d, gopi %d", len(pi), len(gopi))
	}
	for i := range pi {
		pm, gm := pi[i], gopi[i]
		sameKeys(ts, fmt.Sprintf("assistant %d", i+1), gm, pm)
		pu, _ := pi[i]["usage"].(map[string]any)
		gu, _ := gm["usage"].(map[string]any)
		sameKeys(ts, fmt.Sprintf("assistant %d usage", i+1), gu, pu)
		pc, _ := pu["cost"].(map[string]any)
		gc, _ := gu["cost"].(map[string]any)
		sameKeys(ts, fmt.Sprintf("assistant %d cost", i+1), gc, pc)
	}
	ts.Logf("%d assistant entries with pi 1.6's keys", len(pi))
}

// assistants are the assistant messages of a session file's entries.
func assistants(ts *testscript.TestScript, file string) []map[string]any {
	var out []map[string]any
	for _, e := range eventLines(ts, file) {
		if m, ok := e["message"].(map[string]any); ok && e["type"] == "message" && m["role"] == "assistant" {
			out = append(out, m)
		}
	}
	return out
}

// cmdEntryOrder checks the last entries of a session file: one per
// argument, in order, each the child of the one before it. An argument
// is an entry type, or a message's role (user, assistant, toolResult).
func cmdEntryOrder(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "entryorder")
	if len(args) < 2 {
		ts.Fatalf("usage: entryorder SESSION KIND...")
	}
	lines := eventLines(ts, args[0])
	want := args[1:]
	if len(lines) < len(want)+1 {
		ts.Fatalf("%s: %d entries, want at least %d", args[0], len(lines)-1, len(want))
	}
	last := lines[len(lines)-len(want):]
	for i, e := range last {
		kind, _ := e["type"].(string)
		if m, ok := e["message"].(map[string]any); ok && kind == "message" {
			kind, _ = m["role"].(string)
		}
		if kind != want[i] {
			ts.Fatalf("%s: entry %d from the end is %s, want %s", args[0], len(want)-i, kind, want[i])
		}
		if i > 0 && e["parentId"] != last[i-1]["id"] {
			ts.Fatalf("%s: the %s entry's parent is %v, want the %s entry %v", args[0], kind, e["parentId"], want[i-1], last[i-1]["id"])
		}
	}
}

package e2e

import (
	"fmt"
	"maps"
	"slices"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdRPCPi compares gopi's rpc transcript with the one pi 1.6 wrote for
// the same script and replies (both read split at LF only): every
// response pi wrote has gopi's response with the same id, command and
// success, and on success the same data keys (of the model object too);
// the events, taken apart from the responses, have pi's types, order and
// payload keys (pievents' shapes: consecutive events of one shape count
// as one). These are the documented differences:
//
//   - Every line of gopi's carries "schemaVersion" (docs/schema), pi's do
//     not: it is left out of the comparison.
//   - pi answers commands concurrently, so responses are matched by id,
//     not by position.
//   - pi reports its system prompt as a role "system" message; gopi does
//     not (so get_messages and messageCount hold one message less).
//   - gopi writes the queue_update that empties the queue before the
//     turn_start of the turn that delivers the message; pi after it.
//   - After an abort during a tool, pi opens one more turn whose answer
//     is empty and aborted before any request; gopi's run ends with the
//     tool batch.
//   - pi's model object also has compat, promptCache, inputLimits and
//     type (pi's per-provider request settings, held in gopi's adapters'
//     code); gopi's has the keys of rpc-commands.md's Model object.
//   - switch_session to a file that does not exist: pi never answers;
//     gopi answers success false.
//   - get_commands: pi lists its built-in extension commands too.
//   - tool_execution_update: how many a tool writes, and where they fall
//     among queue_updates and responses, follows the tool's output as
//     it happens (both write an empty one as bash starts, then one per
//     output read): they are left out of both.
func cmdRPCPi(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "rpcpi")
	if len(args) != 2 {
		ts.Fatalf("usage: rpcpi PI_JSONL GOPI_JSONL")
	}
	pi, gopi := eventLines(ts, args[0]), eventLines(ts, args[1])
	piResp, piEvents := splitResponses(pi)
	goResp, goEvents := splitResponses(gopi)
	noPiAnswer := map[string]bool{}
	for _, r := range goResp {
		id := respKey(r)
		if _, ok := findResp(piResp, id); !ok {
			if r["command"] == "switch_session" && r["success"] == false {
				noPiAnswer[id] = true
				continue
			}
			ts.Fatalf("gopi answered %s (%s), pi did not", id, r["command"])
		}
	}
	for _, p := range piResp {
		id := respKey(p)
		g, ok := findResp(goResp, id)
		if !ok {
			ts.Fatalf("pi answered %s (%s), gopi did not", id, p["command"])
		}
		if g["command"] != p["command"] {
			ts.Fatalf("response %s: command %v, pi's %v", id, g["command"], p["command"])
		}
		if g["schemaVersion"] == nil {
			ts.Fatalf("response %s without schemaVersion", id)
		}
		if g["success"] != p["success"] {
			ts.Fatalf("response %s (%s): success %v (%v), pi's %v (%v)", id, p["command"], g["success"], g["error"], p["success"], p["error"])
		}
		gk, pk := respKeys(g), respKeys(p)
		if !slices.Equal(gk, pk) {
			ts.Fatalf("response %s (%s): keys %v, pi's %v", id, p["command"], gk, pk)
		}
		gd, _ := g["data"].(map[string]any)
		pd, _ := p["data"].(map[string]any)
		if pd == nil || p["command"] == "get_commands" {
			continue
		}
		sameKeys(ts, fmt.Sprintf("response %s (%s) data", id, p["command"]), gd, pd)
		for _, m := range []map[string]any{gd, pd} {
			if model, ok := m["model"].(map[string]any); ok {
				for _, k := range []string{"compat", "promptCache", "inputLimits", "type"} {
					delete(model, k)
				}
			}
		}
		gm, _ := gd["model"].(map[string]any)
		pm, _ := pd["model"].(map[string]any)
		sameKeys(ts, fmt.Sprintf("response %s (%s) model", id, p["command"]), gm, pm)
	}
	shapes := sameShapes(ts, piOnly(piEvents), gopiOrder(goEvents))
	ts.Logf("%d responses (%d pi never gave) and %d event shapes as pi 1.6 has them", len(goResp), len(noPiAnswer), shapes)
}

func splitResponses(lines []map[string]any) (resp, events []map[string]any) {
	for _, l := range lines {
		if l["type"] == "response" {
			resp = append(resp, l)
		} else {
			events = append(events, l)
		}
	}
	return resp, events
}

// respKey is a response's id; a parse error has none.
func respKey(r map[string]any) string {
	if id, ok := r["id"].(string); ok {
		return id
	}
	return "(" + fmt.Sprint(r["command"]) + ")"
}

func findResp(rs []map[string]any, id string) (map[string]any, bool) {
	for _, r := range rs {
		if respKey(r) == id {
			return r, true
		}
	}
	return nil, false
}

func respKeys(r map[string]any) []string {
	r = maps.Clone(r)
	delete(r, "schemaVersion")
	return sortedKeys(r)
}

// piOnly leaves out of pi's events what gopi documents as pi's alone:
// the aborted empty turn after an abort during a tool.
func piOnly(events []map[string]any) []map[string]any {
	var out []map[string]any
	for i := 0; i < len(events); i++ {
		e := events[i]
		switch e["type"] {
		case "tool_execution_update":
			continue
		case "turn_start":
			if end := abortedTurnEnd(events, i); end > 0 {
				i = end
				continue
			}
		}
		out = append(out, e)
	}
	return out
}

// abortedTurnEnd is the index of the turn_end of the turn starting at i
// when that turn's answer is empty and aborted, else 0.
func abortedTurnEnd(events []map[string]any, i int) int {
	for j := i + 1; j < len(events); j++ {
		switch events[j]["type"] {
		case "turn_end":
			msg, _ := events[j]["message"].(map[string]any)
			content, _ := msg["content"].([]any)
			if msg["stopReason"] == "aborted" && len(content) == 0 {
				return j
			}
			return 0
		case "message_update", "tool_execution_start":
			return 0
		}
	}
	return 0
}

// gopiOrder puts a queue_update written just before a turn_start after
// it, where pi writes it.
func gopiOrder(events []map[string]any) []map[string]any {
	out := slices.DeleteFunc(slices.Clone(events), func(e map[string]any) bool { return e["type"] == "tool_execution_update" })
	for i := 0; i+1 < len(out); i++ {
		if out[i]["type"] == "queue_update" && out[i+1]["type"] == "turn_start" {
			out[i], out[i+1] = out[i+1], out[i]
			i++
		}
	}
	return out
}

package e2e

import (
	"crypto/sha256"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// rpcClientDiffs are the differences pi 1.6's RpcClient sees between pi
// 1.6 and gopi rpc driven the same way (pi16_rpcclient.txtar), each with
// its reason; any other difference fails the comparison, and so does an
// entry here that no longer differs. Keys name the step, the call (or
// "events") and what differs (a call made again in a step is NAME#2...).
// Two differences are taken out before the comparison rather than listed
// call by call:
//
//   - pi reports its system prompt as a role "system" message (first in
//     get_messages, with message_start and message_end at a run's
//     start, counted in messageCount and totalMessages); gopi keeps the
//     system prompt out of the messages, as rpcpi_test.go documents.
//     pi's system messages are left out, and its counts less one.
//   - pi's model object also has compat, inputLimits, promptCache, type
//     and (in get_available_models) thinkingLevelMap: pi's per-provider
//     request settings, which gopi's adapters hold in code, not in the
//     model; they are left out of pi's keys (piOnlyModelKeys).
//
// Every line of gopi's carries schemaVersion: the client never sees it
// in a call's data, and events are compared by type.
var rpcClientDiffs = map[string]string{
	"idle getState data.thinkingLevel":    "the default thinking level: gopi's is off (settings' thinking), pi's medium",
	"idle getAvailableModels data length": "each program's own model catalog",
	"file cycleModel data.model.id":       "cycle_model goes to the next model of each program's own catalog",
	"file getState#3 data.model.id":       "the model cycle_model chose (each catalog's next) carries over to the new session",
	"idle getCommands data length":        "pi also lists its built-in extension commands",
	"idle getEntries data.entries length": "pi writes model_change and thinking_level_change as a session starts, gopi with its first prompt (when the file is written)",
	"idle getTree data.tree length":       "as getEntries: gopi's first entries come with the first prompt",
	"file getEntries data.entries length": "as getEntries: gopi's first entries come with the first prompt",
}

var piOnlyModelKeys = []string{"compat", "inputLimits", "promptCache", "type", "thinkingLevelMap"}

// cmdRPCClient compares the records of driver.mjs for pi and for gopi:
// the calls in order (name, success, and on success the keys of the data,
// of its model object and of the first element of an array), and each
// step's events (types in order; consecutive message_update events count
// as one, tool_execution_update left out, as their number follows the
// output as it happens).
//
//	rpcclient PI_JSONL GOPI_JSONL
func cmdRPCClient(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "rpcclient")
	if len(args) != 2 {
		ts.Fatalf("usage: rpcclient PI_JSONL GOPI_JSONL")
	}
	pi, gopi := eventLines(ts, args[0]), eventLines(ts, args[1])
	diffs := map[string]string{}
	piCalls, piEvents := clientRecords(withoutSystem(pi))
	goCalls, goEvents := clientRecords(gopi)
	if len(piCalls) != len(goCalls) {
		ts.Fatalf("%d calls, pi %d", len(goCalls), len(piCalls))
	}
	seen := map[string]int{}
	for i, p := range piCalls {
		g := goCalls[i]
		key := fmt.Sprintf("%v %v", p["step"], p["call"])
		if seen[key]++; seen[key] > 1 {
			key = fmt.Sprintf("%s#%d", key, seen[key])
		}
		if g["call"] != p["call"] || g["step"] != p["step"] {
			ts.Fatalf("call %d: %s, pi's %s", i, fmt.Sprintf("%v %v", g["step"], g["call"]), key)
		}
		if g["ok"] != p["ok"] {
			diffs[key+" ok"] = fmt.Sprintf("gopi ok=%v %v, pi ok=%v %v", g["ok"], g["error"], p["ok"], p["error"])
			continue
		}
		for what, pair := range dataShapes(g["data"], p["data"]) {
			if !slices.Equal(pair[0], pair[1]) {
				diffs[key+" "+what] = fmt.Sprintf("gopi %v, pi %v", pair[0], pair[1])
			}
		}
		for what, pair := range dataValues(g["data"], p["data"]) {
			if pair[0] != pair[1] {
				diffs[key+" "+what] = fmt.Sprintf("gopi %s, pi %s", pair[0], pair[1])
			}
		}
	}
	steps := map[string]bool{}
	for s := range piEvents {
		steps[s] = true
	}
	for s := range goEvents {
		steps[s] = true
	}
	for s := range steps {
		g, p := eventTypes(goEvents[s]), eventTypes(piEvents[s])
		if !slices.Equal(g, p) {
			diffs[s+" events"] = fmt.Sprintf("gopi %v\npi   %v", g, p)
		}
	}
	var bad []string
	for k, d := range diffs {
		if _, ok := rpcClientDiffs[k]; !ok {
			bad = append(bad, k+": "+d)
		}
	}
	for k := range rpcClientDiffs {
		if _, ok := diffs[k]; !ok {
			bad = append(bad, k+": listed as a difference, but gopi answers as pi")
		}
	}
	sort.Strings(bad)
	if len(bad) > 0 {
		ts.Fatalf("differences from pi 1.6 not listed in rpcClientDiffs:\n%s", strings.Join(bad, "\n"))
	}
	ts.Logf("%d calls as pi 1.6 answers them, %d listed differences", len(piCalls), len(diffs))
}

// withoutSystem leaves pi's system messages out: of get_messages' data
// and the message events.
func withoutSystem(lines []map[string]any) []map[string]any {
	isSystem := func(v any) bool {
		m, _ := v.(map[string]any)
		return m != nil && m["role"] == "system"
	}
	var out []map[string]any
	for _, l := range lines {
		if e, ok := l["event"].(map[string]any); ok && isSystem(e["message"]) {
			continue
		}
		if msgs, ok := l["data"].([]any); ok && l["call"] == "getMessages" {
			l["data"] = slices.DeleteFunc(slices.Clone(msgs), isSystem)
		}
		out = append(out, l)
	}
	return out
}

func clientRecords(lines []map[string]any) (calls []map[string]any, events map[string][]map[string]any) {
	events = map[string][]map[string]any{}
	for _, l := range lines {
		if e, ok := l["event"].(map[string]any); ok {
			s := fmt.Sprint(l["step"])
			events[s] = append(events[s], e)
			continue
		}
		calls = append(calls, l)
	}
	return calls, events
}

// dataShapes pairs gopi's and pi's keys of what a call answered.
func dataShapes(g, p any) map[string][2][]string {
	out := map[string][2][]string{}
	gm, gok := g.(map[string]any)
	pm, pok := p.(map[string]any)
	if gok != pok {
		out["data type"] = [2][]string{{fmt.Sprintf("%T", g)}, {fmt.Sprintf("%T", p)}}
		return out
	}
	if !gok {
		ga, _ := g.([]any)
		pa, _ := p.([]any)
		if len(ga) > 0 && len(pa) > 0 {
			ge, _ := ga[0].(map[string]any)
			pe, _ := pa[0].(map[string]any)
			out["data[0] keys"] = [2][]string{sortedKeys(ge), modelKeys(pe)}
		}
		return out
	}
	out["data keys"] = [2][]string{sortedKeys(gm), modelKeys(pm)}
	for _, k := range []string{"model"} {
		gi, _ := gm[k].(map[string]any)
		pi, _ := pm[k].(map[string]any)
		if gi != nil || pi != nil {
			out["data."+k+" keys"] = [2][]string{sortedKeys(gi), modelKeys(pi)}
		}
	}
	return out
}

// ownValues are the data fields whose values are each program's own
// (ids, paths, times, texts the fake provider or a summary decides,
// prices and token counts of two catalogs and estimators): their keys
// are compared, not their values.
var ownValues = []string{"sessionFile", "sessionId", "leafId", "entryId", "path", "text", "summary", "firstKeptEntryId",
	"tokensBefore", "estimatedTokensAfter", "tokens", "cost", "output", "fullOutputPath", "contextWindow", "maxTokens", "name"}

// dataValues pairs gopi's and pi's values of a call's answer: a scalar
// answer, each scalar field of an object answer (ownValues left out),
// the id of its model, and the length of an array answer or field.
func dataValues(g, p any) map[string][2]string {
	out := map[string][2]string{}
	str := func(v any) string { return fmt.Sprintf("%v", v) }
	gm, gok := g.(map[string]any)
	pm, pok := p.(map[string]any)
	if !gok || !pok {
		ga, gIsArr := g.([]any)
		pa, pIsArr := p.([]any)
		switch {
		case gIsArr && pIsArr:
			out["data length"] = [2]string{str(len(ga)), str(len(pa))}
		case !gok && !pok:
			out["data"] = [2]string{str(g), str(p)}
		}
		return out
	}
	for k, pv := range pm {
		if slices.Contains(ownValues, k) || slices.Contains(piOnlyModelKeys, k) {
			continue
		}
		if n, ok := pv.(float64); ok && n > 0 && (k == "messageCount" || k == "totalMessages") {
			pv = n - 1 // pi's system message (withoutSystem)
		}
		gv := gm[k]
		switch pv := pv.(type) {
		case map[string]any:
			if k == "model" {
				gmod, _ := gv.(map[string]any)
				out["data.model.id"] = [2]string{str(gmod["id"]), str(pv["id"])}
			}
		case []any:
			ga, _ := gv.([]any)
			out["data."+k+" length"] = [2]string{str(len(ga)), str(len(pv))}
		default:
			out["data."+k] = [2]string{str(gv), str(pv)}
		}
	}
	return out
}

// modelKeys are the sorted keys of m but pi's model keys gopi has not.
func modelKeys(m map[string]any) []string {
	return slices.DeleteFunc(sortedKeys(m), func(k string) bool { return slices.Contains(piOnlyModelKeys, k) })
}

// eventTypes is a step's event types in order, consecutive
// message_update events as one, tool_execution_update left out; an
// answer's message_end names the model that gave it, and a tool's
// tool_execution_end the keys of its result's details.
func eventTypes(events []map[string]any) []string {
	var out []string
	for _, e := range events {
		t := fmt.Sprint(e["type"])
		if t == "tool_execution_update" || (t == "message_update" && len(out) > 0 && out[len(out)-1] == t) {
			continue
		}
		out = append(out, t+eventDetail(e))
	}
	return out
}

// detailValues are a tool result's details: each key with its value, an
// object's in turn (a path's value is each program's own; a long text's
// is its size and digest).
func detailValues(d map[string]any) string {
	var out []string
	for _, k := range sortedKeys(d) {
		switch v := d[k].(type) {
		case map[string]any:
			out = append(out, k+"{"+detailValues(v)+"}")
		case string:
			if k == "fullOutputPath" {
				v = "PATH"
			}
			out = append(out, k+"="+shortText(v))
		default:
			out = append(out, fmt.Sprintf("%s=%v", k, v))
		}
	}
	return strings.Join(out, " ")
}

// shortText is s, or for a text over 64 bytes (a truncation's content)
// its size and the start of its SHA-256, so a difference stays readable.
func shortText(s string) string {
	if len(s) <= 64 {
		return s
	}
	sum := sha256.Sum256([]byte(s))
	return fmt.Sprintf("<%d bytes sha256:%x>", len(s), sum[:6])
}

// eventDetail is what eventTypes says of an event beside its type.
func eventDetail(e map[string]any) string {
	switch e["type"] {
	case "message_end":
		if m, _ := e["message"].(map[string]any); m["role"] == "assistant" {
			return fmt.Sprintf("(%v)", m["model"])
		}
	case "tool_execution_end":
		r, _ := e["result"].(map[string]any)
		d, _ := r["details"].(map[string]any)
		return fmt.Sprintf("(%v details %s)", e["toolName"], detailValues(d))
	}
	return ""
}

package e2e

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// acpDiffs are the differences an ACP client sees through pi-acp between
// pi 1.6 and gopi rpc (pi16_acp.txtar), each with its reason; any other
// difference fails the comparison, and so does an entry here that no
// longer differs. Keys name the step, the request (NAME#2 when made again
// in the step) or "updates", and what differs.
var acpDiffs = map[string]string{
	"new newSession thought_level":           "the default thinking level: gopi's is off (settings' thinking), pi's medium",
	"new newSession modes.currentModeId":     "pi-acp's modes are the thinking levels: the default differs as above",
	"options setSessionConfigOption model":   "pi-acp picks the first other model of the list: each program's own catalog",
	"options setSessionConfigOption#2 model": "as above: the model the first switch chose",
	"load updates":                           "the context after /compact: after an abort during a tool pi opens one more, empty, aborted turn (rpcpi_test.go), so the turn kept differs and pi-acp replays gopi's kept tool call",
}

// cmdACPCompare compares the records of acp.mjs for pi and for gopi: the
// requests in order (name, success, the answer's keys, stopReason, the
// current value of each config option and mode, the sessions listed and
// their titles), and each step's session update kinds (as a set: pi-acp
// sends a session_info_update when a title is read, at no fixed place
// among a prompt's chunks).
//
//	acpcompare PI_JSONL GOPI_JSONL
func cmdACPCompare(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "acpcompare")
	if len(args) != 2 {
		ts.Fatalf("usage: acpcompare PI_JSONL GOPI_JSONL")
	}
	piCalls, piUpdates := acpRecords(eventLines(ts, args[0]))
	goCalls, goUpdates := acpRecords(eventLines(ts, args[1]))
	if len(piCalls) != len(goCalls) {
		ts.Fatalf("%d requests, pi %d", len(goCalls), len(piCalls))
	}
	diffs := map[string]string{}
	seen := map[string]int{}
	for i, p := range piCalls {
		g := goCalls[i]
		key := fmt.Sprintf("%v %v", p["step"], p["call"])
		if g["call"] != p["call"] || g["step"] != p["step"] {
			ts.Fatalf("request %d: %v %v, pi's %s", i, g["step"], g["call"], key)
		}
		if seen[key]++; seen[key] > 1 {
			key = fmt.Sprintf("%s#%d", key, seen[key])
		}
		if g["ok"] != p["ok"] {
			diffs[key+" ok"] = fmt.Sprintf("gopi ok=%v %v, pi ok=%v %v", g["ok"], g["error"], p["ok"], p["error"])
			continue
		}
		gv, pv := acpValues(g["data"]), acpValues(p["data"])
		for k, v := range pv {
			if gv[k] != v {
				diffs[key+" "+k] = fmt.Sprintf("gopi %s, pi %s", gv[k], v)
			}
		}
		for k, v := range gv {
			if _, ok := pv[k]; !ok {
				diffs[key+" "+k] = fmt.Sprintf("gopi %s, pi none", v)
			}
		}
	}
	for s := range piUpdates {
		if g, p := goUpdates[s], piUpdates[s]; !slices.Equal(g, p) {
			diffs[s+" updates"] = fmt.Sprintf("gopi %v, pi %v", g, p)
		}
	}
	for s, g := range goUpdates {
		if _, ok := piUpdates[s]; !ok {
			diffs[s+" updates"] = fmt.Sprintf("gopi %v, pi none", g)
		}
	}
	var bad []string
	for k, d := range diffs {
		if _, ok := acpDiffs[k]; !ok {
			bad = append(bad, k+": "+d)
		}
	}
	for k := range acpDiffs {
		if _, ok := diffs[k]; !ok {
			bad = append(bad, k+": listed as a difference, but gopi answers as pi")
		}
	}
	sort.Strings(bad)
	if len(bad) > 0 {
		ts.Fatalf("differences from pi 1.6 through pi-acp not listed in acpDiffs:\n%s", strings.Join(bad, "\n"))
	}
	ts.Logf("%d ACP requests as with pi 1.6, %d listed differences", len(piCalls), len(diffs))
}

func acpRecords(lines []map[string]any) (calls []map[string]any, updates map[string][]string) {
	updates = map[string][]string{}
	for _, l := range lines {
		if u, ok := l["update"].(map[string]any); ok {
			s := fmt.Sprint(l["step"])
			if k := fmt.Sprint(u["sessionUpdate"]); !slices.Contains(updates[s], k) {
				updates[s] = append(updates[s], k)
				slices.Sort(updates[s])
			}
			continue
		}
		calls = append(calls, l)
	}
	return calls, updates
}

// acpValues are what acpcompare compares of an answer.
func acpValues(data any) map[string]string {
	out := map[string]string{}
	d, ok := data.(map[string]any)
	if !ok {
		if data != nil {
			if a, ok := data.([]any); ok {
				out["length"] = fmt.Sprint(len(a))
			} else {
				out["value"] = fmt.Sprint(data)
			}
		}
		return out
	}
	out["keys"] = fmt.Sprint(sortedKeys(d))
	if r, ok := d["stopReason"]; ok {
		out["stopReason"] = fmt.Sprint(r)
	}
	opts, _ := d["configOptions"].([]any)
	for _, o := range opts {
		if o, ok := o.(map[string]any); ok {
			out[fmt.Sprint(o["id"])] = fmt.Sprint(o["currentValue"])
		}
	}
	if m, ok := d["modes"].(map[string]any); ok {
		out["modes.currentModeId"] = fmt.Sprint(m["currentModeId"])
		var ids []string
		for _, x := range m["availableModes"].([]any) {
			ids = append(ids, fmt.Sprint(x.(map[string]any)["id"]))
		}
		out["modes.availableModes"] = fmt.Sprint(ids)
	}
	if m, ok := d["models"].(map[string]any); ok {
		out["models.currentModelId"] = fmt.Sprint(m["currentModelId"])
	}
	if ss, ok := d["sessions"].([]any); ok {
		var titles []string
		for _, s := range ss {
			s, _ := s.(map[string]any)
			titles = append(titles, fmt.Sprint(s["title"], sortedKeys(s)))
		}
		out["sessions"] = fmt.Sprint(titles)
	}
	return out
}

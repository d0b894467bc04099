package cmd_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

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
//   - pi writes entry_appended for the context_edit entry it appends
//     before a retry; gopi appends no entry for a failed attempt.
//   - A provider splits text into any number of deltas: consecutive
//     events of the same shape count as one.
//   - A compaction before the first request of a run (pi checks before
//     the prompt) comes after the prompt's message_end in gopi, which
//     compacts as it sends a request; later ones come between turn_end
//     and turn_start in both.
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
	want := shapes(pi[1:], true)
	got := shapes(gopi[1:len(gopi)-1], false)
	if !slices.Equal(got, want) {
		ts.Fatalf("event shapes differ from pi 1.6's:\n%s", shapeDiff(got, want))
	}
	ts.Logf("%d event shapes as pi 1.6 has them", len(got))
}

func eventLines(ts *testscript.TestScript, file string) []map[string]any {
	var out []map[string]any
	for i, line := range strings.Split(strings.TrimRight(ts.ReadFile(file), "\n"), "\n") {
		var v map[string]any
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			ts.Fatalf("%s line %d: %v", file, i+1, err)
		}
		out = append(out, v)
	}
	return out
}

// shapes describes each event by its type, payload keys, message role and
// stream event, leaving out pi's own events (see cmdPiEvents) and
// collapsing repeats.
func shapes(events []map[string]any, pi bool) []string {
	var out []string
	for _, e := range events {
		if !pi {
			if e["schemaVersion"] == nil {
				return []string{fmt.Sprintf("%s without schemaVersion", e["type"])}
			}
			e = maps.Clone(e)
			delete(e, "schemaVersion")
		}
		msg, _ := e["message"].(map[string]any)
		if pi && (e["type"] == "entry_appended" || (msg != nil && msg["role"] == "system")) {
			continue
		}
		s := fmt.Sprintf("%s %v", e["type"], sortedKeys(e))
		if msg != nil {
			s += fmt.Sprintf(" role=%s", msg["role"])
		}
		if ame, ok := e["assistantMessageEvent"].(map[string]any); ok {
			s += fmt.Sprintf(" %s %v", ame["type"], sortedKeys(ame))
		}
		if r, ok := e["result"].(map[string]any); ok && e["type"] == "compaction_end" {
			s += fmt.Sprintf(" result=%v", sortedKeys(r))
		}
		if len(out) == 0 || out[len(out)-1] != s {
			out = append(out, s)
		}
	}
	return out
}

func sortedKeys(m map[string]any) []string {
	keys := slices.Collect(maps.Keys(m))
	slices.Sort(keys)
	return keys
}

func shapeDiff(got, want []string) string {
	var b strings.Builder
	for i := range max(len(got), len(want)) {
		g, w := "(none)", "(none)"
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		mark := "  "
		if g != w {
			mark = "! "
		}
		fmt.Fprintf(&b, "%s%3d gopi %s\n%s    pi   %s\n", mark, i+1, g, mark, w)
	}
	return b.String()
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
		if a, b := sortedKeys(pm), sortedKeys(gm); !slices.Equal(a, b) {
			ts.Fatalf("assistant %d keys: pi %v, gopi %v", i+1, a, b)
		}
		pu, _ := pi[i]["usage"].(map[string]any)
		gu, _ := gm["usage"].(map[string]any)
		if a, b := sortedKeys(pu), sortedKeys(gu); !slices.Equal(a, b) {
			ts.Fatalf("assistant %d usage keys: pi %v, gopi %v", i+1, a, b)
		}
		pc, _ := pu["cost"].(map[string]any)
		gc, _ := gu["cost"].(map[string]any)
		if a, b := sortedKeys(pc), sortedKeys(gc); !slices.Equal(a, b) {
			ts.Fatalf("assistant %d cost keys: pi %v, gopi %v", i+1, a, b)
		}
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

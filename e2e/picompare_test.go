package e2e

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// The core of the comparisons with pi 1.6's own output (pievents, pikeys,
// rpcpi): a file's JSON lines, the shapes of events, and keys.

// eventLines reads a file of JSON objects, one a line.
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
		if pi && msg != nil && msg["role"] == "system" {
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

// sameShapes fails the script unless gopi's events have the shapes of
// pi's (shapes: pi's own events left out, repeats collapsed); it returns
// how many shapes there are.
func sameShapes(ts *testscript.TestScript, pi, gopi []map[string]any) int {
	want := shapes(pi, true)
	got := shapes(gopi, false)
	if !slices.Equal(got, want) {
		ts.Fatalf("event shapes differ from pi 1.6's:\n%s", shapeDiff(got, want))
	}
	return len(got)
}

// sameKeys fails the script unless gopi's object has pi's keys.
func sameKeys(ts *testscript.TestScript, what string, gopi, pi map[string]any) {
	if g, p := sortedKeys(gopi), sortedKeys(pi); !slices.Equal(g, p) {
		ts.Fatalf("%s: keys %v, pi's %v", what, g, p)
	}
}

package exitcode

import (
	"regexp"
	"strconv"
	"testing"
)

// Every command Commands names has its table, each named once; every
// code a table lists is one of the codes, in increasing order.
func TestCommandsTables(t *testing.T) {
	t.Parallel()
	known := map[int]bool{}
	for _, c := range codes {
		known[c] = true
	}
	line := regexp.MustCompile(`(?m)^  (\d+) +\S`)
	seen := map[string]bool{}
	names := Commands()
	for _, path := range names {
		if seen[path] {
			t.Errorf("%q named twice", path)
		}
		seen[path] = true
		table, own := Table(path)
		if !own {
			t.Errorf("%q: no table of its own", path)
		}
		last := -1
		for _, m := range line.FindAllStringSubmatch(table, -1) {
			code, _ := strconv.Atoi(m[1])
			if !known[code] || code <= last {
				t.Errorf("%q lists code %d (after %d)", path, code, last)
			}
			last = code
		}
		if last < 1 {
			t.Errorf("%q lists no error code:\n%s", path, table)
		}
	}
	for _, path := range []string{"", "run", "chat", "rpc", "session list", "mcp list"} {
		if !seen[path] {
			t.Errorf("Commands lacks %q", path)
		}
	}
	if len(names) != len(seen) {
		t.Errorf("Commands = %q", names)
	}
	if table, own := Table("help"); own || table != otherTable {
		t.Errorf("help: own %v, table %q", own, table)
	}
}

// The codes are distinct: a code keeps one meaning.
func TestCodesDistinct(t *testing.T) {
	t.Parallel()
	seen := map[int]bool{}
	for _, c := range codes {
		if seen[c] {
			t.Errorf("code %d used twice", c)
		}
		seen[c] = true
	}
}

var codes = []int{OK, Internal, Usage, Provider, Auth, Session, MaxSteps, Timeout, Budget, Schema, Required, Interrupted}

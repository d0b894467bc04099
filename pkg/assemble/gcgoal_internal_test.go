package assemble

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
)

// lastCycle reads what the last collection marked and scanned, as
// percentForGoal does.
func lastCycle() (marked, scan uint64) {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/gc/scan/stack:bytes"}, {Name: "/gc/scan/globals:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64(), s[0].Value.Uint64() + s[1].Value.Uint64() + s[2].Value.Uint64()
}

// percentForGoal gives the least GOGC percentage (one more when the
// goal falls on a whole percentage) whose heap goal, as the runtime computes it from the last
// cycle, reaches the goal asked for; never more than 1<<20. The figures
// of the last cycle hold still while the collector is off.
func TestPercentForGoalReachesTheGoal(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	const minimum = 4 << 20
	check := func(name string) {
		t.Helper()
		runtime.GC()
		debug.SetGCPercent(-1)
		defer debug.SetGCPercent(100)
		marked, scan := lastCycle()
		// reaches: the runtime's goal for p, the larger of marked plus p%
		// of what was scanned and p% of the minimum, is at least goal.
		reaches := func(goal uint64, p int) bool {
			q := uint64(max(p, 0))
			return marked*100+scan*q >= goal*100 || minimum*q >= goal*100
		}
		// exact: the goal of p is the goal itself, so p-1 rounded up is p.
		exact := func(goal uint64, p int) bool {
			q := uint64(max(p, 0))
			return marked*100+scan*q == goal*100 || minimum*q == goal*100
		}
		for _, goal := range []uint64{marked + 1, marked + 1<<20, 2 * marked, 3*marked + 12345, marked + 100<<20, marked + 1<<30} {
			p := percentForGoal(goal)
			if !reaches(goal, p) || reaches(goal, p-1) && !exact(goal, p-1) {
				t.Errorf("%s: goal %d (marked %d, scanned %d): %d%%, not the least that reaches it", name, goal, marked, scan, p)
			}
		}
		if p := percentForGoal(1 << 50); p != 1<<20 {
			t.Errorf("%s: a goal out of reach: %d%%, want the bound %d%%", name, p, 1<<20)
		}
	}
	check("a small heap")
	kept := make([][]byte, 0, 64)
	for range 64 {
		kept = append(kept, make([]byte, 1<<20))
	}
	check("a 64 MiB heap")
	runtime.KeepAlive(kept)
}

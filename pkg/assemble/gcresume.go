package assemble

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// resumeGC turns the collector back on after GCPaused's read, with the
// goal a collection that had marked what the read kept would have set:
// twice the heap as it is. Turned on with its saved setting instead, the
// collector would still aim at the start-up heap's goal (4 MiB), start at
// once and mark the tens of megabytes just read only to find them live;
// a resume that sends them once and ends spent a sixth of its
// instructions on that. The first collection puts the saved setting back,
// from which the goals follow the heap as usual. gcPause is locked.
func resumeGC() {
	saved := gcPause.saved
	if saved < 0 {
		debug.SetGCPercent(saved)
		return
	}
	p := percentForGoal(2 * heapBytes())
	if p <= saved {
		debug.SetGCPercent(saved)
		return
	}
	debug.SetGCPercent(p)
	gcPause.raised, gcPause.raisedTo = true, p
	// Collected by the next cycle, which then restores the setting (unless
	// another read has paused the collector since: its end decides).
	runtime.AddCleanup(new([64]byte), func(int) {
		gcPause.Lock()
		defer gcPause.Unlock()
		if gcPause.raised && gcPause.n == 0 {
			// Unless something else changed the setting since.
			if cur := debug.SetGCPercent(gcPause.saved); cur != gcPause.raisedTo {
				debug.SetGCPercent(cur)
			}
		}
		gcPause.raised = false
	}, 0)
}

// heapBytes is the size of the heap's objects, live or not yet swept.
func heapBytes() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// percentForGoal returns the least GOGC percentage whose heap goal reaches
// goal, as the runtime computes the goal: the larger of the heap marked
// by the last cycle plus percent of it (with the stacks and globals
// scanned), and percent of a 4 MiB minimum.
func percentForGoal(goal uint64) int {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/gc/scan/stack:bytes"}, {Name: "/gc/scan/globals:bytes"}}
	metrics.Read(s)
	var v [3]uint64
	for i := range s {
		if s[i].Value.Kind() == metrics.KindUint64 {
			v[i] = s[i].Value.Uint64()
		}
	}
	marked, scan := v[0], v[0]+v[1]+v[2]
	const minimum = 4 << 20
	p := goal * 100 / minimum
	if scan > 0 && goal > marked {
		p = min(p, (goal-marked)*100/scan)
	}
	return int(min(p+1, 1<<20))
}

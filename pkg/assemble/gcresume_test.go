package assemble_test

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"

	"gopi/internal/fdcheck"
	"gopi/pkg/assemble"
)

func gogc() uint64 {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// After a read, the collector is on with a goal of about twice the heap
// the read left, so that it does not collect at once; the first
// collection puts the setting back as it was before the read.
func TestGCPausedResumesWithGoalOfTheReadHeap(t *testing.T) {
	fdcheck.Check(t)
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	runtime.GC()
	var during uint64
	kept, err := assemble.GCPaused(func() ([][]byte, error) {
		during = gogc()
		var out [][]byte
		for range 64 {
			out = append(out, make([]byte, 1<<20))
		}
		return out, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var st runtime.MemStats
	runtime.ReadMemStats(&st)
	if p := gogc(); p <= 100 || st.NextGC < 3*uint64(len(kept))<<20/2 {
		t.Fatalf("after a 64 MiB read: GOGC %d%%, next collection at %d bytes; want a goal near twice the heap", p, st.NextGC)
	}
	if during != math.MaxUint64 { // off
		t.Fatalf("GOGC %d%% during the read, want it off", during)
	}
	runtime.KeepAlive(kept)
	kept = nil
	// The restoring cleanup runs after a collection, on the runtime's own goroutine.
	for i := 0; i < 100 && gogc() != 100; i++ {
		runtime.GC()
		runtime.Gosched()
	}
	if p := gogc(); p != 100 {
		t.Fatalf("GOGC %d%% after collections, want 100%% restored", p)
	}
}

// With the collector off (GOGC=off), a read leaves it off.
func TestGCPausedKeepsTheCollectorOff(t *testing.T) {
	fdcheck.Check(t)
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	if _, err := assemble.GCPaused(func() (int, error) { return 0, nil }); err != nil {
		t.Fatal(err)
	}
	if p := debug.SetGCPercent(-1); p != -1 {
		t.Fatalf("GOGC %d%% after a read, want off", p)
	}
}

package assemble_test

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"

	"gopi/internal/fdcheck"
	"gopi/pkg/assemble"
)

// Reads that overlap share one pause: the collector stays off until the
// last ends.
func TestGCPausedOverlappingReads(t *testing.T) {
	fdcheck.Check(t)
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	var between uint64
	if _, err := assemble.GCPaused(func() (int, error) {
		if _, err := assemble.GCPaused(func() (int, error) { return 0, nil }); err != nil {
			return 0, err
		}
		between = gogc()
		return 0, nil
	}); err != nil {
		t.Fatal(err)
	}
	if between != math.MaxUint64 {
		t.Errorf("GOGC %d%% after the inner read ended, want off until the outer one ends", between)
	}
	if p := gogc(); p == math.MaxUint64 {
		t.Error("the collector stays off after both reads")
	}
}

// A setting higher than any goal the read asks for is put back as it
// was.
func TestGCPausedKeepsAHigherSetting(t *testing.T) {
	fdcheck.Check(t)
	const high = 3 << 20
	defer debug.SetGCPercent(debug.SetGCPercent(high))
	if _, err := assemble.GCPaused(func() ([]byte, error) { return make([]byte, 1<<20), nil }); err != nil {
		t.Fatal(err)
	}
	if p := gogc(); p != high {
		t.Errorf("GOGC %d%% after a read, want %d%% as before", p, high)
	}
}

// A setting changed after the read, before the first collection, is
// left as it was changed.
func TestGCPausedLeavesASettingChangedSince(t *testing.T) {
	fdcheck.Check(t)
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	runtime.GC()
	kept, err := assemble.GCPaused(read32MiB)
	if err != nil {
		t.Fatal(err)
	}
	if p := gogc(); p <= 100 {
		t.Fatalf("GOGC %d%% after a 32 MiB read, want a raised goal", p)
	}
	runtime.KeepAlive(kept)
	debug.SetGCPercent(150)
	for range 50 { // the restoring cleanup runs after a collection, on the runtime's own goroutine
		runtime.GC()
		runtime.Gosched()
	}
	if p := gogc(); p != 150 {
		t.Fatalf("GOGC %d%%, want the 150%% set after the read", p)
	}
}

// A setting made after an earlier read's goal was put back is the one a
// later read saves and restores, even when it equals that goal.
func TestGCPausedSavesTheSettingOfTheDay(t *testing.T) {
	fdcheck.Check(t)
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	runtime.GC()
	kept, err := assemble.GCPaused(read32MiB)
	if err != nil {
		t.Fatal(err)
	}
	raised := gogc()
	for i := 0; i < 100 && gogc() != 100; i++ { // the cleanup puts 100% back after a collection
		runtime.GC()
		runtime.Gosched()
	}
	if p := gogc(); raised <= 100 || p != 100 {
		t.Fatalf("GOGC raised to %d%%, then %d%%; want it raised, then 100%% back", raised, p)
	}
	debug.SetGCPercent(int(raised)) // the user's own setting, by chance the same
	if _, err := assemble.GCPaused(func() (int, error) { return 0, nil }); err != nil {
		t.Fatal(err)
	}
	for range 50 {
		runtime.GC()
		runtime.Gosched()
	}
	runtime.KeepAlive(kept)
	if p := gogc(); p != raised {
		t.Fatalf("GOGC %d%% after the second read, want the %d%% set before it", p, raised)
	}
}

// read32MiB stands for a large read: 32 MiB kept alive until it returns.
func read32MiB() ([][]byte, error) {
	var out [][]byte
	for range 32 {
		out = append(out, make([]byte, 1<<20))
	}
	return out, nil
}

package tools

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestOutputSinkMemoryBounded pins the bound on what bash keeps of a
// command's output in memory: however much arrives, in pieces of any
// size, the ring holds exactly the last 100 KiB (ringCap) and its buffer
// never grows past twice that, while the shown tail stays the output's.
func TestOutputSinkMemoryBounded(t *testing.T) {
	s := newOutputSink(t.TempDir(), 0)
	defer s.close()
	r := rand.New(rand.NewPCG(3, 4))
	sizes := []int{1, readChunk, readChunk + 1, ringCap - 1, ringCap, ringCap + 1, 3 * readChunk, 7, 1}
	for range 60 {
		sizes = append(sizes, 1+r.IntN(2*readChunk))
	}
	total := 0
	for _, size := range sizes {
		total += size
	}
	all := []byte(patterned(total))
	var out []byte
	for _, size := range sizes {
		p := all[len(out) : len(out)+size]
		out = all[:len(out)+size]
		s.write(p)
		if want := out[len(out)-min(len(out), ringCap):]; !bytes.Equal(s.ring, want) {
			t.Fatalf("after %d bytes the ring holds %d bytes, want the last %d", len(out), len(s.ring), len(want))
		}
		if cap(s.ring) > 2*ringCap {
			t.Fatalf("after %d bytes the ring's buffer holds %d bytes, over %d", len(out), cap(s.ring), 2*ringCap)
		}
	}
	text, tr, invalid := s.tail()
	want := truncateTail(string(out), DefaultMaxLines, DefaultMaxBytes)
	if invalid || text != want.Content || tr.TotalBytes != len(out) || tr.OutputBytes != want.OutputBytes {
		t.Errorf("tail: %d bytes %+v, want %d bytes", len(text), tr, len(want.Content))
	}
}

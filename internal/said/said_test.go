package said

import (
	"sync"
	"testing"
)

// A key is new once, whoever asks, however many ask at once; a nil Set
// finds every key new.
func TestFirstOnce(t *testing.T) {
	var s Set
	var wg sync.WaitGroup
	var mu sync.Mutex
	firsts := map[string]int{}
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, k := range []string{"a", "b", "a"} {
				if s.First(k) {
					mu.Lock()
					firsts[k]++
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if firsts["a"] != 1 || firsts["b"] != 1 || len(firsts) != 2 {
		t.Fatalf("first sayings %v, want a and b once each", firsts)
	}
	if !s.First("c") || s.First("c") {
		t.Fatal("a new key is not new exactly once")
	}
	var none *Set
	if !none.First("a") || !none.First("a") {
		t.Fatal("a nil Set remembered a key")
	}
}

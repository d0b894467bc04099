package interrupt

import "testing"

type countKill struct{ n int }

func (c *countKill) Kill() { c.n++ }

func TestKillsKillsWhatIsOpen(t *testing.T) {
	var ks Kills
	a, b := &countKill{}, &countKill{}
	ks.Add(a)
	ks.Add(b)
	ks.Remove(b)
	ks.KillAll()
	if a.n != 1 || b.n != 0 {
		t.Fatalf("kills: open %d, removed %d; want 1, 0", a.n, b.n)
	}
	var none *Kills
	none.Add(a)
	none.Remove(a)
	none.KillAll()
	if a.n != 1 {
		t.Fatalf("a nil Kills killed")
	}
}

type abandonKill struct {
	countKill
	code chan int
}

func (a *abandonKill) Abandon(code int) { a.code <- code }

// AbandonAll tells every open Abandoner the exit code, all at once, and
// returns when they have sent; a Killer that is not one is left alone.
func TestAbandonAllWaitsForEachOpenAbandoner(t *testing.T) {
	var ks Kills
	a, b, gone := &abandonKill{code: make(chan int, 1)}, &abandonKill{code: make(chan int, 1)}, &abandonKill{code: make(chan int, 1)}
	ks.Add(a)
	ks.Add(b)
	ks.Add(&countKill{})
	ks.Add(gone)
	ks.Remove(gone)
	ks.AbandonAll(130)
	for _, x := range []*abandonKill{a, b} {
		select {
		case c := <-x.code:
			if c != 130 {
				t.Fatalf("abandoned with %d, want 130", c)
			}
		default:
			t.Fatal("AbandonAll returned before an Abandoner was told")
		}
	}
	if len(gone.code) != 0 {
		t.Fatal("a removed Abandoner was told")
	}
	var none *Kills
	none.AbandonAll(130)
}

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

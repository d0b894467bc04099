package mode

import "testing"

func TestSessionOfNoAssembly(t *testing.T) {
	if Opened(nil) || SessionOf(nil) != nil {
		t.Fatal("an Assembly not built opened a session")
	}
}

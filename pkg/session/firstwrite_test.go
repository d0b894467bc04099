package session

import (
	"errors"
	"testing"
)

func wantChange(change string) func(t *testing.T, err error) {
	return func(t *testing.T, err error) {
		t.Helper()
		var ce *ChangedError
		if !errors.As(err, &ce) || ce.Change != change {
			t.Errorf("append: %v, want a ChangedError %q", err, change)
		}
	}
}

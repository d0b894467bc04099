// Package assembletest builds Assemblies on the faux model for the tests
// of the packages above assemble (chat, rpc, acp): a fresh folder, home
// and spill folder per test, opened, and released when the test ends.
// Tests only: no non-test code imports it.
package assembletest

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"gopi/pkg/assemble"
)

// Settings are an Assembly's settings on the faux model playing script
// (a faux reply script's JSON; "" for its built-in demo), in fresh
// folders, without tools.
func Settings(t testing.TB, script string) assemble.Settings {
	t.Helper()
	id := "demo"
	if script != "" {
		id = filepath.Join(t.TempDir(), "script.json")
		if err := os.WriteFile(id, []byte(script), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return assemble.Settings{Cwd: t.TempDir(), Home: t.TempDir(), Model: assemble.ModelSettings{Provider: "faux", ID: id},
		MaxSteps: 5, SpillDir: filepath.Join(t.TempDir(), "spill"), SystemPrompt: "be brief"}
}

// Open builds and opens an Assembly of s, its Runtime disposed and the
// Assembly closed when the test ends.
func Open(t testing.TB, s assemble.Settings) *assemble.Assembly {
	t.Helper()
	a, err := assemble.New(s, assemble.Env{Now: time.Now, Stderr: &bytes.Buffer{}})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Open(); err != nil {
		a.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = a.Runtime().Dispose(context.Background())
		a.Close()
	})
	return a
}

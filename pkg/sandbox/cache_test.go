package sandbox

import (
	"path/filepath"
	"slices"
	"testing"
)

func TestCacheDirIsPerWorkspace(t *testing.T) {
	base := t.TempDir()
	a, b := filepath.Join(base, "p", "app"), filepath.Join(base, "q", "app")
	ca, cb := CacheDir(base, a), CacheDir(base, b)
	if ca == cb {
		t.Fatalf("two workspaces named app share the cache folder %s", ca)
	}
	if ca != CacheDir(base, a) {
		t.Fatal("the cache folder of one workspace changes between calls")
	}
	if filepath.Dir(ca) != base || filepath.Base(ca)[:4] != "app-" {
		t.Fatalf("cache folder %s: want %s/app-<hash>", ca, base)
	}
}

func TestCacheEnv(t *testing.T) {
	ws, tmp, cache := t.TempDir(), t.TempDir(), t.TempDir()
	p := Policy{Mode: WorkspaceWrite, Writable: []string{ws}, TempDir: tmp, Cache: cache}
	env := p.CacheEnv([]string{
		"PATH=/bin",
		"GOCACHE=/home/someone/.cache/go-build",      // the user's own: replaced
		"PIP_CACHE_DIR=" + filepath.Join(ws, ".pip"), // a writable folder: kept
		"npm_config_cache=relative/npm",              // not a folder a command may write: replaced
	})
	for _, want := range []string{
		"PATH=/bin",
		"GOCACHE=" + filepath.Join(cache, "go-build"),
		"PIP_CACHE_DIR=" + filepath.Join(ws, ".pip"),
		"npm_config_cache=" + filepath.Join(cache, "npm"),
		"XDG_CACHE_HOME=" + filepath.Join(cache, "xdg"),
	} {
		if !slices.Contains(env, want) {
			t.Errorf("environment lacks %s: %q", want, env)
		}
	}
	for _, v := range CacheVars {
		n := 0
		for _, kv := range env {
			if len(kv) > len(v.Name) && kv[:len(v.Name)+1] == v.Name+"=" {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%s set %d times: %q", v.Name, n, env)
		}
	}

	// read-only: the caches live in the private temp folder, gone with the run
	ro := Policy{Mode: ReadOnly, TempDir: tmp, Cache: cache}
	if !slices.Contains(ro.CacheEnv(nil), "GOCACHE="+filepath.Join(tmp, "cache", "go-build")) {
		t.Errorf("read-only: %q", ro.CacheEnv(nil))
	}
	// off: nothing changes
	if env := (Policy{Mode: Off, Cache: cache}).CacheEnv([]string{"GOCACHE=/x"}); !slices.Equal(env, []string{"GOCACHE=/x"}) {
		t.Errorf("off: %q", env)
	}
}

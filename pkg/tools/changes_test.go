package tools

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

func changesOf(t *testing.T, env *Env, steps ...func()) []FileChange {
	t.Helper()
	for _, s := range steps {
		s()
	}
	return env.Changes.List(env.Cwd)
}

func wantChanges(t *testing.T, got []FileChange, want ...FileChange) {
	t.Helper()
	if want == nil {
		want = []FileChange{}
	}
	if !slices.Equal(got, want) {
		t.Errorf("changes %v, want %v", got, want)
	}
}

// write and edit report what they did; a file created and then edited
// is created, one written and removed again is nothing.
func TestChangesFromWriteAndEdit(t *testing.T) {
	env := testEnv(t)
	env.Changes = &Changes{}
	if err := os.WriteFile(filepath.Join(env.Cwd, "old.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := changesOf(t, env, func() {
		runTool(t, env, NewWrite(), map[string]any{"path": "new.txt", "content": "x\n"})
		runTool(t, env, NewEdit(), map[string]any{"path": "new.txt", "oldText": "x", "newText": "y"})
		runTool(t, env, NewWrite(), map[string]any{"path": "old.txt", "content": "b\n"})
		runTool(t, env, NewEdit(), map[string]any{"path": "old.txt", "oldText": "nothing", "newText": "y"}) // fails: no change
		runTool(t, env, NewWrite(), map[string]any{"path": "sub/dir/deep.txt", "content": "d"})
	})
	wantChanges(t, got, FileChange{Path: "new.txt", Change: Created}, FileChange{Path: "old.txt", Change: Modified}, FileChange{Path: "sub/dir/deep.txt", Change: Created})
}

// Without git, bash's changes are seen by comparing sizes and times.
func TestChangesFromBashWithoutGit(t *testing.T) {
	env := testEnv(t)
	env.Changes = &Changes{}
	for _, f := range []string{"keep.txt", "edit.txt", "gone.txt"} {
		if err := os.WriteFile(filepath.Join(env.Cwd, f), []byte("1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := changesOf(t, env, func() {
		res := runTool(t, env, NewBash(Options{}), map[string]any{"command": "echo more >> edit.txt; rm gone.txt; mkdir d; echo n > d/made.txt; touch tmp; rm tmp"})
		if res.IsError {
			t.Fatal(text(res))
		}
	})
	wantChanges(t, got, FileChange{Path: "d/made.txt", Change: Created}, FileChange{Path: "edit.txt", Change: Modified}, FileChange{Path: "gone.txt", Change: Deleted})
	if env.Changes.Inexact() {
		t.Error("a small tree was not compared whole")
	}
}

// In a git repository git's view is used: tracked files modified or
// deleted, untracked ones created, a file dirty before and changed again,
// a change reverted, and nothing for files the command only read.
func TestChangesFromBashInGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is needed for this test: install it")
	}
	env := testEnv(t)
	env.Environ = append(env.Environ, "GIT_CONFIG_GLOBAL=/dev/null", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	setup := "git init -q . && printf '1\\n' > a.txt && printf '1\\n' > b.txt && printf '1\\n' > c.txt && printf '1\\n' > dirty.txt && printf '1\\n' > back.txt" +
		" && git add . && git commit -qm init && printf '2\\n' >> dirty.txt && printf '2\\n' > back.txt && printf 'u\\n' > untracked.txt"
	if res := runTool(t, env, NewBash(Options{}), map[string]any{"command": setup}); res.IsError {
		t.Fatal(text(res))
	}
	env.Changes = &Changes{}
	got := changesOf(t, env, func() {
		cmd := "printf '2\\n' >> a.txt; rm b.txt; cat c.txt > /dev/null; printf '3\\n' >> dirty.txt; git checkout -q back.txt; printf 'n\\n' > new.txt; rm untracked.txt"
		if res := runTool(t, env, NewBash(Options{}), map[string]any{"command": cmd}); res.IsError {
			t.Fatal(text(res))
		}
	})
	wantChanges(t, got, FileChange{Path: "a.txt", Change: Modified}, FileChange{Path: "b.txt", Change: Deleted}, FileChange{Path: "back.txt", Change: Modified},
		FileChange{Path: "dirty.txt", Change: Modified}, FileChange{Path: "new.txt", Change: Created}, FileChange{Path: "untracked.txt", Change: Deleted})
	if env.Changes.Inexact() {
		t.Error("git's view was taken as incomplete")
	}
}

// A tree too big to compare in full is reported as inexact, not as
// unchanged.
func TestChangesInexactOnHugeTree(t *testing.T) {
	defer func(n int) { maxWalk = n }(maxWalk)
	maxWalk = 50
	env := testEnv(t)
	env.Changes = &Changes{}
	dir := filepath.Join(env.Cwd, "many")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range maxWalk + 1 {
		f, err := os.Create(filepath.Join(dir, "f"+strconv.Itoa(i)))
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	runTool(t, env, NewBash(Options{}), map[string]any{"command": "true"})
	if !env.Changes.Inexact() {
		t.Error("a tree over the bound was taken as compared whole")
	}
}

// The change over a run follows the first and the last seen: created then
// deleted is nothing, deleted then created again is modified; a file's
// time alone changing is a modification; a file outside the working
// directory is named by its absolute path. A nil Changes records nothing.
func TestChangesOverARun(t *testing.T) {
	env := testEnv(t)
	env.Changes = &Changes{}
	for _, f := range []string{"again.txt", "touched.txt"} {
		if err := os.WriteFile(filepath.Join(env.Cwd, f), []byte("1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	outside := filepath.Join(t.TempDir(), "outside.txt")
	bash := func(cmd string) {
		if res := runTool(t, env, NewBash(Options{}), map[string]any{"command": cmd}); res.IsError {
			t.Fatal(text(res))
		}
	}
	got := changesOf(t, env, func() {
		runTool(t, env, NewWrite(), map[string]any{"path": "brief.txt", "content": "x\n"})
		bash("rm brief.txt again.txt")
		runTool(t, env, NewWrite(), map[string]any{"path": "again.txt", "content": "2\n"})
		bash("touch -d 2001-01-01T00:00:00Z touched.txt")
		runTool(t, env, NewWrite(), map[string]any{"path": outside, "content": "o\n"})
	})
	wantChanges(t, got, FileChange{Path: "again.txt", Change: Modified}, FileChange{Path: "touched.txt", Change: Modified}, FileChange{Path: filepath.ToSlash(outside), Change: Created})

	var none *Changes
	none.record("x", Created)
	if none.List(env.Cwd) != nil || none.Inexact() || none.snapshot(t.Context(), env) != nil {
		t.Error("a nil Changes recorded something")
	}
}

// In git, a file added to the index is created and one removed with git
// rm deleted; from a subfolder, paths are shown relative to it and files
// outside it are not looked at.
func TestChangesFromBashInGitIndex(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is needed for this test: install it")
	}
	env := testEnv(t)
	env.Environ = append(env.Environ, "GIT_CONFIG_GLOBAL=/dev/null", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	setup := "git init -q . && mkdir sub && printf '1\\n' > sub/a.txt && printf '1\\n' > sub/b.txt && printf '1\\n' > top.txt" +
		" && git add . && git commit -qm init"
	if res := runTool(t, env, NewBash(Options{}), map[string]any{"command": setup}); res.IsError {
		t.Fatal(text(res))
	}
	env.Cwd = filepath.Join(env.Cwd, "sub")
	env.Changes = &Changes{}
	got := changesOf(t, env, func() {
		cmd := "printf 'n\\n' > new.txt && git add new.txt && git rm -q b.txt && printf '2\\n' >> ../top.txt"
		if res := runTool(t, env, NewBash(Options{}), map[string]any{"command": cmd}); res.IsError {
			t.Fatal(text(res))
		}
	})
	wantChanges(t, got, FileChange{Path: "b.txt", Change: Deleted}, FileChange{Path: "new.txt", Change: Created})
}

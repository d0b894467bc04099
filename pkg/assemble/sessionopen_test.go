package assemble_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gopi/internal/fdcheck"
	"gopi/pkg/ai"
	"gopi/pkg/assemble"
	"gopi/pkg/session"
)

// opened builds an Assembly of s, or fails the test; it is closed when
// the test ends.
func opened(t *testing.T, s assemble.Settings, stderr *bytes.Buffer) *assemble.Assembly {
	t.Helper()
	a, err := assemble.Build(s, env(stderr))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		dispose(t, a)
		a.Close()
	})
	return a
}

// with builds an Assembly of s, hands it to check, and closes it.
func with(t *testing.T, s assemble.Settings, check func(a *assemble.Assembly)) {
	t.Helper()
	var stderr bytes.Buffer
	a, err := assemble.Build(s, env(&stderr))
	if err != nil {
		t.Errorf("%+v: %v", s.Session, err)
		return
	}
	check(a)
	dispose(t, a)
	a.Close()
}

// refused builds an Assembly of s and wants a usage error saying want.
func refused(t *testing.T, s assemble.Settings, class ai.Class, want string) {
	t.Helper()
	var stderr bytes.Buffer
	a, err := assemble.Build(s, env(&stderr))
	if err == nil {
		dispose(t, a)
		a.Close()
	}
	if classOf(err) != class || !strings.Contains(err.Error(), want) {
		t.Errorf("%+v: got %v, want %s error saying %q", s.Session, err, class, want)
	}
}

// recorded builds a session of one prompt in s's folders and returns its
// file and leaf, closed.
func recorded(t *testing.T, s assemble.Settings) (file, leaf string) {
	t.Helper()
	var stderr bytes.Buffer
	a, err := assemble.Build(s, env(&stderr))
	if err != nil {
		t.Fatal(err)
	}
	leaf = prompt(t, a, "look around")
	file = a.File()
	dispose(t, a)
	a.Close()
	return file, leaf
}

// --no-session keeps the session in memory, with the id asked for, and
// is refused with any flag that names a session to read.
func TestNoSession(t *testing.T) {
	fdcheck.Check(t)
	s := settings(t)
	for _, ss := range []assemble.SessionSettings{
		{None: true, Path: "x.jsonl"}, {None: true, Leaf: "abc"}, {None: true, Continue: true}, {None: true, Fork: "x.jsonl"},
	} {
		s.Session = ss
		refused(t, s, ai.ClassUsage, "--no-session cannot be combined with --session, --fork, --leaf or --continue")
	}
	var stderr bytes.Buffer
	s.Session = assemble.SessionSettings{None: true, ID: "my-run"}
	a := opened(t, s, &stderr)
	if a.File() != "" || a.Store().Header().ID != "my-run" {
		t.Errorf("file %q, id %q", a.File(), a.Store().Header().ID)
	}
	if _, err := os.Stat(assemble.SessionsRoot(s.Home)); !os.IsNotExist(err) {
		t.Errorf("--no-session wrote the sessions folder: %v", err)
	}
}

// A name is one line, trimmed; an empty one is refused.
func TestSessionName(t *testing.T) {
	fdcheck.Check(t)
	s := settings(t)
	s.Session = assemble.SessionSettings{NameSet: true, Name: " \n "}
	refused(t, s, ai.ClassUsage, "--name: give a non-empty name")
	var stderr bytes.Buffer
	s.Session = assemble.SessionSettings{NameSet: true, Name: "  fix the\r\nbuild \n"}
	if a := opened(t, s, &stderr); a.Name() != "fix the build" {
		t.Errorf("name %q", a.Name())
	}
	s.Session = assemble.SessionSettings{Name: "not given"}
	if a := opened(t, s, &stderr); a.Name() != "" {
		t.Errorf("a name not given: %q", a.Name())
	}
}

// The first session in gopi's sessions folder is said once, with where
// it is; a session in a folder the user chose is not.
func TestFirstSessionSaidOnce(t *testing.T) {
	fdcheck.Check(t)
	s := settings(t)
	var stderr bytes.Buffer
	a := opened(t, s, &stderr)
	if want := "gopi: session saved to " + a.File() + " (gopi session list shows it; --no-session keeps none)\n"; stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
	stderr.Reset()
	opened(t, s, &stderr)
	if stderr.Len() != 0 {
		t.Errorf("the second session: %q", stderr.String())
	}
	s = settings(t)
	s.Session.Dir = "runs"
	b := opened(t, s, &stderr)
	if stderr.Len() != 0 || filepath.Dir(b.File()) != filepath.Join(s.Cwd, "runs") {
		t.Errorf("--session-dir runs: %s, stderr %q", b.File(), stderr.String())
	}
}

// -c continues the newest session of the folder at its newest entry;
// with none it starts one (and says so), unless --leaf names an entry.
func TestContinue(t *testing.T) {
	fdcheck.Check(t)
	for _, dir := range []string{"", "runs"} {
		t.Run("dir="+dir, func(t *testing.T) {
			s := settings(t)
			s.Session = assemble.SessionSettings{Continue: true, Leaf: "abc", Dir: dir}
			refused(t, s, ai.ClassUsage, "-c: no session to continue for "+s.Cwd)
			var stderr bytes.Buffer
			s.Session = assemble.SessionSettings{Continue: true, Dir: dir}
			a := opened(t, s, &stderr)
			if !strings.Contains(stderr.String(), "gopi: -c: no session of "+s.Cwd+" to continue; starting a new one") || a.File() == "" {
				t.Fatalf("stderr %q, file %q", stderr.String(), a.File())
			}
			s.Session = assemble.SessionSettings{Dir: dir}
			file, leaf := recorded(t, s)
			s.Session = assemble.SessionSettings{Continue: true, Dir: dir}
			b := opened(t, s, &stderr)
			if b.File() != file || b.Leaf() != leaf {
				t.Errorf("continued %s at %s, want %s at %s", b.File(), b.Leaf(), file, leaf)
			}
		})
	}
}

// --session-id starts a session of that id, and continues it when it
// exists (at its newest entry); a fork with an id taken is refused.
func TestSessionID(t *testing.T) {
	fdcheck.Check(t)
	s := settings(t)
	s.Session = assemble.SessionSettings{ID: "task-42"}
	file, leaf := recorded(t, s)
	var stderr bytes.Buffer
	a := opened(t, s, &stderr)
	if a.File() != file || a.Leaf() != leaf || a.Store().Header().ID != "task-42" {
		t.Errorf("%s at %s (id %s), want %s at %s", a.File(), a.Leaf(), a.Store().Header().ID, file, leaf)
	}
}

// --fork copies a session, named by file or id, into a new one that
// continues from its newest entry; an id already taken, a missing file
// and an unknown id are refused, each naming the flag.
func TestFork(t *testing.T) {
	fdcheck.Check(t)
	s := settings(t)
	file, leaf := recorded(t, s)
	var stderr bytes.Buffer
	s.Session = assemble.SessionSettings{Fork: file, ID: "forked"}
	with(t, s, func(a *assemble.Assembly) {
		if a.File() == file || a.Leaf() != leaf || a.Store().Header().ID != "forked" {
			t.Errorf("fork %s at %s (id %s), want a new file at %s", a.File(), a.Leaf(), a.Store().Header().ID, leaf)
		}
		prompt(t, a, "go on") // a whole copy is written with the first entry
	})
	s.Session = assemble.SessionSettings{Fork: file, ID: "forked"}
	refused(t, s, ai.ClassUsage, "--session-id forked: a session with this id exists already in ")
	s.Session = assemble.SessionSettings{Fork: filepath.Join(s.Cwd, "nosuch.jsonl")}
	refused(t, s, ai.ClassUsage, "no such session file: give an existing session file or id")
	s.Session = assemble.SessionSettings{Fork: "ffffffff"}
	refused(t, s, ai.ClassUsage, "--fork ffffffff: ")
	s.Session = assemble.SessionSettings{Fork: file, Dir: "forks"}
	if b := opened(t, s, &stderr); filepath.Dir(b.File()) != filepath.Join(s.Cwd, "forks") {
		t.Errorf("fork into --session-dir: %s", b.File())
	}
}

// --session opens a file or an id prefix; a path that does not exist
// starts a session there, unless -c or --leaf asks to continue it; a
// session that is not empty needs --leaf or -c, and lists its leaves.
func TestSessionPath(t *testing.T) {
	fdcheck.Check(t)
	s := settings(t)
	file, leaf := recorded(t, s)
	s.Session = assemble.SessionSettings{Path: file}
	refused(t, s, ai.ClassUsage, "session "+file+" is not empty: continue from an entry with --leaf ID, or from the newest with -c (leaves, newest first: "+leaf+")")
	s.Session = assemble.SessionSettings{Path: file, Leaf: leaf[:6]}
	with(t, s, func(a *assemble.Assembly) {
		if a.Leaf() != leaf {
			t.Errorf("--leaf %s: at %s", leaf[:6], a.Leaf())
		}
	})
	s.Session = assemble.SessionSettings{Path: file, Leaf: "zzzz"}
	refused(t, s, ai.ClassUsage, "--leaf: ")
	s.Session = assemble.SessionSettings{Path: file, Newest: true}
	with(t, s, func(a *assemble.Assembly) {
		if a.Leaf() != leaf {
			t.Errorf("newest: at %s", a.Leaf())
		}
	})
	id := strings.TrimSuffix(filepath.Base(file), ".jsonl")
	id = id[strings.IndexByte(id, '_')+1:]
	s.Session = assemble.SessionSettings{Path: id[:8], Continue: true}
	with(t, s, func(a *assemble.Assembly) {
		if a.File() != file {
			t.Errorf("by id prefix %s: %s", id[:8], a.File())
		}
	})
	s.Session = assemble.SessionSettings{Path: "ffffffffff"}
	refused(t, s, ai.ClassUsage, "--session ffffffffff: ")

	fresh := filepath.Join(s.Cwd, "new.jsonl")
	s.Session = assemble.SessionSettings{Path: fresh, Leaf: "abc"}
	refused(t, s, ai.ClassUsage, "--session "+fresh+" does not exist, so it has no entry abc")
	s.Session = assemble.SessionSettings{Path: fresh, Continue: true}
	refused(t, s, ai.ClassUsage, "--session "+fresh+" does not exist, so there is nothing to continue")
	if _, err := os.Stat(fresh); !os.IsNotExist(err) {
		t.Fatalf("a refusal created %s: %v", fresh, err)
	}
	// A relative path is the process's: it starts a session there.
	t.Chdir(s.Cwd)
	s.Session = assemble.SessionSettings{Path: "new.jsonl"}
	with(t, s, func(a *assemble.Assembly) {
		if real, _ := filepath.EvalSymlinks(a.File()); a.File() != fresh && real != fresh || a.Leaf() != "" {
			t.Errorf("a new file: %s at %q", a.File(), a.Leaf())
		}
	})
	empty := filepath.Join(s.Cwd, "empty.jsonl")
	header := `{"type":"session","version":3,"id":"0198c3a4-0000-7000-8000-000000000000","timestamp":"2026-01-01T00:00:00.000Z","cwd":"` + s.Cwd + `"}` + "\n"
	if err := os.WriteFile(empty, []byte(header), 0o600); err != nil {
		t.Fatal(err)
	}
	s.Session = assemble.SessionSettings{Path: empty, Leaf: "abc"}
	refused(t, s, ai.ClassUsage, "--leaf abc: session "+empty+" has no entries yet; leave out --leaf to start it")
	s.Session = assemble.SessionSettings{Path: empty}
	with(t, s, func(a *assemble.Assembly) {
		if a.Leaf() != "" || a.File() != empty {
			t.Errorf("an empty session: %s at %q", a.File(), a.Leaf())
		}
	})
}

// A file that is not a session is an input error; a folder given as a
// session is refused.
func TestSessionThatIsNoSession(t *testing.T) {
	fdcheck.Check(t)
	s := settings(t)
	bad := filepath.Join(s.Cwd, "notes.jsonl")
	if err := os.WriteFile(bad, []byte("{\"type\":\"note\"}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s.Session = assemble.SessionSettings{Path: bad, Continue: true}
	refused(t, s, ai.ClassUsage, bad)
	dir := filepath.Join(s.Cwd, "a.jsonl")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	s.Session = assemble.SessionSettings{Path: dir}
	refused(t, s, ai.ClassUsage, dir)
}

// LockWait waits for another process to let go of the session's lock.
func TestLockWait(t *testing.T) {
	fdcheck.Check(t)
	s := settings(t)
	file, leaf := recorded(t, s)
	held, err := session.Open(file, session.Options{})
	if err != nil {
		t.Fatal(err)
	}
	released := make(chan struct{})
	go func() {
		defer close(released)
		time.Sleep(100 * time.Millisecond)
		held.Close()
	}()
	var stderr bytes.Buffer
	s.Session = assemble.SessionSettings{Path: file, Continue: true, LockWait: time.Minute}
	a, err := assemble.Build(s, env(&stderr))
	<-released
	if err != nil {
		t.Fatalf("waiting for the lock: %v", err)
	}
	defer a.Close()
	defer dispose(t, a)
	if a.Leaf() != leaf {
		t.Errorf("at %s, want %s", a.Leaf(), leaf)
	}
}

// A session that is not empty lists at most eight of its leaves, newest
// first, when no leaf is chosen.
func TestNotEmptyListsEightLeaves(t *testing.T) {
	fdcheck.Check(t)
	s := settings(t)
	var stderr bytes.Buffer
	a, err := assemble.Build(s, env(&stderr))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	leaves := []string{prompt(t, a, "look around")}
	root := a.Store().Entries()[0].ID
	for range 8 {
		if _, err := a.Reopen(assemble.Want{Leaf: root}); err != nil {
			t.Fatal(err)
		}
		leaves = append(leaves, prompt(t, a, "look around"))
	}
	file := a.File()
	dispose(t, a)
	a.Close()
	s.Session = assemble.SessionSettings{Path: file}
	var newest []string
	for i := 8; i > 0; i-- {
		newest = append(newest, leaves[i])
	}
	refused(t, s, ai.ClassUsage, "(leaves, newest first: "+strings.Join(newest, ", ")+", …)")
}

// When Open fails after the session was opened, the store stays open,
// so the caller can name it, until Close; New wrote nothing.
func TestOpenErrorKeepsTheStoreUntilClose(t *testing.T) {
	fdcheck.Check(t)
	s := settings(t)
	file, _ := recorded(t, s)
	s.Session = assemble.SessionSettings{Path: file, Continue: true}
	s.Limits.USD = 1
	var stderr bytes.Buffer
	a, err := assemble.New(s, env(&stderr))
	if err != nil {
		t.Fatal(err)
	}
	if a.Store() != nil || a.Runtime() != nil {
		t.Fatalf("New opened the session")
	}
	if err := a.Open(); classOf(err) != ai.ClassUsage {
		a.Close()
		t.Fatalf("Open: %v", err)
	}
	if a.File() != file || a.Store() == nil || a.Runtime() != nil {
		a.Close()
		t.Fatalf("after a failed Open: file %q, store %v", a.File(), a.Store())
	}
	if st, err := session.Open(file, session.Options{}); err == nil {
		st.Close()
		t.Error("the session is not held after a failed Open")
	}
	a.Close()
	unlocked(t, file)
}

// What is wrong with a session file that can still be read is said on
// stderr as it is opened.
func TestSessionWarningsSaid(t *testing.T) {
	fdcheck.Check(t)
	s := settings(t)
	file, leaf := recorded(t, s)
	f, err := os.OpenFile(file, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.WriteString("not json\n")
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	s.Session = assemble.SessionSettings{Path: file, Continue: true}
	a, err := assemble.Build(s, env(&stderr))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	defer dispose(t, a)
	if a.Leaf() != leaf || !strings.HasPrefix(stderr.String(), "gopi: warning: ") || !strings.Contains(stderr.String(), "corrupt line skipped") {
		t.Errorf("at %s, stderr %q", a.Leaf(), stderr.String())
	}
}

// With --session-dir, --session finds an id there.
func TestSessionIDInSessionDir(t *testing.T) {
	fdcheck.Check(t)
	s := settings(t)
	s.Session = assemble.SessionSettings{Dir: "runs"}
	file, leaf := recorded(t, s)
	name := strings.TrimSuffix(filepath.Base(file), ".jsonl")
	id := name[strings.IndexByte(name, '_')+1:]
	s.Session = assemble.SessionSettings{Path: id, Continue: true, Dir: "runs"}
	with(t, s, func(a *assemble.Assembly) {
		if a.File() != file || a.Leaf() != leaf {
			t.Errorf("%s at %s, want %s at %s", a.File(), a.Leaf(), file, leaf)
		}
	})
	s.Session = assemble.SessionSettings{Path: id, Continue: true}
	refused(t, s, ai.ClassUsage, "--session "+id+": ")
}

// LooksLikePath: a reference with a slash, a backslash or the .jsonl
// ending is a path; anything else an id prefix.
func TestLooksLikePath(t *testing.T) {
	for ref, want := range map[string]bool{"01a2": false, "runs/x": true, `runs\x`: true, "x.jsonl": true, "x.json": false} {
		if assemble.LooksLikePath(ref) != want {
			t.Errorf("%q: %v", ref, !want)
		}
	}
}

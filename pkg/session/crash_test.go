package session

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"gopi/pkg/ai"
)

const (
	crashChildEnv = "GOPI_SESSION_TEST_CHILD"
	childPathEnv  = "GOPI_SESSION_TEST_PATH"
)

// crashChild runs in a re-executed test binary: "append" appends entries
// forever, printing each id once Append returned; "lock" tries to open the
// session and reports the error.
func crashChild() int {
	path := os.Getenv(childPathEnv)
	switch os.Getenv(crashChildEnv) {
	case "append":
		return appendForever(path)
	case "lock":
		s, err := Open(path, Options{})
		if err != nil {
			fmt.Println(err)
			if errors.Is(err, ErrLocked) {
				return 3
			}
			return 1
		}
		s.Close()
		return 0
	}
	return 2
}

func appendForever(path string) int {
	s, err := OpenOrCreate(path, "/crash", Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	parent := ""
	if e, ok := Newest(s.Entries()); ok {
		parent = e.ID
	}
	out := bufio.NewWriter(os.Stdout)
	for i := 0; ; i++ {
		size := rand.IntN(4000)
		if rand.IntN(16) == 0 {
			size = 100_000 // large writes are the ones a kill can tear
		}
		text := strings.Repeat("x", size)
		e, err := s.Append(context.Background(), MessageEntry(parent, ai.UserText(text, int64(i))))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		parent = e.ID
		fmt.Fprintln(out, e.ID)
		out.Flush()
	}
}

func childCmd(t *testing.T, mode, path string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+mode, childPathEnv+"="+path)
	return cmd
}

// A child appending in a loop is killed with SIGKILL at random moments;
// every file then opens, at most a torn last line is reported, and every
// append that had returned is present.
func TestCrashKill(t *testing.T) {
	path := filepath.Join(t.TempDir(), "crash.jsonl")
	runs := 100
	confirmed := map[string]bool{}
	torn := map[int64]bool{} // offsets of torn tails seen so far
	for run := range runs {
		ids := killChildAfter(t, path, time.Duration(rand.IntN(15))*time.Millisecond)
		for _, id := range ids {
			confirmed[id] = true
		}
		f, err := ReadFile(path)
		if errors.Is(err, os.ErrNotExist) {
			continue // killed before the first append
		}
		if err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		checkCrashFile(t, run, f, confirmed, torn)
	}
	t.Logf("%d kills, %d confirmed appends", runs, len(confirmed))
}

func killChildAfter(t *testing.T, path string, d time.Duration) []string {
	t.Helper()
	cmd := childCmd(t, "append", path)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var ids []string
	sc := bufio.NewScanner(stdout)
	if sc.Scan() { // the child is appending now
		ids = append(ids, sc.Text())
	}
	time.Sleep(d)
	_ = cmd.Process.Signal(syscall.SIGKILL)
	for sc.Scan() {
		ids = append(ids, sc.Text())
	}
	_ = cmd.Wait()
	return ids
}

func checkCrashFile(t *testing.T, run int, f *File, confirmed map[string]bool, torn map[int64]bool) {
	t.Helper()
	for i, w := range f.Warnings {
		switch {
		case w.Kind == WarnTornLine && i == len(f.Warnings)-1:
			torn[w.Offset] = true
		case w.Kind == WarnCorruptLine && torn[w.Offset]:
			// an earlier torn tail, now followed by later appends
		default:
			t.Fatalf("run %d: unexpected warning %s", run, w)
		}
	}
	have := map[string]bool{}
	for _, e := range f.Entries {
		have[e.ID] = true
	}
	for id := range confirmed {
		if !have[id] {
			t.Fatalf("run %d: confirmed entry %s is missing", run, id)
		}
	}
	if n, ok := Newest(f.Entries); ok {
		if _, _, err := PathTo(f.Entries, n.ID); err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
	}
}

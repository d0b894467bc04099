// Command mutate plants small faults in a package's non-test Go files, one
// at a time, and runs the package's own tests against each: a mutant the
// tests still pass is a line whose behaviour nothing pins.
//
//	go run ./scripts/mutate ./pkg/session              # every mutant of the package
//	go run ./scripts/mutate -files lock.go ./pkg/session
//	go run ./scripts/mutate -list ./pkg/tools           # list the mutants, run nothing
//	go run ./scripts/mutate -tests ./pkg/session,./e2e ./pkg/session
//	go run ./scripts/mutate -sample 100 -j 2 ./pkg/loop   # a reproducible random 100
//	go run ./scripts/mutate -only before.txt ./pkg/session # only the mutants an earlier run names
//
// Files this platform does not build (build tags, _GOOS.go names) are
// left out and named on stderr; judge them with GOOS set or on that platform.
//
// The mutated file reaches the compiler through `go test -overlay`, so the
// work tree is never changed and an interrupted run leaves nothing behind.
// A mutant that does not compile is counted apart and not in the score.
// The score is killed / (killed + survived); a mutant whose tests run past
// -timeout counts as killed (a hang is a failure a user would see); the
// limit is the test binary's, so a slow build does not count.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/build"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

type options struct {
	files   map[string]bool
	tests   []string
	run     string
	timeout time.Duration
	list    bool
	verbose bool
	sample  int
	seed    uint64
	jobs    int
	only    map[string]bool // "file:line: desc" of the mutants to judge; nil: all
}

func main() {
	files := flag.String("files", "", "comma-separated base names of the files to mutate (default: every non-test file)")
	tests := flag.String("tests", "", "comma-separated packages whose tests judge the mutants (default: the mutated package)")
	run := flag.String("run", "", "passed to go test -run")
	timeout := flag.Duration("timeout", 3*time.Minute, "a test binary running longer than this kills the mutant (go test -timeout; the build is not counted)")
	list := flag.Bool("list", false, "list the mutants and run nothing")
	verbose := flag.Bool("v", false, "print every mutant's outcome, not only the survivors")
	sampleN := flag.Int("sample", 0, "judge only this many mutants, picked at random (0: all)")
	seed := flag.Uint64("seed", 1, "the random seed of -sample")
	jobs := flag.Int("j", 1, "mutants judged at once")
	only := flag.String("only", "", "judge only the mutants this file names, one \"file:line: desc\" a line (as -list prints them, or a run's SURVIVED lines)")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: go run ./scripts/mutate [flags] ./pkg/NAME")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	opts := options{files: map[string]bool{}, run: *run, timeout: *timeout, list: *list, verbose: *verbose,
		sample: *sampleN, seed: *seed, jobs: *jobs}
	for _, f := range splitList(*files) {
		opts.files[f] = true
	}
	opts.tests = splitList(*tests)
	if *only != "" {
		names, err := readOnly(*only)
		if err != nil {
			fmt.Fprintln(os.Stderr, "mutate:", err)
			os.Exit(2)
		}
		opts.only = names
	}
	if len(opts.tests) == 0 {
		opts.tests = []string{flag.Arg(0)}
	}
	if err := mutatePackage(flag.Arg(0), opts); err != nil {
		fmt.Fprintln(os.Stderr, "mutate:", err)
		os.Exit(1)
	}
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// outcome of one mutant.
type outcome int

const (
	killed outcome = iota
	survived
	unbuilt
)

// planted is one mutant of one file.
type planted struct {
	name string
	src  []byte
	m    mutant
}

func mutatePackage(dir string, opts options) error {
	all, err := plant(dir, opts.files)
	if err != nil {
		return err
	}
	if opts.sample > 0 && opts.sample < len(all) {
		all = sample(all, opts.sample, opts.seed)
	}
	if opts.only != nil {
		all = slices.DeleteFunc(all, func(p planted) bool { return !opts.only[p.key()] })
	}
	if opts.list {
		for _, p := range all {
			fmt.Printf("%s:%d: %s\n", p.name, p.m.line, p.m.desc)
		}
		return nil
	}
	outcomes := make([]outcome, len(all))
	jobs := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	for range max(opts.jobs, 1) {
		work, err := os.MkdirTemp("", "gopi-mutate-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(work)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				p := all[i]
				o, detail := judge(work, p.name, p.m.apply(p.src), opts)
				mu.Lock()
				outcomes[i] = o
				report(p.name, p.m, o, detail, opts.verbose)
				mu.Unlock()
			}
		}()
	}
	for i := range all {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	counts := map[outcome]int{}
	for _, o := range outcomes {
		counts[o]++
	}
	summary(dir, counts)
	return nil
}

func (p planted) key() string { return fmt.Sprintf("%s:%d: %s", p.name, p.m.line, p.m.desc) }

// readOnly reads the mutants -only names: "file:line: desc" a line, as
// -list prints them, or a run's SURVIVED lines.
func readOnly(path string) (map[string]bool, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, l := range strings.Split(string(data), "\n") {
		if l = strings.TrimSpace(strings.TrimPrefix(l, "SURVIVED ")); l != "" {
			out[l] = true
		}
	}
	return out, nil
}

// plant lists every mutant of dir's files, in file and source order.
func plant(dir string, only map[string]bool) ([]planted, error) {
	names, err := sourceFiles(dir, only)
	if err != nil {
		return nil, err
	}
	var all []planted
	for _, name := range names {
		src, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		ms, err := mutants(name, src)
		if err != nil {
			return nil, err
		}
		for _, m := range ms {
			all = append(all, planted{name, src, m})
		}
	}
	return all, nil
}

// sample picks n mutants at random (the same n for the same seed), kept in
// source order.
func sample(all []planted, n int, seed uint64) []planted {
	r := rand.New(rand.NewPCG(seed, seed))
	idx := r.Perm(len(all))[:n]
	sort.Ints(idx)
	out := make([]planted, n)
	for i, j := range idx {
		out[i] = all[j]
	}
	return out
}

// sourceFiles lists dir's non-test Go files, limited to only when given.
// A file this platform does not build (a _windows.go file on Linux, a
// //go:build line that excludes it) is left out and named on stderr: no
// test run here can reach it, so its mutants would only count as survivors.
func sourceFiles(dir string, only map[string]bool) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out, skipped []string
	found := 0
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		if len(only) > 0 && !only[n] {
			continue
		}
		found++
		if ok, err := build.Default.MatchFile(dir, n); err != nil {
			return nil, err
		} else if !ok {
			skipped = append(skipped, n)
			continue
		}
		out = append(out, filepath.Join(dir, n))
	}
	sort.Strings(out)
	if len(only) > 0 && found != len(only) {
		return nil, fmt.Errorf("-files names %d files, %d of them found in %s", len(only), found, dir)
	}
	if len(skipped) > 0 {
		sort.Strings(skipped)
		fmt.Fprintf(os.Stderr, "mutate: not built for %s/%s, not mutated: %s\n",
			build.Default.GOOS, build.Default.GOARCH, strings.Join(skipped, " "))
	}
	return out, nil
}

// judge runs the tests with the mutated source in place of name.
func judge(work, name string, mutated []byte, opts options) (outcome, string) {
	abs, err := filepath.Abs(name)
	if err != nil {
		return unbuilt, err.Error()
	}
	backing := filepath.Join(work, "mutant.go")
	overlay := filepath.Join(work, "overlay.json")
	if err := os.WriteFile(backing, mutated, 0o644); err != nil {
		return unbuilt, err.Error()
	}
	ov, _ := json.Marshal(map[string]map[string]string{"Replace": {abs: backing}})
	if err := os.WriteFile(overlay, ov, 0o644); err != nil {
		return unbuilt, err.Error()
	}
	// The test binary gets -timeout itself, so a slow build on a busy
	// machine is not taken for a hang; the whole command has a backstop.
	ctx, cancel := context.WithTimeout(context.Background(), 2*opts.timeout+5*time.Minute)
	defer cancel()
	// vet is not the test suite: a mutant vet dislikes still has to be
	// caught by a test.
	args := []string{"test", "-count=1", "-failfast", "-vet=off", "-timeout", opts.timeout.String(), "-overlay", overlay}
	if opts.run != "" {
		args = append(args, "-run", opts.run)
	}
	cmd := exec.CommandContext(ctx, "go", append(args, opts.tests...)...)
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.CombinedOutput()
	switch {
	case ctx.Err() != nil:
		return killed, "timed out"
	case err == nil:
		return survived, ""
	case isBuildFailure(out):
		return unbuilt, firstLine(out)
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return unbuilt, err.Error()
	}
	return killed, failingTest(out)
}

// isBuildFailure tells a compile error from a failing test.
func isBuildFailure(out []byte) bool {
	return bytes.Contains(out, []byte("[build failed]")) || bytes.Contains(out, []byte("[setup failed]"))
}

func failingTest(out []byte) string {
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "--- FAIL") {
			return strings.TrimSpace(l)
		}
	}
	return firstLine(out)
}

func firstLine(out []byte) string {
	s, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return s
}

func report(name string, m mutant, o outcome, detail string, verbose bool) {
	switch {
	case o == survived:
		fmt.Printf("SURVIVED %s:%d: %s\n", name, m.line, m.desc)
	case verbose && o == killed:
		fmt.Printf("killed   %s:%d: %s (%s)\n", name, m.line, m.desc, detail)
	case verbose:
		fmt.Printf("unbuilt  %s:%d: %s (%s)\n", name, m.line, m.desc, detail)
	}
}

func summary(dir string, c map[outcome]int) {
	built := c[killed] + c[survived]
	score := 100.0
	if built > 0 {
		score = 100 * float64(c[killed]) / float64(built)
	}
	fmt.Printf("%s: %d mutants, %d built, %d killed, %d survived, %d did not build: score %.1f%%\n",
		dir, built+c[unbuilt], built, c[killed], c[survived], c[unbuilt], score)
}

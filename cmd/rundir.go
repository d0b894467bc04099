package cmd

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"gopi/pkg/assemble"
	"gopi/pkg/tools"
)

// Spill files (a bash command's output over the limits) go to one folder
// per invocation, gopi-run-<random> in the temp folder. bash makes it on
// its first spill; nothing is made otherwise. When the invocation ends
// the folder is removed, unless the session file mentions it (a result
// names a spill file in it): then it is kept for runDirKeep, and the
// first gopi run or chat that ends after that removes it.
const (
	runDirPrefix = "gopi-run-"
	runDirKeep   = 7 * 24 * time.Hour
)

// newRunDir names this invocation's spill folder; the random name is
// what keeps other local users from making it first.
func newRunDir() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return filepath.Join(os.TempDir(), runDirPrefix+hex.EncodeToString(b[:]))
}

// finishRunDir removes dir unless keep, and the kept folders of earlier
// runs that are older than runDirKeep.
func finishRunDir(dir string, keep bool, now time.Time) {
	if dir == "" {
		return
	}
	if !keep {
		_ = os.RemoveAll(dir)
	}
	sweepRunDirs(filepath.Dir(dir), filepath.Base(dir), now)
}

// startSweep sweeps the kept folders of earlier runs beside dir in the
// background, while the run waits for its model (listing a busy temp
// folder is not for the answer to wait on); wait returns when it is done.
func startSweep(dir string, now time.Time) (wait func()) {
	if dir == "" {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		sweepRunDirs(filepath.Dir(dir), filepath.Base(dir), now)
	}()
	return func() { <-done }
}

// sweepRunDirs removes this user's gopi-run-* folders in parent last
// changed more than runDirKeep before now. Symbolic links and other
// users' folders are left alone.
func sweepRunDirs(parent, own string, now time.Time) {
	// Names only, unsorted (os.ReadDir sorts and builds an entry for
	// each): the order does not matter here, and a busy temporary
	// folder's sorted entries were a tenth of a one-turn run's
	// instructions. Only a gopi-run-* name is looked at closer.
	names, err := runDirNames(parent)
	if err != nil {
		return
	}
	for _, name := range names {
		if name == own {
			continue
		}
		info, err := os.Lstat(filepath.Join(parent, name)) // a link is not a folder
		if err != nil || !info.IsDir() || now.Sub(info.ModTime()) < runDirKeep {
			continue
		}
		if !ownedByMe(info) {
			continue
		}
		_ = os.RemoveAll(filepath.Join(parent, name))
	}
}

// finishTools ends what a gopi run's tools left: the processes bash calls
// left running in the background, then the spill folder.
func (p *prepared) finishTools(sys *System) {
	killGroups(sys, p.groups)
	p.guard.Close() // the sandbox's helper
	if p.swept == nil {
		finishRunDir(p.spill, assemble.MentionsDir(p.store, p.file, p.spill), sys.Now())
		return
	}
	if p.spill != "" && !assemble.MentionsDir(p.store, p.file, p.spill) {
		_ = os.RemoveAll(p.spill)
	}
	p.swept()
}

// killGroups ends the background processes of bash calls: no child of a
// bash call outlives gopi.
func killGroups(sys *System, g *tools.Groups) {
	stopMCP(sys)
	if left := g.Kill(groupKillWait); left > 0 {
		fmt.Fprintf(sys.Stderr, "gopi: warning: %d process group(s) started by bash did not end within %v of SIGKILL\n", left, groupKillWait)
	}
}

// groupKillWait bounds the wait for background processes after SIGKILL.
const groupKillWait = 2 * time.Second

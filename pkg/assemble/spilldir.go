package assemble

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"time"
)

// Spill files (a bash command's output over the limits) go to one folder
// per Assembly, gopi-run-<random> in the temp folder. bash makes it on
// its first spill; nothing is made otherwise. When the Assembly closes
// the folder is removed, unless the session file mentions it (a result
// names a spill file in it): then it is kept for spillKeep, and the
// first Assembly that closes after that removes it.
const (
	spillPrefix = "gopi-run-"
	spillKeep   = 7 * 24 * time.Hour
)

// NewSpillDir names a fresh spill folder; the random name is what keeps
// other local users from making it first.
func NewSpillDir() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return filepath.Join(os.TempDir(), spillPrefix+hex.EncodeToString(b[:]))
}

// startSweep sweeps the kept folders of earlier runs beside dir in the
// background, while the run waits for its model (listing a busy temp
// folder is not for the answer to wait on); wait returns when it is done.
func startSweep(dir string, now time.Time) (wait func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		sweepSpillDirs(filepath.Dir(dir), filepath.Base(dir), now)
	}()
	return func() { <-done }
}

// sweepSpillDirs removes this user's gopi-run-* folders in parent last
// changed more than spillKeep before now. Symbolic links and other
// users' folders are left alone.
func sweepSpillDirs(parent, own string, now time.Time) {
	// Names only, unsorted (os.ReadDir sorts and builds an entry for
	// each): the order does not matter here, and a busy temporary
	// folder's sorted entries were a tenth of a one-turn run's
	// instructions. Only a gopi-run-* name is looked at closer.
	names, err := spillDirNames(parent)
	if err != nil {
		return
	}
	for _, name := range names {
		if name == own {
			continue
		}
		info, err := os.Lstat(filepath.Join(parent, name)) // a link is not a folder
		if err != nil || !info.IsDir() || now.Sub(info.ModTime()) < spillKeep {
			continue
		}
		if !ownedByMe(info) {
			continue
		}
		_ = os.RemoveAll(filepath.Join(parent, name))
	}
}

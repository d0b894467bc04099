//go:build unix && !linux

package sandbox

// openResolved: no openat2 here; the folder is reached one name at a
// time.
func openResolved(rootfd int, rel string) (int, error) { return -1, errWalk }

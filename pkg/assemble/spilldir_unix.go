//go:build unix

package assemble

import (
	"io/fs"
	"os"
	"syscall"
)

// ownedByMe reports whether the user running gopi owns the file.
func ownedByMe(info fs.FileInfo) bool {
	st, ok := info.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}

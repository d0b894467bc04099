//go:build !linux

package assemble

import (
	"os"
	"strings"
)

// spillDirNames returns the names in parent that start with spillPrefix.
func spillDirNames(parent string) ([]string, error) {
	d, err := os.Open(parent)
	if err != nil {
		return nil, err
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return nil, err
	}
	kept := names[:0]
	for _, n := range names {
		if strings.HasPrefix(n, spillPrefix) {
			kept = append(kept, n)
		}
	}
	return kept, nil
}

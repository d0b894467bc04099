//go:build !linux

package cmd

import (
	"os"
	"strings"
)

// runDirNames returns the names in parent that start with runDirPrefix.
func runDirNames(parent string) ([]string, error) {
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
		if strings.HasPrefix(n, runDirPrefix) {
			kept = append(kept, n)
		}
	}
	return kept, nil
}

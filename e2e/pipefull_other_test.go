//go:build !linux

package e2e

import "errors"

// stdoutFull needs Linux's /proc.
func stdoutFull(int) (bool, error) {
	return false, errors.New("telling a full pipe needs Linux")
}

//go:build !linux

package cmd_test

import "errors"

// stdoutFull needs Linux's /proc.
func stdoutFull(int) (bool, error) {
	return false, errors.New("telling a full pipe needs Linux")
}

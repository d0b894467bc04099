package wintest

import (
	"time"

	"golang.org/x/sys/windows"
)

// Ended waits up to d for the process pid to end and reports whether it
// did; a pid that can no longer be opened has ended.
func Ended(pid int, d time.Duration) bool {
	h, err := windows.OpenProcess(windows.SYNCHRONIZE, false, uint32(pid))
	if err != nil {
		return true
	}
	defer windows.CloseHandle(h)
	ev, _ := windows.WaitForSingleObject(h, uint32(d.Milliseconds()))
	return ev == windows.WAIT_OBJECT_0
}

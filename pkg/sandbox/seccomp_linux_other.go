//go:build linux && !amd64 && !arm64

package sandbox

// No filter is written for this processor: the helper refuses to start
// (installFilter), and no command runs unconfined.
const (
	auditArch  = 0
	nativeOnly = 0
)

var sysRules []sysRule

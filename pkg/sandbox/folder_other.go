//go:build !unix

package sandbox

import "os"

// openBeneath is not needed where there is no sandbox: a guard is never
// enforced here.
func openBeneath(root, dir string) (*os.File, error) { return nil, ErrUnsupported }

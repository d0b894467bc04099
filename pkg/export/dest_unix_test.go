//go:build unix

package export_test

import (
	"os"
	"path/filepath"
	"testing"

	"gopi/pkg/export"
)

// A link to the session is the session; a device is no page.
func TestDestRefusesLinksToTheSessionAndDevices(t *testing.T) {
	wd := t.TempDir()
	sess := filepath.Join(wd, "s.jsonl")
	_ = os.WriteFile(sess, []byte("{}\n"), 0o600)
	link := filepath.Join(wd, "link.html")
	if err := os.Symlink(sess, link); err != nil {
		t.Fatal(err)
	}
	if _, err := export.Dest(wd, "-o", "link.html", sess); err == nil || err.Error() != "-o "+link+" is the session file being exported: give another file name" {
		t.Errorf("link: %v", err)
	}
	_, err := export.Dest(wd, "-o", "/dev/null", sess)
	if err == nil || err.Error() != "-o /dev/null is not a regular file (use -o - for stdout)" {
		t.Errorf("device: %v", err)
	}
}

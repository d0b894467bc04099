//go:build unix

package filekind

import (
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// ModeOf of a raw stat agrees with the type os.Lstat gives the same file.
func TestModeOfAgreesWithLstat(t *testing.T) {
	dir := t.TempDir()
	paths := map[string]string{"folder": dir, "char device": os.DevNull}
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	paths["regular file"] = file
	link := filepath.Join(dir, "link")
	if err := os.Symlink(file, link); err == nil {
		paths["symbolic link"] = link
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err == nil {
		paths["named pipe"] = fifo
	}
	sock := filepath.Join(dir, "s")
	if l, err := net.Listen("unix", sock); err == nil {
		defer l.Close()
		paths["socket"] = sock
	}
	for name, p := range paths {
		var st syscall.Stat_t
		if err := syscall.Lstat(p, &st); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := ModeOf(uint32(st.Mode)), fi.Mode().Type(); got != want {
			t.Errorf("%s: ModeOf = %v, want %v", name, got, want)
		}
	}
	if got := ModeOf(syscall.S_IFBLK | 0o660); got != fs.ModeDevice || Of(got) != "a block device" {
		t.Errorf("block device: %v", got)
	}
	if got := ModeOf(0o644); got != fs.ModeIrregular {
		t.Errorf("no type bits: %v, want irregular", got)
	}
}

package export

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"gopi/pkg/session"
)

// Dest is the file a page of the session file sessionPath goes to, ""
// for stdout (output "-"): output, or else pi's name for an export of
// the session file (gopi-session-<name>.html), relative to wd. flag names
// the output in messages (-o, rpc's outputPath). Every error refuses the
// destination (a usage error): a folder that does not exist, a folder or
// special file, the session file itself under any name, or any file
// whose first line is a session header.
func Dest(wd, flag, output, sessionPath string) (string, error) {
	if output == "-" {
		return "", nil
	}
	dest := output
	if dest == "" {
		dest = "gopi-session-" + strings.TrimSuffix(filepath.Base(sessionPath), ".jsonl") + ".html"
	}
	if !filepath.IsAbs(dest) {
		dest = filepath.Join(wd, dest)
	}
	if st, err := os.Stat(filepath.Dir(dest)); err != nil || !st.IsDir() {
		return "", fmt.Errorf(flag+" %s: folder %s does not exist", dest, filepath.Dir(dest))
	}
	st, err := os.Stat(dest)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return "", fmt.Errorf(flag+" %s: %v", dest, err)
	case st.IsDir():
		return "", fmt.Errorf(flag+" %s is a folder: give a file name", dest)
	case !st.Mode().IsRegular():
		return "", fmt.Errorf(flag+" %s is not a regular file (use -o - for stdout)", dest)
	default:
		if err := notASession(flag, dest, st, sessionPath); err != nil {
			return "", err
		}
	}
	return dest, nil
}

// notASession refuses to replace a session with its page: dest is the
// session file under any name (a link, another path to it), or any file
// whose first line is a session header.
func notASession(flag, dest string, st fs.FileInfo, sessionPath string) error {
	if ss, err := os.Stat(sessionPath); err == nil && os.SameFile(ss, st) {
		return fmt.Errorf(flag+" %s is the session file being exported: give another file name", dest)
	}
	if startsLikeSession(dest) {
		if _, err := session.ReadHeader(dest); err == nil {
			return fmt.Errorf(flag+" %s is a session file (its first line is a session header): give another file name", dest)
		}
	}
	return nil
}

// startsLikeSession reads at most 64 KiB of path: whether it holds a
// first line that names a session, worth reading as a header.
func startsLikeSession(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 64<<10)
	n, _ := io.ReadFull(f, head)
	line, _, found := bytes.Cut(head[:n], []byte("\n"))
	return (found || n < len(head)) && bytes.Contains(line, []byte(`"session"`))
}

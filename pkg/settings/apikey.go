package settings

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"gopi/internal/filekind"
	"gopi/pkg/assemble"
)

// maxAPIKeyFile bounds --api-key-file: a key is a line, not a document.
const maxAPIKeyFile = 64 << 10

// APIKey is the key --api-key gives, or the one --api-key-file reads
// (keyFile; one trailing newline dropped). A relative path is taken from
// the working directory of the run (--cwd), as prompt files are. Both
// given is a usage error, as is a key file that is not a regular file of
// at most 64 KiB holding a key.
func APIKey(key, keyFile, cwd string) (string, error) {
	if keyFile == "" {
		return key, nil
	}
	if key != "" {
		return "", assemble.Usagef("--api-key and --api-key-file both give the API key: pass one of them")
	}
	path := keyFile
	if !filepath.IsAbs(path) {
		path = filepath.Join(cwd, path)
	}
	return readAPIKeyFile(path)
}

func readAPIKeyFile(path string) (string, error) {
	// Stat before opening: opening a named pipe nobody writes would hang.
	st, err := os.Stat(path)
	if err != nil {
		return "", assemble.Usagef("--api-key-file %s: %v", path, pathErr(err))
	}
	if !st.Mode().IsRegular() {
		return "", assemble.Usagef("--api-key-file %s is %s, not a regular file: give a file that holds the key", path, filekind.Of(st.Mode()))
	}
	f, err := os.Open(path)
	if err != nil {
		return "", assemble.Usagef("--api-key-file %s: %v", path, pathErr(err))
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxAPIKeyFile+1))
	if err != nil {
		return "", assemble.Usagef("--api-key-file %s: %v", path, pathErr(err))
	}
	if len(data) > maxAPIKeyFile {
		return "", assemble.Usagef("--api-key-file %s is over 64 KiB: give a file that holds only the key", path)
	}
	key := string(data)
	if k, ok := strings.CutSuffix(key, "\r\n"); ok {
		key = k
	} else {
		key = strings.TrimSuffix(key, "\n")
	}
	if key == "" {
		return "", assemble.Usagef("--api-key-file %s is empty: write the key into it", path)
	}
	if err := assemble.CheckKey(key, "--api-key-file "+path); err != nil {
		return "", err
	}
	return key, nil
}

// pathErr drops the path an *fs.PathError repeats.
func pathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

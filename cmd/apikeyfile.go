package cmd

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

// apiKeyFileHelp and apiKeyHelp say why the file is the better way: a
// command line is readable by every local user (ps, /proc/PID/cmdline).
const (
	apiKeyHelp     = "API key (default: the provider's environment variable); other local users can read it with ps or in /proc: prefer --api-key-file or the variable"
	apiKeyFileHelp = "read the API key from `FILE` (one trailing newline is dropped); unlike --api-key it does not show in ps"
)

// loadAPIKeyFile reads --api-key-file into o.apiKey. A relative path is
// taken from the working directory of the run (--cwd), as prompt files
// are.
func (o *modelFlags) loadAPIKeyFile(cwd string) error {
	if o.keyFile == "" {
		return nil
	}
	if o.apiKey != "" {
		return usageErr("--api-key and --api-key-file both give the API key: pass one of them")
	}
	path := o.keyFile
	if !filepath.IsAbs(path) {
		path = filepath.Join(cwd, path)
	}
	key, err := readAPIKeyFile(path)
	if err != nil {
		return err
	}
	o.apiKey = key
	return nil
}

func readAPIKeyFile(path string) (string, error) {
	// Stat before opening: opening a named pipe nobody writes would hang.
	st, err := os.Stat(path)
	if err != nil {
		return "", usageErr("--api-key-file %s: %v", path, pathErr(err))
	}
	if !st.Mode().IsRegular() {
		return "", usageErr("--api-key-file %s is %s, not a regular file: give a file that holds the key", path, filekind.Of(st.Mode()))
	}
	f, err := os.Open(path)
	if err != nil {
		return "", usageErr("--api-key-file %s: %v", path, pathErr(err))
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxAPIKeyFile+1))
	if err != nil {
		return "", usageErr("--api-key-file %s: %v", path, pathErr(err))
	}
	if len(data) > maxAPIKeyFile {
		return "", usageErr("--api-key-file %s is over 64 KiB: give a file that holds only the key", path)
	}
	key := string(data)
	if k, ok := strings.CutSuffix(key, "\r\n"); ok {
		key = k
	} else {
		key = strings.TrimSuffix(key, "\n")
	}
	if key == "" {
		return "", usageErr("--api-key-file %s is empty: write the key into it", path)
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

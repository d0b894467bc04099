package settings

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"gopi/internal/filekind"
	"gopi/pkg/assemble"
)

// Cwd is the absolute working folder --cwd names (flag; "": getwd's),
// which must be an existing folder (a usage error otherwise).
func Cwd(flag string, getwd func() (string, error)) (string, error) {
	cwd := flag
	if cwd == "" {
		wd, err := getwd()
		if err != nil {
			return "", fmt.Errorf("working directory: %w", err)
		}
		cwd = wd
	}
	abs, err := filepath.Abs(cwd)
	if err != nil {
		return "", assemble.Usagef("--cwd %s: %v", flag, err)
	}
	if err := isDir(abs); err != nil {
		return "", assemble.Usagef("--cwd %s: %v: give an existing folder", flag, err)
	}
	return abs, nil
}

func isDir(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return errors.New(filekind.Problem(err))
	}
	if !st.IsDir() {
		return fmt.Errorf("%s is not a folder", path)
	}
	return nil
}

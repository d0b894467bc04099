package settings

import (
	"path/filepath"

	"gopi/internal/filekind"
	"gopi/pkg/assemble"
	"gopi/pkg/resources"
	"gopi/pkg/structured"
)

// OutputSchema reads --output-schema's file (flag, relative to cwd;
// bounded, a regular file) and checks the schema and --output-retries;
// any fault is a usage error before anything is sent or written. No
// file given: nil.
func OutputSchema(cwd, flag string, retries int) (*structured.Schema, error) {
	if retries < 0 {
		return nil, assemble.Usagef("--output-retries %d: give a whole number, 0 or more", retries)
	}
	if flag == "" {
		return nil, nil
	}
	path := flag
	if !filepath.IsAbs(path) {
		path = filepath.Join(cwd, path)
	}
	doc, err := resources.ReadFile(nil, path, resources.MaxFileSize)
	if err != nil {
		return nil, assemble.Usagef("--output-schema %s: %s; give a JSON Schema file of at most 1 MiB", flag, filekind.Problem(err))
	}
	sch, err := structured.NewSchema(doc)
	if err != nil {
		return nil, assemble.Usagef("--output-schema %s: %v", flag, err)
	}
	return sch, nil
}

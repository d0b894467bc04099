package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gopi/pkg/ai"
)

const lsSchema = `{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "Directory to list (default: current directory)"},
    "limit": {"type": "number", "description": "Maximum number of entries to return (default: 500)"}
  }
}`

const lsDefaultLimit = 500

// LsTool is the built-in ls tool: one directory's entries, sorted, with a
// '/' after directories.
type LsTool struct{}

// NewLs returns the ls tool.
func NewLs() *LsTool { return &LsTool{} }

// LsDetails are the details of an ls result, as pi's.
type LsDetails struct {
	Truncation        *Truncation `json:"truncation,omitempty"`
	EntryLimitReached int         `json:"entryLimitReached,omitempty"`
}

// Spec describes the tool as pi does.
func (*LsTool) Spec() ai.ToolSpec {
	return ai.ToolSpec{
		Name: "ls",
		Description: fmt.Sprintf("List directory contents. Returns entries sorted alphabetically, with '/' suffix for directories. "+
			"Includes dotfiles. Output is truncated to %d entries or %dKB (whichever is hit first).", lsDefaultLimit, DefaultMaxBytes/1024),
		Parameters: json.RawMessage(lsSchema),
	}
}

type lsArgs struct {
	Path  string   `json:"path"`
	Limit *float64 `json:"limit"`
}

// Run lists one directory.
func (t *LsTool) Run(ctx context.Context, call Call) (Result, error) {
	var a lsArgs
	if err := decodeArgs(call, &a); err != nil {
		return Result{}, err
	}
	dir := resolvePath(call.Env, orDot(a.Path))
	st, err := os.Stat(dir)
	switch {
	case err != nil:
		return ErrorResult(fmt.Sprintf("Path not found: %s", dir)), nil
	case !st.IsDir():
		return ErrorResult(fmt.Sprintf("Not a directory: %s. Use read to see a file.", dir)), nil
	}
	names, err := readNames(dir)
	if err != nil {
		return ErrorResult(fmt.Sprintf("Cannot read directory: %v", err)), nil
	}
	limit := max(intArg(a.Limit, lsDefaultLimit), 1)
	var out []string
	reached := false
	for _, n := range names {
		if ctx.Err() != nil {
			return ErrorResult(errAborted), nil
		}
		if len(out) >= limit {
			reached = true
			break
		}
		est, err := os.Stat(filepath.Join(dir, n))
		if err != nil {
			continue // unreadable entries are skipped, as pi does
		}
		if est.IsDir() {
			n += "/"
		}
		out = append(out, n)
	}
	if len(out) == 0 {
		return TextResult("(empty directory)"), nil
	}
	var d LsDetails
	var notices []string
	if reached {
		notices = append(notices, fmt.Sprintf("%d entries limit reached. Use limit=%d for more", limit, limit*2))
		d.EntryLimitReached = limit
	}
	return listResult(out, notices, nil, &d.Truncation, &d), nil
}

// readNames returns a directory's entry names sorted case-insensitively.
func readNames(dir string) ([]string, error) {
	// O_DIRECTORY: a folder swapped for a pipe since the stat fails here
	// instead of blocking.
	f, err := os.OpenFile(dir, os.O_RDONLY|oDirectory, 0)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", dir, err)
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", dir, err)
	}
	slices.SortFunc(names, func(a, b string) int {
		if c := strings.Compare(strings.ToLower(a), strings.ToLower(b)); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	return names, nil
}

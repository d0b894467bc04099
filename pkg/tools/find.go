package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"gopi/pkg/ai"
)

const findSchema = `{
  "type": "object",
  "properties": {
    "pattern": {"type": "string", "description": "Glob pattern to match files, e.g. '*.ts', '**/*.json', or 'src/**/*.spec.ts'"},
    "path": {"type": "string", "description": "Directory to search in (default: current directory)"},
    "limit": {"type": "number", "description": "Maximum number of results (default: 1000)"}
  },
  "required": ["pattern"]
}`

const findDefaultLimit = 1000

// FindTool is the built-in find tool: file paths matching a glob, in pure
// Go, skipping .git and what .gitignore excludes.
type FindTool struct{}

// NewFind returns the find tool.
func NewFind() *FindTool { return &FindTool{} }

// FindDetails are the details of a find result, as pi's.
type FindDetails struct {
	Truncation         *Truncation `json:"truncation,omitempty"`
	ResultLimitReached int         `json:"resultLimitReached,omitempty"`
}

// Spec describes the tool as pi does.
func (*FindTool) Spec() ai.ToolSpec {
	return ai.ToolSpec{
		Name: "find",
		Description: fmt.Sprintf("Search for files by glob pattern. Returns matching file paths relative to the search directory. "+
			"Respects .gitignore. Output is truncated to %d results or %dKB (whichever is hit first).",
			findDefaultLimit, DefaultMaxBytes/1024),
		Parameters: json.RawMessage(findSchema),
	}
}

type findArgs struct {
	Pattern string   `json:"pattern"`
	Path    string   `json:"path"`
	Limit   *float64 `json:"limit"`
}

// Run lists the matching paths.
func (t *FindTool) Run(ctx context.Context, call Call) (Result, error) {
	var a findArgs
	if err := decodeArgs(call, &a); err != nil {
		return Result{}, err
	}
	if !doublestar.ValidatePattern(a.Pattern) {
		return ErrorResult(fmt.Sprintf("Invalid glob pattern %q. Use globs like '*.go' or 'src/**/*_test.go'.", a.Pattern)), nil
	}
	root := resolvePath(call.Env, orDot(a.Path))
	if st, err := os.Stat(root); err != nil || !st.IsDir() {
		return ErrorResult(fmt.Sprintf("Path not found: %s", root)), nil
	}
	limit := max(intArg(a.Limit, findDefaultLimit), 1)
	found, total, err := findPaths(ctx, root, compilePathGlob(a.Pattern), limit)
	if ctx.Err() != nil {
		return ErrorResult(errAborted), nil
	}
	if err != nil && err != errCountBudget {
		return ErrorResult(fmt.Sprintf("Cannot search %s: %v", root, err)), nil
	}
	if len(found) == 0 {
		return TextResult("No files found matching pattern"), nil
	}
	var d FindDetails
	var notices []string
	if len(found) >= limit {
		count := ""
		switch {
		case err == nil:
			count = fmt.Sprintf(" (%d in all)", total)
		case total > limit:
			count = fmt.Sprintf(" (at least %d in all)", total)
		}
		notices = append(notices, fmt.Sprintf("%d results limit reached%s. Use limit=%d for more, or refine pattern", limit, count, limit*2))
		d.ResultLimitReached = limit
	}
	return listResult(found, notices, nil, &d.Truncation, &d), nil
}

// errCountBudget stops the count of matches past find's limit.
var errCountBudget = errors.New("count budget spent")

// findPaths lists the first limit paths matching g. Past the limit it goes
// on counting the matches among as many entries again (at least 1000): the
// count is exact when the walk ends within them (err is nil), a lower bound
// when not (err is errCountBudget).
func findPaths(ctx context.Context, root string, g pathGlob, limit int) (found []string, total int, err error) {
	budget := max(limit, 1000)
	err = walkTree(ctx, root, func(e *walkEntry) error {
		if len(found) >= limit {
			if budget--; budget < 0 {
				return errCountBudget
			}
			if g.Match(e) {
				total++
			}
			return nil
		}
		if !g.Match(e) {
			return nil
		}
		rel := e.rel
		if e.isDir() {
			rel += "/"
		}
		found = append(found, rel)
		total++
		return nil
	})
	return found, total, err
}

// listResult joins lines, cuts them to the byte limit and adds notices
// in pi's "[a. b]" form.
func listResult(lines, notices, tail []string, trSlot **Truncation, details any) Result {
	tr := truncateHead(strings.Join(lines, "\n"), math.MaxInt, DefaultMaxBytes)
	text := validUTF8(tr.Content)
	if tr.Truncated {
		notices = append(notices, formatSize(DefaultMaxBytes)+" limit reached")
		tr.Content = ""
		*trSlot = &tr
	}
	notices = append(notices, tail...)
	res := TextResult(text)
	if len(notices) > 0 {
		res = TextResult(text + "\n\n[" + strings.Join(notices, ". ") + "]")
		res.Details = details
	}
	return res
}

func orDot(p string) string {
	if p == "" {
		return "."
	}
	return p
}

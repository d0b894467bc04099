package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
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
	var found []string
	err := walkTree(ctx, root, func(_, rel string, d fs.DirEntry) error {
		if !globMatch(a.Pattern, rel) {
			return nil
		}
		if d.IsDir() {
			rel += "/"
		}
		found = append(found, rel)
		if len(found) >= limit {
			return fs.SkipAll
		}
		return nil
	})
	if ctx.Err() != nil {
		return ErrorResult(errAborted), nil
	}
	if err != nil {
		return ErrorResult(fmt.Sprintf("Cannot search %s: %v", root, err)), nil
	}
	if len(found) == 0 {
		return TextResult("No files found matching pattern"), nil
	}
	var d FindDetails
	var notices []string
	if len(found) >= limit {
		notices = append(notices, fmt.Sprintf("%d results limit reached. Use limit=%d for more, or refine pattern", limit, limit*2))
		d.ResultLimitReached = limit
	}
	return listResult(found, notices, nil, &d.Truncation, &d), nil
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

package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"

	"github.com/bmatcuk/doublestar/v4"

	"gopi/pkg/ai"
)

const grepSchema = `{
  "type": "object",
  "properties": {
    "pattern": {"type": "string", "description": "Search pattern (regex or literal string)"},
    "path": {"type": "string", "description": "Directory or file to search (default: current directory)"},
    "glob": {"type": "string", "description": "Filter files by glob pattern, e.g. '*.ts' or '**/*.spec.ts'"},
    "ignoreCase": {"type": "boolean", "description": "Case-insensitive search (default: false)"},
    "literal": {"type": "boolean", "description": "Treat pattern as literal string instead of regex (default: false)"},
    "context": {"type": "number", "description": "Number of lines to show before and after each match (default: 0)"},
    "limit": {"type": "number", "description": "Maximum number of matches to return (default: 100)"}
  },
  "required": ["pattern"]
}`

const (
	grepDefaultLimit = 100
	grepMaxContext   = 100
)

// GrepTool is the built-in grep tool: matching lines with file paths and
// line numbers, in pure Go (RE2 syntax), skipping .git, what .gitignore
// excludes and binary files.
type GrepTool struct{}

// NewGrep returns the grep tool.
func NewGrep() *GrepTool { return &GrepTool{} }

// GrepDetails are the details of a grep result, as pi's.
type GrepDetails struct {
	Truncation        *Truncation `json:"truncation,omitempty"`
	MatchLimitReached int         `json:"matchLimitReached,omitempty"`
	LinesTruncated    bool        `json:"linesTruncated,omitempty"`
}

// Spec describes the tool as pi does.
func (*GrepTool) Spec() ai.ToolSpec {
	return ai.ToolSpec{
		Name: "grep",
		Description: fmt.Sprintf("Search file contents for a pattern. Returns matching lines with file paths and line numbers. "+
			"Respects .gitignore. Output is truncated to %d matches or %dKB (whichever is hit first). Long lines are truncated to %d chars.",
			grepDefaultLimit, DefaultMaxBytes/1024, GrepMaxLineLength),
		Parameters: json.RawMessage(grepSchema),
	}
}

type grepArgs struct {
	Pattern    string   `json:"pattern"`
	Path       string   `json:"path"`
	Glob       string   `json:"glob"`
	IgnoreCase bool     `json:"ignoreCase"`
	Literal    bool     `json:"literal"`
	Context    *float64 `json:"context"`
	Limit      *float64 `json:"limit"`
}

// Run searches the files.
func (t *GrepTool) Run(ctx context.Context, call Call) (Result, error) {
	var a grepArgs
	if err := decodeArgs(call, &a); err != nil {
		return Result{}, err
	}
	re, msg := a.compile()
	if msg != "" {
		return ErrorResult(msg), nil
	}
	root := resolvePath(call.Env, orDot(a.Path))
	st, err := os.Stat(root)
	if err != nil {
		return ErrorResult(fmt.Sprintf("Path not found: %s", root)), nil
	}
	if !st.IsDir() && !st.Mode().IsRegular() {
		return ErrorResult(fmt.Sprintf("Cannot search %s: %v; grep reads regular files and walks folders. Give a file or a folder.", root, checkRegular(st))), nil
	}
	limit, context := max(intArg(a.Limit, grepDefaultLimit), 1), min(max(intArg(a.Context, 0), 0), grepMaxContext)
	s := &searcher{spec: newGrepSpec(re, a.expr(), limit, context, call.Env.Secrets), t: tally{limit: limit, context: context}}
	if st.IsDir() {
		var g *pathGlob
		if a.Glob != "" {
			pg := compilePathGlob(a.Glob)
			g = &pg
		}
		err = s.tree(ctx, root, g)
	} else {
		res := newGrepWorker(s.spec).file(ctx, root, filepath.Base(root))
		err = s.add(&res)
		s.exact = res.counted
	}
	if ctx.Err() != nil {
		return ErrorResult(errAborted), nil
	}
	if err != nil && err != fs.SkipAll {
		return ErrorResult(fmt.Sprintf("Cannot search %s: %v", root, err)), nil
	}
	return s.result(), nil
}

// expr is the regexp grep matches lines with.
func (a grepArgs) expr() string {
	expr := a.Pattern
	if a.Literal {
		expr = regexp.QuoteMeta(expr)
	}
	if a.IgnoreCase {
		expr = "(?i)" + expr
	}
	return expr
}

func (a grepArgs) compile() (*regexp.Regexp, string) {
	if a.Glob != "" && !doublestar.ValidatePattern(a.Glob) {
		return nil, fmt.Sprintf("Invalid glob %q. Use globs like '*.go' or 'src/**/*_test.go'.", a.Glob)
	}
	re, err := regexp.Compile(a.expr())
	if err != nil {
		return nil, fmt.Sprintf("Invalid regex %q: %v. Escape special characters or pass literal=true.", a.Pattern, err)
	}
	return re, ""
}

// searcher collects grep's output from the files in walk order. Every
// match gets its own block of context lines, as pi prints them.
type searcher struct {
	spec     *grepSpec
	t        tally
	out      []string
	linesCut bool
	known    int  // matching lines known to exist when the limit cut the search
	exact    bool // known counts them all (one file, counted to its end)
}

// add takes the blocks of the next file the old sequential search would
// have printed; fs.SkipAll says the search is over.
func (s *searcher) add(r *fileResult) error {
	if r.err != nil {
		return r.err
	}
	taken, stop := s.t.take(len(r.blocks), func(i int) int { return r.blocks[i].line }, func(i int) int {
		b := &r.blocks[i]
		s.out = append(s.out, b.lines...)
		s.linesCut = s.linesCut || b.cut
		return b.size
	})
	if s.t.matches >= s.t.limit && s.known == 0 {
		s.known = s.t.matches + max(r.total-taken, 0)
	}
	if stop {
		return fs.SkipAll
	}
	return nil
}

func (s *searcher) result() Result {
	if s.t.matches == 0 {
		return TextResult("No matches found")
	}
	var d GrepDetails
	var notices []string
	if s.t.matches >= s.t.limit {
		count := ""
		switch {
		case s.exact:
			count = fmt.Sprintf(" (%d in all)", s.known)
		case s.known > s.t.limit:
			count = fmt.Sprintf(" (at least %d in all)", s.known)
		}
		notices = append(notices, fmt.Sprintf("%d matches limit reached%s. Use limit=%d for more, or refine pattern", s.t.limit, count, s.t.limit*2))
		d.MatchLimitReached = s.t.limit
	}
	var tail []string
	if s.linesCut {
		tail = append(tail, fmt.Sprintf("Some lines truncated to %d chars. Use read tool to see full lines", GrepMaxLineLength))
		d.LinesTruncated = true
	}
	return listResult(s.out, notices, tail, &d.Truncation, &d)
}

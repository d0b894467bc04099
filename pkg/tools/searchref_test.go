package tools

// The reference grep and find: the simple implementations the fast ones
// replaced (a sequential filepath.WalkDir, gitignore rules matched with
// doublestar one by one, grep reading and matching line by line), kept
// here so the differential tests can check that the fast ones print
// exactly what these print.

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

func refGrep(ctx context.Context, call Call) Result {
	res, _ := refGrepRun(ctx, call, false)
	return res
}

// refGrepCount counts the matching lines the reference finds, with
// neither the match limit nor the byte bound.
func refGrepCount(ctx context.Context, call Call) int {
	_, n := refGrepRun(ctx, call, true)
	return n
}

func refGrepRun(ctx context.Context, call Call, count bool) (Result, int) {
	var a grepArgs
	if err := decodeArgs(call, &a); err != nil {
		return ErrorResult(err.Error()), 0
	}
	re, msg := a.compile()
	if msg != "" {
		return ErrorResult(msg), 0
	}
	root := resolvePath(call.Env, orDot(a.Path))
	st, err := os.Stat(root)
	if err != nil {
		return ErrorResult(fmt.Sprintf("Path not found: %s", root)), 0
	}
	s := &refSearcher{re: re, limit: max(intArg(a.Limit, grepDefaultLimit), 1), context: min(max(intArg(a.Context, 0), 0), grepMaxContext),
		secrets: call.Env.Secrets, unbounded: count}
	if count {
		s.limit = 1 << 62
	}
	if !st.IsDir() && !st.Mode().IsRegular() {
		return ErrorResult(fmt.Sprintf("Cannot search %s: %v; grep reads regular files and walks folders. Give a file or a folder.", root, checkRegular(st))), 0
	}
	if st.IsDir() {
		err = refWalkTree(ctx, root, func(abs, rel string, d fs.DirEntry) error {
			if d.IsDir() || !d.Type().IsRegular() || (a.Glob != "" && !refGlobMatch(a.Glob, rel)) {
				return nil
			}
			return s.file(ctx, abs, rel)
		})
	} else {
		err = s.file(ctx, root, filepath.Base(root))
	}
	if ctx.Err() != nil {
		return ErrorResult(errAborted), 0
	}
	if err != nil && err != fs.SkipAll {
		return ErrorResult(fmt.Sprintf("Cannot search %s: %v", root, err)), 0
	}
	return s.result(), s.matches
}

func refFind(ctx context.Context, call Call) Result {
	var a findArgs
	if err := decodeArgs(call, &a); err != nil {
		return ErrorResult(err.Error())
	}
	if !doublestar.ValidatePattern(a.Pattern) {
		return ErrorResult(fmt.Sprintf("Invalid glob pattern %q. Use globs like '*.go' or 'src/**/*_test.go'.", a.Pattern))
	}
	root := resolvePath(call.Env, orDot(a.Path))
	if st, err := os.Stat(root); err != nil || !st.IsDir() {
		return ErrorResult(fmt.Sprintf("Path not found: %s", root))
	}
	limit := max(intArg(a.Limit, findDefaultLimit), 1)
	var found []string
	err := refWalkTree(ctx, root, func(_, rel string, d fs.DirEntry) error {
		if !refGlobMatch(a.Pattern, rel) {
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
		return ErrorResult(errAborted)
	}
	if err != nil {
		return ErrorResult(fmt.Sprintf("Cannot search %s: %v", root, err))
	}
	if len(found) == 0 {
		return TextResult("No files found matching pattern")
	}
	var d FindDetails
	var notices []string
	if len(found) >= limit {
		notices = append(notices, fmt.Sprintf("%d results limit reached. Use limit=%d for more, or refine pattern", limit, limit*2))
		d.ResultLimitReached = limit
	}
	return listResult(found, notices, nil, &d.Truncation, &d)
}

type refIgnoreRule struct {
	base     string
	pattern  string
	negate   bool
	dirOnly  bool
	anchored bool
}

func refParseIgnore(file, base string) []refIgnoreRule {
	f, _, err := openRegular(file)
	if err != nil {
		return nil
	}
	defer f.Close()
	var rules []refIgnoreRule
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), " \t\r")
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		r := refIgnoreRule{base: base}
		if strings.HasPrefix(line, "!") {
			r.negate, line = true, line[1:]
		}
		line = strings.TrimPrefix(line, `\`)
		if strings.HasSuffix(line, "/") {
			r.dirOnly, line = true, strings.TrimRight(line, "/")
		}
		r.anchored = strings.Contains(line, "/")
		r.pattern = strings.TrimPrefix(line, "/")
		if r.pattern != "" && doublestar.ValidatePattern(r.pattern) {
			rules = append(rules, r)
		}
	}
	return rules
}

func refIgnored(rules []refIgnoreRule, rel string, isDir bool) bool {
	out := false
	for _, r := range rules {
		sub := rel
		if r.base != "" {
			if !strings.HasPrefix(rel, r.base+"/") {
				continue
			}
			sub = rel[len(r.base)+1:]
		}
		if r.dirOnly && !isDir {
			continue
		}
		target := path.Base(sub)
		if r.anchored {
			target = sub
		}
		if ok, _ := doublestar.Match(r.pattern, target); ok {
			out = !r.negate
		}
	}
	return out
}

func refGlobMatch(glob, rel string) bool {
	target := path.Base(rel)
	if strings.Contains(glob, "/") {
		target = rel
	}
	ok, _ := doublestar.Match(glob, target)
	return ok
}

// refVisit is the old walk's callback.
type refVisit func(abs, rel string, d fs.DirEntry) error

func refWalkTree(ctx context.Context, root string, fn refVisit) error {
	rules := refParseIgnore(filepath.Join(root, ".gitignore"), "")
	return filepath.WalkDir(root, func(abs string, d fs.DirEntry, err error) error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			if abs == root {
				return err
			}
			return nil
		}
		if abs == root {
			return nil
		}
		rel, rerr := filepath.Rel(root, abs)
		if rerr != nil {
			rel = abs
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if refIgnored(rules, rel, d.IsDir()) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			rules = append(rules, refParseIgnore(filepath.Join(abs, ".gitignore"), rel)...)
		}
		return fn(abs, rel, d)
	})
}

type refSearcher struct {
	re        interface{ Match([]byte) bool }
	limit     int
	context   int
	matches   int
	out       []string
	outBytes  int
	linesCut  bool
	secrets   *Secrets
	unbounded bool // counting: no byte bound
}

type refBlock struct {
	lines []string
	after int
}

type refCtxLine struct {
	n    int
	text []byte
}

func (s *refSearcher) file(ctx context.Context, abs, shown string) error {
	f, _, err := openRegular(abs)
	if err != nil {
		return nil
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 64<<10)
	if head, _ := r.Peek(sniffBytes); bytes.IndexByte(head, 0) >= 0 {
		return nil
	}
	var before []refCtxLine
	var open []*refBlock
	for n := 1; ; n++ {
		if n%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		line, _, more, err := readLine(r, grepMaxLineBytes, maxScanBytes)
		if err != nil {
			return nil
		}
		line = bytes.TrimSuffix(line, []byte{'\r'})
		for _, b := range open {
			b.lines = append(b.lines, s.format(shown, n, line, '-'))
			b.after--
		}
		open = s.flushDone(open)
		if s.matches < s.limit && s.re.Match(line) {
			s.matches++
			b := &refBlock{after: s.context}
			for _, c := range before {
				b.lines = append(b.lines, s.format(shown, c.n, c.text, '-'))
			}
			b.lines = append(b.lines, s.format(shown, n, line, ':'))
			open = s.flushDone(append(open, b))
		}
		if s.context > 0 {
			before = append(before, refCtxLine{n, bytes.Clone(line)})
			if len(before) > s.context {
				before = before[1:]
			}
		}
		if !more || (s.done() && len(open) == 0) {
			break
		}
	}
	for _, b := range open {
		s.emit(b)
	}
	if s.done() {
		return fs.SkipAll
	}
	return nil
}

func (s *refSearcher) done() bool {
	return s.matches >= s.limit || !s.unbounded && s.outBytes > 2*DefaultMaxBytes
}

func (s *refSearcher) flushDone(open []*refBlock) []*refBlock {
	for len(open) > 0 && open[0].after <= 0 {
		s.emit(open[0])
		open = open[1:]
	}
	return open
}

func (s *refSearcher) emit(b *refBlock) {
	for _, l := range b.lines {
		s.out = append(s.out, l)
		s.outBytes += len(l) + 1
	}
}

func (s *refSearcher) format(shown string, n int, line []byte, sep byte) string {
	text, cut := truncateLine(validUTF8(s.secrets.Scrub(string(line))), GrepMaxLineLength)
	if cut {
		s.linesCut = true
	}
	return fmt.Sprintf("%s%c%d%c %s", shown, sep, n, sep, text)
}

func (s *refSearcher) result() Result {
	if s.matches == 0 {
		return TextResult("No matches found")
	}
	var d GrepDetails
	var notices []string
	if s.matches >= s.limit {
		notices = append(notices, fmt.Sprintf("%d matches limit reached. Use limit=%d for more, or refine pattern", s.limit, s.limit*2))
		d.MatchLimitReached = s.limit
	}
	var tail []string
	if s.linesCut {
		tail = append(tail, fmt.Sprintf("Some lines truncated to %d chars. Use read tool to see full lines", GrepMaxLineLength))
		d.LinesTruncated = true
	}
	return listResult(s.out, notices, tail, &d.Truncation, &d)
}

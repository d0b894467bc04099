package tools

import (
	"bufio"
	"context"
	"io/fs"
	"path"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// ignoreRule is one line of a .gitignore, scoped to the folder holding it.
type ignoreRule struct {
	base     string // folder of the .gitignore, relative to the walk root ("" = root)
	pattern  string
	negate   bool
	dirOnly  bool
	anchored bool // matched against the path below base, not the name
}

// parseIgnore reads the rules of one .gitignore; a missing file has none,
// and so has one that is not a regular file (a pipe there must not hang
// the walk).
func parseIgnore(file, base string) []ignoreRule {
	f, _, err := openRegular(file)
	if err != nil {
		return nil
	}
	defer f.Close()
	var rules []ignoreRule
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), " \t\r")
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		r := ignoreRule{base: base}
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

// ignored applies gitignore rules to rel (slash-separated, relative to the
// walk root); the last matching rule wins.
func ignored(rules []ignoreRule, rel string, isDir bool) bool {
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

// globMatch matches a find or grep glob as fd and rg do: against the name,
// or against the relative path when the glob has a '/'.
func globMatch(glob, rel string) bool {
	target := path.Base(rel)
	if strings.Contains(glob, "/") {
		target = rel
	}
	ok, _ := doublestar.Match(glob, target)
	return ok
}

// visit is called for every entry a walk does not skip; rel is
// slash-separated and relative to the root. Returning fs.SkipAll stops.
type visit func(abs, rel string, d fs.DirEntry) error

// walkTree walks root in lexical order, skipping .git and what the
// .gitignore files met on the way exclude.
func walkTree(ctx context.Context, root string, fn visit) error {
	rules := parseIgnore(filepath.Join(root, ".gitignore"), "")
	return filepath.WalkDir(root, func(abs string, d fs.DirEntry, err error) error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			if abs == root {
				return err
			}
			return nil // unreadable entries are skipped, as rg and fd do
		}
		if abs == root {
			return nil
		}
		rel := filepath.ToSlash(mustRel(root, abs))
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if ignored(rules, rel, d.IsDir()) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			rules = append(rules, parseIgnore(filepath.Join(abs, ".gitignore"), rel)...)
		}
		return fn(abs, rel, d)
	})
}

func mustRel(root, abs string) string {
	rel, err := filepath.Rel(root, abs)
	if err != nil {
		return abs
	}
	return rel
}

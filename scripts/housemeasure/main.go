// Command housemeasure prints the measures the house is held to: the
// non-test lines of cmd and pkg/mode, every non-test file over 500 lines,
// every function over 70 lines, and the 90th percentile of function
// lengths. Generated files (a "Code generated" header) are left out.
//
//	go run ./scripts/housemeasure        # from the repository's root
package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

type fn struct {
	where string
	lines int
}

func main() {
	fset := token.NewFileSet()
	var fns []fn
	var big []string
	folders := map[string]int{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if bytes.Contains(src[:min(len(src), 400)], []byte("Code generated")) {
			return nil
		}
		n := bytes.Count(src, []byte("\n"))
		folders[filepath.Dir(path)] += n
		if n > 500 {
			big = append(big, fmt.Sprintf("%5d %s", n, path))
		}
		f, err := parser.ParseFile(fset, path, src, 0)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			d, ok := decl.(*ast.FuncDecl)
			if !ok || d.Body == nil {
				continue
			}
			lines := fset.Position(d.End()).Line - fset.Position(d.Pos()).Line + 1
			fns = append(fns, fn{fmt.Sprintf("%s:%s", path, d.Name.Name), lines})
		}
		return nil
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "housemeasure:", err)
		os.Exit(1)
	}
	fmt.Printf("cmd: %d lines without tests (at most 1800)\n", folders["cmd"])
	fmt.Printf("pkg/mode: %d lines without tests (at most 1300)\n", folders[filepath.Join("pkg", "mode")])
	fmt.Printf("files over 500 lines: %d\n", len(big))
	for _, b := range big {
		fmt.Println("  ", b)
	}
	slices.SortFunc(fns, func(a, b fn) int { return b.lines - a.lines })
	long := 0
	for _, f := range fns {
		if f.lines > 70 {
			long++
		}
	}
	fmt.Printf("functions over 70 lines: %d\n", long)
	for _, f := range fns[:long] {
		fmt.Printf("   %4d %s\n", f.lines, f.where)
	}
	if len(fns) > 0 {
		fmt.Printf("p90 function length: %d lines (at most 40; %d functions)\n", fns[len(fns)/10].lines, len(fns))
	}
}

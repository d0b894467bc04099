package tools

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// genTree writes a deterministic source-like tree under root: files Go-like
// files in nested folders, a .gitignore at the top and one deeper, ignored
// folders and files that would match, binary files holding the patterns,
// hidden files, CRLF files and a few long lines. The benchmarks search it,
// and the differential tests use small ones.
func genTree(t testing.TB, root string, files int, seed uint64) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	dirs := []string{""}
	for len(dirs) < max(files/12, 2) {
		parent := dirs[r.IntN(len(dirs))]
		if strings.Count(parent, "/") >= 5 {
			continue
		}
		dirs = append(dirs, path2(parent, ident(r, 1)+fmt.Sprint(len(dirs))))
	}
	write := func(rel, content string) {
		full := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".gitignore", "*.log\nbuild/\n/generated/\n*.tmp\n!keep.tmp\n")
	for i := range files {
		dir := dirs[r.IntN(len(dirs))]
		name := ident(r, 2) + fmt.Sprint(i)
		switch k := r.IntN(100); {
		case k < 2:
			write(path2(dir, name+".bin"), binaryContent(r))
		case k < 4:
			write(path2(dir, name+".log"), goFile(r, 40))
		case k < 5:
			write(path2(dir, "build/"+name+".go"), goFile(r, 40))
		case k < 6:
			write(path2(dir, "."+name), goFile(r, 20))
		case k < 8:
			write(path2(dir, name+".txt"), strings.ReplaceAll(goFile(r, 30), "\n", "\r\n"))
		case k < 9:
			write(path2(dir, name+".tmp"), goFile(r, 10))
		default:
			write(path2(dir, name+".go"), goFile(r, 30+r.IntN(400)))
		}
	}
	write("generated/gen.go", goFile(r, 100))
	write(path2(dirs[len(dirs)-1], ".gitignore"), "*_gen.go\n")
	write(path2(dirs[len(dirs)-1], "x_gen.go"), goFile(r, 50))
	write("keep.tmp", goFile(r, 10))
	write("long/wide.go", strings.Repeat("context ", 9000)+"\nfunc wideContext() {}\n")
	write("empty.go", "")
}

func path2(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

var genWords = []string{"read", "write", "parse", "value", "header", "buffer", "conn", "state",
	"token", "index", "cache", "walk", "node", "tree", "span", "frame", "queue", "lock", "done", "err"}

func ident(r *rand.Rand, n int) string {
	var b strings.Builder
	for i := range n {
		w := genWords[r.IntN(len(genWords))]
		if i > 0 {
			w = strings.ToUpper(w[:1]) + w[1:]
		}
		b.WriteString(w)
	}
	return b.String()
}

// goFile is lines lines of Go-like text. Rare lines carry what the
// benchmarks look for: "func xContext(" declarations (and methods that
// only look like them), the literal deadlineBudgetExceeded and the
// mixed-case ErrTimeoutBudget.
func goFile(r *rand.Rand, lines int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "package %s\n\nimport (\n\t\"context\"\n\t\"fmt\"\n)\n\n", ident(r, 1))
	for range lines {
		switch k := r.IntN(1_000_000); {
		case k < 30:
			fmt.Fprintf(&b, "func %sContext(ctx context.Context, n int) error {\n", ident(r, 2))
		case k < 120:
			fmt.Fprintf(&b, "func (s *%s) %sContext(ctx context.Context) error {\n", ident(r, 1), ident(r, 2))
		case k < 150:
			fmt.Fprintf(&b, "\treturn deadlineBudgetExceeded(%s)\n", ident(r, 1))
		case k < 180:
			fmt.Fprintf(&b, "\t// %s: see ERRTIMEOUTBUDGET, errTimeoutBudget or ErrTimeoutBudget\n", ident(r, 1))
		default:
			b.WriteString(plainLine(r))
		}
	}
	return b.String()
}

// plainLine is one line of ordinary Go-like text.
func plainLine(r *rand.Rand) string {
	switch k := r.IntN(20000); {
	case k < 3000:
		return fmt.Sprintf("func (%s *%s) %s(ctx context.Context, %s []byte) (int, error) {\n", ident(r, 1)[:1], ident(r, 1), ident(r, 2), ident(r, 1))
	case k < 8000:
		return fmt.Sprintf("\tif err := %s.%s(ctx, %s); err != nil {\n\t\treturn 0, fmt.Errorf(\"%s: %%w\", err)\n\t}\n", ident(r, 1), ident(r, 2), ident(r, 1), ident(r, 3))
	case k < 12000:
		return fmt.Sprintf("\t// %s %s %s %s the %s before %s.\n", ident(r, 1), ident(r, 1), ident(r, 1), ident(r, 2), ident(r, 1), ident(r, 2))
	case k < 16000:
		return fmt.Sprintf("\t%s := %s[%d:%s+%d]\n", ident(r, 1), ident(r, 2), r.IntN(100), ident(r, 1), r.IntN(9))
	}
	return "}\n\n"
}

// binaryContent starts with a NUL byte and then holds what the benchmarks
// look for, so a search that reads binaries would report it.
func binaryContent(r *rand.Rand) string {
	b := []byte{0x7f, 'E', 'L', 'F', 0, 1, 2}
	for range 200 {
		b = append(b, byte(r.IntN(256)))
	}
	return string(b) + "\nfunc binaryContext(ctx) deadlineBudgetExceeded ErrTimeoutBudget\n"
}

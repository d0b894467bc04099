package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"sort"
	"strconv"
	"strings"
)

// edit replaces src[off:off+n] with text.
type edit struct {
	off, n int
	text   string
}

// mutant is one planted fault: edits of the source, applied together.
type mutant struct {
	line  int
	desc  string
	edits []edit
}

// apply returns src with the mutant's edits made.
func (m mutant) apply(src []byte) []byte {
	es := append([]edit(nil), m.edits...)
	sort.Slice(es, func(i, j int) bool { return es[i].off > es[j].off })
	out := append([]byte(nil), src...)
	for _, e := range es {
		out = append(out[:e.off], append([]byte(e.text), out[e.off+e.n:]...)...)
	}
	return out
}

// swaps are the operator replacements: comparisons to their boundary and
// their negation, arithmetic to its inverse, logic to its dual.
var swaps = map[token.Token][]token.Token{
	token.EQL:  {token.NEQ},
	token.NEQ:  {token.EQL},
	token.LSS:  {token.LEQ, token.GEQ},
	token.LEQ:  {token.LSS, token.GTR},
	token.GTR:  {token.GEQ, token.LEQ},
	token.GEQ:  {token.GTR, token.LSS},
	token.LAND: {token.LOR},
	token.LOR:  {token.LAND},
	token.ADD:  {token.SUB},
	token.SUB:  {token.ADD},
	token.MUL:  {token.QUO},
	token.QUO:  {token.MUL},
}

// mutants lists the faults planted in one file, in source order.
func mutants(name string, src []byte) ([]mutant, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	c := &collector{fset: fset, src: src}
	ast.Inspect(f, c.visit)
	sort.SliceStable(c.out, func(i, j int) bool { return c.out[i].edits[0].off < c.out[j].edits[0].off })
	return c.out, nil
}

type collector struct {
	fset *token.FileSet
	src  []byte
	out  []mutant
}

func (c *collector) off(p token.Pos) int { return c.fset.Position(p).Offset }

func (c *collector) add(p token.Pos, desc string, es ...edit) {
	c.out = append(c.out, mutant{line: c.fset.Position(p).Line, desc: desc, edits: es})
}

func (c *collector) visit(n ast.Node) bool {
	switch n := n.(type) {
	case *ast.BinaryExpr:
		c.binary(n)
	case *ast.IfStmt:
		c.negate(n.Cond, "if")
	case *ast.ForStmt:
		if n.Cond != nil {
			c.negate(n.Cond, "for")
		}
	case *ast.BlockStmt:
		c.drops(n.List)
	case *ast.CaseClause:
		c.drops(n.Body)
	case *ast.ReturnStmt:
		c.returns(n)
	case *ast.IncDecStmt:
		c.incdec(n)
	case *ast.Ident:
		c.boolean(n)
	case *ast.BasicLit:
		c.literal(n)
	case *ast.UnaryExpr:
		if n.Op == token.NOT {
			c.add(n.Pos(), "remove !", edit{c.off(n.OpPos), 1, ""})
		}
	}
	return true
}

func (c *collector) binary(b *ast.BinaryExpr) {
	for _, to := range swaps[b.Op] {
		if (b.Op == token.ADD || b.Op == token.SUB) && isString(b) {
			continue
		}
		c.add(b.OpPos, b.Op.String()+" → "+to.String(), edit{c.off(b.OpPos), len(b.Op.String()), to.String()})
	}
}

// isString guesses a string concatenation from a string literal operand.
func isString(b *ast.BinaryExpr) bool {
	for _, e := range []ast.Expr{b.X, b.Y} {
		if l, ok := e.(*ast.BasicLit); ok && l.Kind == token.STRING {
			return true
		}
	}
	return false
}

func (c *collector) negate(cond ast.Expr, what string) {
	c.add(cond.Pos(), "negate "+what+" condition",
		edit{c.off(cond.Pos()), 0, "!("}, edit{c.off(cond.End()), 0, ")"})
}

// drops removes one statement at a time: a call made for its effect, a
// defer, a go statement, an assignment, a break or continue.
func (c *collector) drops(list []ast.Stmt) {
	for _, s := range list {
		var desc string
		switch s := s.(type) {
		case *ast.ExprStmt:
			if _, ok := s.X.(*ast.CallExpr); !ok {
				continue
			}
			desc = "drop call " + c.snippet(s)
		case *ast.DeferStmt:
			desc = "drop " + c.snippet(s)
		case *ast.GoStmt:
			desc = "drop " + c.snippet(s)
		case *ast.AssignStmt:
			if s.Tok == token.DEFINE {
				continue // the names it declares are used below
			}
			desc = "drop assignment " + c.snippet(s)
		case *ast.BranchStmt:
			if s.Tok != token.BREAK && s.Tok != token.CONTINUE {
				continue
			}
			desc = "drop " + s.Tok.String()
		default:
			continue
		}
		c.add(s.Pos(), desc, edit{c.off(s.Pos()), c.off(s.End()) - c.off(s.Pos()), "{}"})
	}
}

// returns replaces a returned error with nil and a returned bool with its
// opposite.
func (c *collector) returns(r *ast.ReturnStmt) {
	for _, e := range r.Results {
		id, ok := e.(*ast.Ident)
		if !ok {
			continue
		}
		if id.Name == "err" {
			c.add(id.Pos(), "return nil instead of err", edit{c.off(id.Pos()), len(id.Name), "nil"})
		}
	}
}

func (c *collector) incdec(s *ast.IncDecStmt) {
	to := token.DEC
	if s.Tok == token.DEC {
		to = token.INC
	}
	c.add(s.TokPos, s.Tok.String()+" → "+to.String(), edit{c.off(s.TokPos), 2, to.String()})
}

func (c *collector) boolean(id *ast.Ident) {
	switch id.Name {
	case "true":
		c.add(id.Pos(), "true → false", edit{c.off(id.Pos()), 4, "false"})
	case "false":
		c.add(id.Pos(), "false → true", edit{c.off(id.Pos()), 5, "true"})
	}
}

// literal moves an integer constant by one (boundaries, sizes, counts).
func (c *collector) literal(l *ast.BasicLit) {
	if l.Kind != token.INT {
		return
	}
	v, err := strconv.ParseInt(strings.ReplaceAll(l.Value, "_", ""), 0, 64)
	if err != nil {
		return
	}
	to := strconv.FormatInt(v+1, 10)
	switch {
	case strings.HasPrefix(l.Value, "0o"):
		to = "0o" + strconv.FormatInt(v+1, 8)
	case strings.HasPrefix(l.Value, "0x"):
		to = "0x" + strconv.FormatInt(v+1, 16)
	}
	c.add(l.Pos(), l.Value+" → "+to, edit{c.off(l.Pos()), len(l.Value), to})
}

// snippet is a statement's first line, shortened.
func (c *collector) snippet(n ast.Node) string {
	s := string(c.src[c.off(n.Pos()):c.off(n.End())])
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}

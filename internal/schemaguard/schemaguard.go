// Package schemaguard compiles a JSON Schema document (draft 2020-12 or
// draft-07) with github.com/google/jsonschema-go so that checking a value
// against it always ends: the one place --output-schema and MCP tools'
// input schemas are compiled.
//
// Guarantees, each pinned by a test:
//   - a document whose references lead back to a schema without going
//     into a property or an item (a $ref cycle that consumes no input) is
//     refused with ErrCycle when it is read, before anything is checked;
//   - a "type" other than the seven JSON Schema types is refused;
//   - Validate refuses a value nested deeper than MaxDepth instead of
//     following it, so the validator's recursion stays bounded.
package schemaguard

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// ErrCycle is the class of a document whose references loop without
// reading any of the value checked.
var ErrCycle = errors.New("its $ref chain leads back to itself")

// MaxDepth is how deeply a value checked may nest (objects and arrays).
const MaxDepth = 512

// Schema is a compiled document.
type Schema struct {
	resolved *jsonschema.Resolved
}

// Compile reads doc, the JSON text of a schema already decoded into s,
// and compiles s. References outside the document are refused.
func Compile(doc []byte, s *jsonschema.Schema) (*Schema, error) {
	if err := Check(doc); err != nil {
		return nil, err
	}
	r, err := s.Resolve(nil)
	if err != nil {
		return nil, err
	}
	return &Schema{resolved: r}, nil
}

// Validate checks v, a value as encoding/json decodes it.
func (s *Schema) Validate(v any) error {
	if depth(v, 0) > MaxDepth {
		return fmt.Errorf("the value nests deeper than %d levels", MaxDepth)
	}
	return s.resolved.Validate(v)
}

// depth is how many objects and arrays v nests, counting v's own; past
// MaxDepth it stops looking.
func depth(v any, d int) int {
	var kids []any
	switch x := v.(type) {
	case []any:
		kids = x
	case map[string]any:
		kids = slices.Collect(maps.Values(x))
	default:
		return d
	}
	d++
	deepest := d
	for _, e := range kids {
		if deepest > MaxDepth {
			break
		}
		deepest = max(deepest, depth(e, d))
	}
	return deepest
}

// Check reads doc and refuses a $ref cycle that consumes no input and an
// unknown type name; a document that is not JSON is left to the caller's
// decoder.
func Check(doc []byte) error {
	var root any
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	if dec.Decode(&root) != nil {
		return nil
	}
	g := &graph{nodes: map[string]*node{}, resources: map[string]string{}, anchors: map[string][]string{}}
	if err := g.walk(root, "", &url.URL{}); err != nil {
		return err
	}
	g.link()
	return g.findCycle()
}

// node is one subschema, named by its JSON pointer in the document.
type node struct {
	base  *url.URL // the base URI references in it are resolved against
	refs  []ref    // $ref, $dynamicRef, $recursiveRef
	same  []string // subschemas applied to the same value (allOf, not, if...)
	parts []string // subschemas applied to a part of it
	edges []string // same and the references' targets
}

type graph struct {
	nodes     map[string]*node
	order     []string            // nodes in document order, for stable messages
	resources map[string]string   // base URI (no fragment) → its schema's pointer
	anchors   map[string][]string // base URI#anchor → pointers
}

type ref struct {
	uri     string
	dynamic bool // may land on any dynamic anchor of its name
}

// shape says what a keyword holds: schemas applied to the value itself
// (same) or to a part of it (a property, an item, a name); one schema,
// a list of them, or a map of names to them.
func shape(k string) (same, one, list, byName bool) {
	switch k {
	case "not", "if", "then", "else":
		return true, true, false, false
	case "allOf", "anyOf", "oneOf":
		return true, false, true, false
	case "dependentSchemas", "dependencies":
		return true, false, false, true
	case "items": // one schema, or draft-07's list
		return false, true, true, false
	case "additionalProperties", "additionalItems", "contains", "propertyNames", "unevaluatedItems", "unevaluatedProperties":
		return false, true, false, false
	case "prefixItems":
		return false, false, true, false
	case "properties", "patternProperties", "$defs", "definitions":
		return false, false, false, true
	}
	return false, false, false, false
}

// typeNames are JSON Schema's types.
func typeNames() []string {
	return []string{"null", "boolean", "object", "array", "number", "string", "integer"}
}

func (g *graph) walk(v any, ptr string, parent *url.URL) error {
	obj, ok := v.(map[string]any)
	if !ok {
		if _, isBool := v.(bool); isBool {
			g.add(ptr, &node{base: parent})
		}
		return nil
	}
	n := &node{base: parent}
	if id, ok := obj["$id"].(string); ok {
		if u, err := url.Parse(id); err == nil {
			n.base = parent.ResolveReference(u)
			n.base.Fragment = ""
			g.resources[n.base.String()] = ptr
		}
	}
	if ptr == "" {
		g.resources[n.base.String()] = ptr
	}
	for _, k := range []string{"$anchor", "$dynamicAnchor", "$recursiveAnchor"} {
		if a, ok := obj[k].(string); ok {
			key := n.base.String() + "#" + a
			g.anchors[key] = append(g.anchors[key], ptr)
		}
	}
	if err := checkType(obj["type"], ptr); err != nil {
		return err
	}
	for _, k := range []string{"$ref", "$dynamicRef", "$recursiveRef"} {
		if r, ok := obj[k].(string); ok {
			n.refs = append(n.refs, ref{uri: r, dynamic: k != "$ref"})
		}
	}
	g.add(ptr, n)
	return g.children(obj, ptr, n)
}

func (g *graph) add(ptr string, n *node) {
	g.nodes[ptr] = n
	g.order = append(g.order, ptr)
}

func (g *graph) children(obj map[string]any, ptr string, n *node) error {
	var applied bool // the keyword's schemas apply to the value or a part of it
	visit := func(v any, p string, same bool) error {
		if _, isObj := v.(map[string]any); !isObj {
			if _, isBool := v.(bool); !isBool {
				return nil
			}
		}
		switch {
		case same:
			n.same = append(n.same, p)
		case applied:
			n.parts = append(n.parts, p)
		}
		return g.walk(v, p, n.base)
	}
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		v, p := obj[k], ptr+"/"+escape(k)
		same, one, list, kmap := shape(k)
		applied = k != "$defs" && k != "definitions" // reached only through a $ref
		switch x := v.(type) {
		case []any:
			if list {
				for i, e := range x {
					if err := visit(e, fmt.Sprintf("%s/%d", p, i), same); err != nil {
						return err
					}
				}
			}
		case map[string]any, bool:
			if one {
				if err := visit(x, p, same); err != nil {
					return err
				}
			} else if m, isMap := x.(map[string]any); isMap && kmap {
				for _, name := range slices.Sorted(maps.Keys(m)) {
					if err := visit(m[name], p+"/"+escape(name), same); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

func checkType(t any, ptr string) error {
	names, ok := t.([]any)
	if !ok {
		names = []any{t}
	}
	for _, n := range names {
		s, isStr := n.(string)
		if t == nil || (isStr && slices.Contains(typeNames(), s)) {
			continue
		}
		return fmt.Errorf("schema at %s: type %s is not a JSON Schema type (use %s)", where(ptr), show(n), strings.Join(typeNames(), ", "))
	}
	return nil
}

// link resolves every reference to the subschemas it may lead to.
// A reference that leads nowhere is left to the compiler, which says
// what is wrong with it.
func (g *graph) link() {
	for _, ptr := range g.order {
		n := g.nodes[ptr]
		n.edges = append(n.edges, n.same...)
		for _, r := range n.refs {
			n.edges = append(n.edges, g.target(n.base, r)...)
		}
	}
}

func (g *graph) target(base *url.URL, r ref) []string {
	u, err := url.Parse(r.uri)
	if err != nil {
		return nil
	}
	abs := base.ResolveReference(u)
	frag := abs.Fragment
	abs.Fragment = ""
	res, ok := g.resources[abs.String()]
	switch {
	case r.dynamic && frag != "" && !strings.HasPrefix(frag, "/"):
		var ps []string
		for _, k := range slices.Sorted(maps.Keys(g.anchors)) {
			if strings.HasSuffix(k, "#"+frag) {
				ps = append(ps, g.anchors[k]...)
			}
		}
		return ps
	case !ok:
		return nil
	case frag == "":
		return []string{res}
	case strings.HasPrefix(frag, "/"):
		if _, ok := g.nodes[res+frag]; ok {
			return []string{res + frag}
		}
		return nil
	default:
		return g.anchors[abs.String()+"#"+frag]
	}
}

// reachable lists the subschemas a value checked against the root may
// be checked against: a cycle elsewhere (an unused definition) is never
// followed.
func (g *graph) reachable() []string {
	seen := map[string]bool{"": true}
	queue := []string{""}
	for i := 0; i < len(queue); i++ {
		n := g.nodes[queue[i]]
		if n == nil {
			continue
		}
		for _, q := range slices.Concat(n.edges, n.parts) {
			if !seen[q] && g.nodes[q] != nil {
				seen[q] = true
				queue = append(queue, q)
			}
		}
	}
	return slices.DeleteFunc(slices.Clone(g.order), func(p string) bool { return !seen[p] })
}

// findCycle is a depth-first search over the edges that keep to the same
// value, from every subschema a value may reach.
func (g *graph) findCycle() error {
	const (
		unseen = iota
		open
		done
	)
	state := map[string]int{}
	var stack []string
	var visit func(p string) error
	visit = func(p string) error {
		state[p] = open
		stack = append(stack, p)
		for _, q := range g.nodes[p].edges {
			switch state[q] {
			case open:
				i := slices.Index(stack, q)
				path := make([]string, 0, len(stack)-i+1)
				for _, s := range append(stack[i:], q) {
					path = append(path, where(s))
				}
				return fmt.Errorf("schema at %s: %w without going into a property or an item (%s), so no value could ever be checked against it",
					where(q), ErrCycle, strings.Join(path, " → "))
			case unseen:
				if err := visit(q); err != nil {
					return err
				}
			}
		}
		stack = stack[:len(stack)-1]
		state[p] = done
		return nil
	}
	for _, p := range g.reachable() {
		if state[p] == unseen {
			if err := visit(p); err != nil {
				return err
			}
		}
	}
	return nil
}

func where(ptr string) string { return "#" + ptr }

func escape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

func show(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

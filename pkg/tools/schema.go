package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
)

// schema is the part of JSON Schema that tool parameters use: type,
// properties, required, additionalProperties, items, enum, const, the
// numeric, length and count bounds, and anyOf/allOf/oneOf. Other keywords
// (description, default, format, $ref, pattern, …) are accepted and not
// checked: validation helps the model correct itself, and every tool still
// decodes its arguments defensively. A full validator was measured at 9 ms
// of start-up per process (its meta-schemas compile at init), which is
// most of what a whole gopi run may cost.
type schema struct {
	types      []string
	properties map[string]*schema
	required   []string
	addlBool   *bool
	addl       *schema
	items      *schema
	enum       []any
	constant   *any
	min, max   *float64
	minLen     *int
	maxLen     *int
	minItems   *int
	maxItems   *int
	anyOf      []*schema
	allOf      []*schema
	oneOf      []*schema
}

var schemaTypes = []string{"object", "array", "string", "number", "integer", "boolean", "null"}

// compileSchema reads a schema; a malformed one is an error.
func compileSchema(raw json.RawMessage) (*schema, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("a schema must be a JSON object: %w", err)
	}
	s := &schema{}
	steps := []func(map[string]json.RawMessage) error{s.readTypes, s.readObject, s.readArray, s.readValues, s.readCombinators}
	for _, step := range steps {
		if err := step(m); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func (s *schema) readTypes(m map[string]json.RawMessage) error {
	raw, ok := m["type"]
	if !ok {
		return nil
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		s.types = []string{one}
	} else if err := json.Unmarshal(raw, &s.types); err != nil {
		return fmt.Errorf("type: want a name or a list of names")
	}
	for _, t := range s.types {
		if !slices.Contains(schemaTypes, t) {
			return fmt.Errorf("type: unknown type %q", t)
		}
	}
	return nil
}

func (s *schema) readObject(m map[string]json.RawMessage) error {
	if raw, ok := m["properties"]; ok {
		var props map[string]json.RawMessage
		if err := json.Unmarshal(raw, &props); err != nil {
			return fmt.Errorf("properties: want an object")
		}
		s.properties = map[string]*schema{}
		for name, p := range props {
			sub, err := compileSchema(p)
			if err != nil {
				return fmt.Errorf("properties.%s: %w", name, err)
			}
			s.properties[name] = sub
		}
	}
	if raw, ok := m["required"]; ok {
		if err := json.Unmarshal(raw, &s.required); err != nil {
			return fmt.Errorf("required: want a list of names")
		}
	}
	if raw, ok := m["additionalProperties"]; ok {
		var b bool
		if json.Unmarshal(raw, &b) == nil {
			s.addlBool = &b
		} else {
			sub, err := compileSchema(raw)
			if err != nil {
				return fmt.Errorf("additionalProperties: %w", err)
			}
			s.addl = sub
		}
	}
	return nil
}

func (s *schema) readArray(m map[string]json.RawMessage) error {
	if raw, ok := m["items"]; ok {
		sub, err := compileSchema(raw)
		if err != nil {
			return fmt.Errorf("items: %w", err)
		}
		s.items = sub
	}
	return readInts(m, map[string]**int{"minItems": &s.minItems, "maxItems": &s.maxItems, "minLength": &s.minLen, "maxLength": &s.maxLen})
}

func (s *schema) readValues(m map[string]json.RawMessage) error {
	if raw, ok := m["enum"]; ok {
		if err := json.Unmarshal(raw, &s.enum); err != nil {
			return fmt.Errorf("enum: want a list")
		}
	}
	if raw, ok := m["const"]; ok {
		// raw is one JSON value (the schema around it decoded), and any
		// JSON value decodes into an any.
		var c any
		_ = json.Unmarshal(raw, &c)
		s.constant = &c
	}
	for key, dst := range map[string]**float64{"minimum": &s.min, "maximum": &s.max} {
		if raw, ok := m[key]; ok {
			var f float64
			if err := json.Unmarshal(raw, &f); err != nil {
				return fmt.Errorf("%s: want a number", key)
			}
			*dst = &f
		}
	}
	return nil
}

func readInts(m map[string]json.RawMessage, dsts map[string]**int) error {
	for key, dst := range dsts {
		if raw, ok := m[key]; ok {
			var n int
			if err := json.Unmarshal(raw, &n); err != nil || n < 0 {
				return fmt.Errorf("%s: want a whole number", key)
			}
			*dst = &n
		}
	}
	return nil
}

func (s *schema) readCombinators(m map[string]json.RawMessage) error {
	for key, dst := range map[string]*[]*schema{"anyOf": &s.anyOf, "allOf": &s.allOf, "oneOf": &s.oneOf} {
		raw, ok := m[key]
		if !ok {
			continue
		}
		var list []json.RawMessage
		if err := json.Unmarshal(raw, &list); err != nil || len(list) == 0 {
			return fmt.Errorf("%s: want a list of schemas", key)
		}
		for i, r := range list {
			sub, err := compileSchema(r)
			if err != nil {
				return fmt.Errorf("%s[%d]: %w", key, i, err)
			}
			*dst = append(*dst, sub)
		}
	}
	return nil
}

// validateJSON checks a JSON document against the schema.
func (s *schema) validateJSON(doc []byte) error {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("not valid JSON: %w", err)
	}
	if dec.More() {
		return fmt.Errorf("not valid JSON: more than one value")
	}
	return s.validate(v, "")
}

// validate checks v (decoded with UseNumber); path is a JSON pointer.
func (s *schema) validate(v any, path string) error {
	if len(s.types) > 0 && !slices.ContainsFunc(s.types, func(t string) bool { return hasType(v, t) }) {
		return fmt.Errorf("%s: want %s, got %s", at(path), strings.Join(s.types, " or "), describe(v))
	}
	if err := s.validateValue(v, path); err != nil {
		return err
	}
	switch x := v.(type) {
	case map[string]any:
		return s.validateObject(x, path)
	case []any:
		return s.validateArray(x, path)
	case string:
		n := utf8.RuneCountInString(x)
		if s.minLen != nil && n < *s.minLen || s.maxLen != nil && n > *s.maxLen {
			return fmt.Errorf("%s: length %d is out of bounds", at(path), n)
		}
	case json.Number:
		f, _ := x.Float64()
		if s.min != nil && f < *s.min || s.max != nil && f > *s.max {
			return fmt.Errorf("%s: %s is out of bounds", at(path), x)
		}
	}
	return s.validateCombinators(v, path)
}

func (s *schema) validateValue(v any, path string) error {
	if s.enum != nil && !slices.ContainsFunc(s.enum, func(e any) bool { return sameJSON(e, v) }) {
		return fmt.Errorf("%s: %s is not one of the allowed values", at(path), describe(v))
	}
	if s.constant != nil && !sameJSON(*s.constant, v) {
		return fmt.Errorf("%s: %s is not the required value", at(path), describe(v))
	}
	return nil
}

func (s *schema) validateObject(obj map[string]any, path string) error {
	for _, name := range s.required {
		if _, ok := obj[name]; !ok {
			return fmt.Errorf("%s: missing property %q", at(path), name)
		}
	}
	names := make([]string, 0, len(obj))
	for name := range obj {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		sub, known := s.properties[name]
		switch {
		case known:
		case s.addl != nil:
			sub = s.addl
		case s.addlBool != nil && !*s.addlBool:
			return fmt.Errorf("%s: unknown property %q", at(path), name)
		default:
			continue
		}
		if err := sub.validate(obj[name], path+"/"+name); err != nil {
			return err
		}
	}
	return nil
}

func (s *schema) validateArray(list []any, path string) error {
	if s.minItems != nil && len(list) < *s.minItems || s.maxItems != nil && len(list) > *s.maxItems {
		return fmt.Errorf("%s: %d items is out of bounds", at(path), len(list))
	}
	if s.items == nil {
		return nil
	}
	for i, item := range list {
		if err := s.items.validate(item, fmt.Sprintf("%s/%d", path, i)); err != nil {
			return err
		}
	}
	return nil
}

func (s *schema) validateCombinators(v any, path string) error {
	for _, sub := range s.allOf {
		if err := sub.validate(v, path); err != nil {
			return err
		}
	}
	if len(s.anyOf) > 0 && !slices.ContainsFunc(s.anyOf, func(sub *schema) bool { return sub.validate(v, path) == nil }) {
		return fmt.Errorf("%s: %s matches none of the allowed shapes", at(path), describe(v))
	}
	if len(s.oneOf) > 0 {
		n := 0
		for _, sub := range s.oneOf {
			if sub.validate(v, path) == nil {
				n++
			}
		}
		if n != 1 {
			return fmt.Errorf("%s: %s matches %d of the shapes, want exactly one", at(path), describe(v), n)
		}
	}
	return nil
}

func hasType(v any, t string) bool {
	switch x := v.(type) {
	case map[string]any:
		return t == "object"
	case []any:
		return t == "array"
	case string:
		return t == "string"
	case bool:
		return t == "boolean"
	case nil:
		return t == "null"
	case json.Number:
		if t == "number" {
			return true
		}
		f, err := x.Float64()
		return t == "integer" && err == nil && f == math.Trunc(f) && !math.IsInf(f, 0)
	}
	return false
}

func describe(v any) string {
	switch x := v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		if len(x) > 40 {
			x = x[:40] + "…"
		}
		return fmt.Sprintf("string %q", x)
	case bool:
		return fmt.Sprintf("boolean %v", x)
	case nil:
		return "null"
	case json.Number:
		return "number " + x.String()
	}
	return fmt.Sprintf("%v", v)
}

func at(path string) string {
	if path == "" {
		return "arguments"
	}
	return path
}

// sameJSON compares a value decoded without UseNumber (enum, const) with
// one decoded with it.
func sameJSON(a, b any) bool {
	if n, ok := b.(json.Number); ok {
		f, err := n.Float64()
		af, isNum := a.(float64)
		return err == nil && isNum && af == f
	}
	return reflect.DeepEqual(normalize(a), normalize(b))
}

func normalize(v any) any {
	switch x := v.(type) {
	case json.Number:
		f, _ := x.Float64()
		return f
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalize(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = normalize(e)
		}
		return out
	}
	return v
}

package telemetry

import (
	"slices"
	"strconv"
	"strings"
)

// attribute is one key and value of a span, an event, a resource or a
// metric's point, with OTLP's value types (AnyValue): a string, a bool,
// an integer, a double or an array of strings.
type attribute struct {
	Key   string
	Value attrValue
}

type attrKind uint8

const (
	kindString attrKind = iota
	kindBool
	kindInt
	kindFloat
	kindStrings
)

type attrValue struct {
	kind attrKind
	s    string
	n    int64 // kindInt; kindBool: 0 or 1
	f    float64
	ss   []string
}

func str(k, v string) attribute         { return attribute{k, attrValue{kind: kindString, s: v}} }
func integer(k string, v int) attribute { return attribute{k, attrValue{kind: kindInt, n: int64(v)}} }
func i64(k string, v int64) attribute   { return attribute{k, attrValue{kind: kindInt, n: v}} }
func f64(k string, v float64) attribute { return attribute{k, attrValue{kind: kindFloat, f: v}} }
func strs(k string, v []string) attribute {
	return attribute{k, attrValue{kind: kindStrings, ss: slices.Clone(v)}}
}

func boolean(k string, v bool) attribute {
	a := attribute{k, attrValue{kind: kindBool}}
	if v {
		a.Value.n = 1
	}
	return a
}

// text is the value as one string, its type first: the key of a
// metric's point, different for every value.
func (v attrValue) text() string {
	switch v.kind {
	case kindBool:
		return "b" + strconv.FormatBool(v.n == 1)
	case kindInt:
		return "i" + strconv.FormatInt(v.n, 10)
	case kindFloat:
		return "f" + strconv.FormatFloat(v.f, 'g', -1, 64)
	case kindStrings:
		q := make([]string, len(v.ss))
		for i, s := range v.ss {
			q[i] = strconv.Quote(s)
		}
		return "[" + strings.Join(q, ",") + "]"
	}
	return strconv.Quote(v.s)
}

// truncated cuts the value's strings to at most limit characters, never
// inside a UTF-8 sequence, as OpenTelemetry's attribute value length
// limit does.
func (v attrValue) truncated(limit int) attrValue {
	switch v.kind {
	case kindString:
		v.s = cut(v.s, limit)
	case kindStrings:
		for i, s := range v.ss {
			v.ss[i] = cut(s, limit)
		}
	}
	return v
}

func cut(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	n := 0
	for i := range s {
		if n == limit {
			return s[:i]
		}
		n++
	}
	return s
}

// attributeSet is attrs as a metric's point sees them: sorted by key, the
// last value of a key kept, and the set's key.
func attributeSet(attrs []attribute) ([]attribute, string) {
	set := make([]attribute, 0, len(attrs))
	for i := len(attrs) - 1; i >= 0; i-- {
		if !slices.ContainsFunc(set, func(a attribute) bool { return a.Key == attrs[i].Key }) {
			set = append(set, attrs[i])
		}
	}
	slices.SortFunc(set, func(a, b attribute) int { return strings.Compare(a.Key, b.Key) })
	var key strings.Builder
	for _, a := range set {
		key.WriteString(strconv.Quote(a.Key))
		key.WriteByte('=')
		key.WriteString(a.Value.text())
		key.WriteByte(',')
	}
	return set, key.String()
}

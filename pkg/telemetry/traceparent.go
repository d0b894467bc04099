package telemetry

import (
	"encoding/hex"
	"slices"
	"strings"
)

// parseTraceParent reads W3C trace context's traceparent and tracestate
// (https://www.w3.org/TR/trace-context/) as the caller's span: the
// invalid value of a zero spanContext when traceparent is not one (the
// run is a trace of its own then). A tracestate that is not one is
// dropped, as the specification says, and the traceparent kept.
func parseTraceParent(traceparent, tracestate string) spanContext {
	parts := strings.SplitN(traceparent, "-", 5)
	if len(parts) < 4 {
		return spanContext{}
	}
	var version, flags [1]byte
	var sc spanContext
	if !lowerHex(version[:], parts[0]) || version[0] == 0xff || !lowerHex(sc.traceID[:], parts[1]) ||
		!lowerHex(sc.spanID[:], parts[2]) || !lowerHex(flags[:], parts[3]) {
		return spanContext{}
	}
	// Version 00 has exactly four fields and two flags defined; a later
	// version may add fields after a dash, its first four read as 00's.
	if version[0] == 0 && (len(parts) > 4 || flags[0] > 3) {
		return spanContext{}
	}
	if !sc.valid() {
		return spanContext{}
	}
	sc.flags, sc.remote = flags[0]&0x03, true
	sc.state = traceState(tracestate)
	return sc
}

// lowerHex decodes s, exactly 2×len(dst) lower-case hex digits, into dst.
func lowerHex(dst []byte, s string) bool {
	if len(s) != 2*len(dst) || strings.ToLower(s) != s {
		return false
	}
	_, err := hex.Decode(dst, []byte(s))
	return err == nil
}

// traceState reads a tracestate list: at most 32 key=value members
// separated by commas (empty members and spaces around them allowed),
// each key once. It returns the list as it is sent on, its members
// joined by commas, or "" when s is not one.
func traceState(s string) string {
	var keys, members []string
	for m := range strings.SplitSeq(s, ",") {
		m = strings.Trim(m, " \t")
		if m == "" {
			continue
		}
		k, v, ok := strings.Cut(m, "=")
		if !ok || !traceStateKey(k) || !traceStateValue(v) || len(keys) == 32 || slices.Contains(keys, k) {
			return ""
		}
		keys, members = append(keys, k), append(members, m)
	}
	return strings.Join(members, ",")
}

// traceStateKey: a lower-case letter then up to 255 of a-z 0-9 _ - * /,
// or tenant@system (a tenant of up to 241 starting with a letter or a
// digit, a system of up to 14 starting with a letter).
func traceStateKey(k string) bool {
	keyChar := func(c byte) bool {
		return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '*' || c == '/'
	}
	part := func(p string, max int, digitFirst bool) bool {
		if p == "" || len(p) > max || !(p[0] >= 'a' && p[0] <= 'z' || digitFirst && p[0] >= '0' && p[0] <= '9') {
			return false
		}
		for i := range len(p) {
			if !keyChar(p[i]) {
				return false
			}
		}
		return true
	}
	if tenant, system, ok := strings.Cut(k, "@"); ok {
		return part(tenant, 241, true) && part(system, 14, false)
	}
	return part(k, 256, false)
}

// traceStateValue: 1 to 256 printable ASCII characters but , and =
// (the member was trimmed: it does not end in a space).
func traceStateValue(v string) bool {
	if v == "" || len(v) > 256 {
		return false
	}
	for i := range len(v) {
		if c := v[i]; c < 0x20 || c > 0x7e || c == ',' || c == '=' {
			return false
		}
	}
	return true
}

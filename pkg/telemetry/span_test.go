package telemetry

import (
	"encoding/hex"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TRACEPARENT is read as W3C trace context says: a value that is not one
// leaves the run a trace of its own; a bad tracestate is dropped and the
// parent kept.
func TestParseTraceParent(t *testing.T) {
	const tid, sid = "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331"
	for _, c := range []struct {
		name, parent, state string
		valid               bool
		flags               byte
		wantState           string
	}{
		{"sampled", "00-" + tid + "-" + sid + "-01", "", true, 1, ""},
		{"not sampled", "00-" + tid + "-" + sid + "-00", "", true, 0, ""},
		{"random flag kept", "00-" + tid + "-" + sid + "-03", "", true, 3, ""},
		{"state normalised", "00-" + tid + "-" + sid + "-01", " rojo=00f067aa0ba902b7 ,, congo=t61rcWkgMzE", true, 1, "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE"},
		{"tenant key", "00-" + tid + "-" + sid + "-01", "acme@vendor=x", true, 1, "acme@vendor=x"},
		{"every key character", "00-" + tid + "-" + sid + "-01", "0a9z_-*/@a0z9_-*/=x,a0z9_-*/=a b!~", true, 1, "0a9z_-*/@a0z9_-*/=x,a0z9_-*/=a b!~"},
		{"bad state dropped", "00-" + tid + "-" + sid + "-01", "Rojo=1", true, 1, ""},
		{"upper case inside a key", "00-" + tid + "-" + sid + "-01", "roJo=1", true, 1, ""},
		{"a digit first without a tenant", "00-" + tid + "-" + sid + "-01", "0rojo=1", true, 1, ""},
		{"empty value", "00-" + tid + "-" + sid + "-01", "rojo=", true, 1, ""},
		{"control character in a value", "00-" + tid + "-" + sid + "-01", "rojo=a\x7fb", true, 1, ""},
		{"33 members", "00-" + tid + "-" + sid + "-01", members(33), true, 1, ""},
		{"32 members", "00-" + tid + "-" + sid + "-01", members(32), true, 1, members(32)},
		{"duplicate key dropped", "00-" + tid + "-" + sid + "-01", "a=1,a=2", true, 1, ""},
		{"a later version's extra field", "01-" + tid + "-" + sid + "-09-what-comes", "", true, 1, ""},
		{"version 00 with an extra field", "00-" + tid + "-" + sid + "-01-x", "", false, 0, ""},
		{"version 00 with reserved flags", "00-" + tid + "-" + sid + "-04", "", false, 0, ""},
		{"version ff", "ff-" + tid + "-" + sid + "-01", "", false, 0, ""},
		{"upper case", "00-" + strings.ToUpper(tid) + "-" + sid + "-01", "", false, 0, ""},
		{"zero trace id", "00-" + strings.Repeat("0", 32) + "-" + sid + "-01", "", false, 0, ""},
		{"zero span id", "00-" + tid + "-" + strings.Repeat("0", 16) + "-01", "", false, 0, ""},
		{"short", "00-" + tid[:30] + "-" + sid + "-01", "", false, 0, ""},
		{"empty", "", "", false, 0, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			sc := parseTraceParent(c.parent, c.state)
			if sc.valid() != c.valid {
				t.Fatalf("valid %v, want %v", sc.valid(), c.valid)
			}
			if !c.valid {
				return
			}
			if hex.EncodeToString(sc.traceID[:]) != tid || hex.EncodeToString(sc.spanID[:]) != sid || !sc.remote {
				t.Errorf("span context %+v", sc)
			}
			if sc.flags != c.flags || sc.state != c.wantState {
				t.Errorf("flags %x, state %q; want %x, %q", sc.flags, sc.state, c.flags, c.wantState)
			}
		})
	}
}

// members is a tracestate of n members, k0=v to k{n-1}=v.
func members(n int) string {
	var m []string
	for i := range n {
		m = append(m, "k"+strconv.Itoa(i)+"=v")
	}
	return strings.Join(m, ",")
}

// The attributes of a metric's point: sorted by key, a key's last value
// kept, and a key of the set that tells every value apart.
func TestAttributeSet(t *testing.T) {
	set, key := attributeSet([]attribute{str("b", "1"), integer("a", 2), str("b", "3")})
	if len(set) != 2 || set[0].Key != "a" || set[1].Key != "b" || set[1].Value.s != "3" {
		t.Errorf("set %+v", set)
	}
	seen := map[string]bool{key: true}
	for _, a := range []attribute{boolean("v", true), boolean("v", false), integer("v", 1), f64("v", 1.5), str("v", "1"),
		str("v", "x\x00y"), strs("v", []string{"x", "y"})} {
		_, k := attributeSet([]attribute{a})
		if seen[k] {
			t.Errorf("%+v: key %q again", a, k)
		}
		seen[k] = true
	}
}

// OTEL_TRACES_SAMPLER: the parent's decision for the parent-based ones,
// and a trace id ratio decided by the id's last 8 bytes as the SDK
// decides it, so every span of a trace gets the same answer.
func TestSampler(t *testing.T) {
	id := func(low string) (b [16]byte) {
		hex.Decode(b[8:], []byte(low))
		return b
	}
	low, high := id("0000000000000001"), id("fffffffffffffffe")
	sampledParent := parseTraceParent("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", "")
	unsampledParent := parseTraceParent("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00", "")
	for _, c := range []struct {
		sampler string
		arg     float64
		parent  spanContext
		id      [16]byte
		want    bool
	}{
		{"parentbased_always_on", 1, spanContext{}, low, true},
		{"parentbased_always_on", 1, unsampledParent, low, false},
		{"parentbased_always_off", 1, spanContext{}, low, false},
		{"parentbased_always_off", 1, sampledParent, low, true},
		{"always_on", 1, unsampledParent, low, true},
		{"always_off", 1, sampledParent, low, false},
		{"traceidratio", 0.5, spanContext{}, low, true},
		{"traceidratio", 0.5, spanContext{}, high, false},
		{"traceidratio", 0.5, unsampledParent, low, true},
		{"traceidratio", 0, spanContext{}, low, false},
		{"traceidratio", 1, spanContext{}, high, true},
		{"parentbased_traceidratio", 0.5, spanContext{}, high, false},
		{"parentbased_traceidratio", 0.5, sampledParent, high, true},
	} {
		tel := &Telemetry{cfg: Config{Sampler: c.sampler, SamplerArg: c.arg}}
		if got := tel.sample(c.parent, c.id); got != c.want {
			t.Errorf("%s(%g), parent sampled %v valid %v: %v, want %v", c.sampler, c.arg, c.parent.sampled(), c.parent.valid(), got, c.want)
		}
	}
}

// A span keeps at most 128 attributes (a key set again takes its new
// value), cuts a value at 64 KiB without splitting a character, and
// keeps the newest 256 events; what it drops it counts.
func TestSpanLimits(t *testing.T) {
	tel := &Telemetry{cfg: Config{Sampler: "always_on"}, col: &collector{}}
	s := tel.startSpan(spanContext{}, "x", spanInternal, time.Now())
	for i := range maxAttributes + 3 {
		s.SetAttributes(integer("k"+string(rune('a'+i%26))+strings.Repeat("_", i/26), i))
	}
	s.SetAttributes(str("ka", "again"))
	if len(s.attrs) != 128 || s.dropped != 3 || s.attrs[0].Value.s != "again" {
		t.Errorf("%d attributes, %d dropped, first %+v", len(s.attrs), s.dropped, s.attrs[0])
	}
	long := strings.Repeat("é", 64<<10) // two bytes each
	s.SetAttributes(str("ka", long))
	if got := s.attrs[0].Value.s; len(got) != 2*maxValue || got != long {
		t.Errorf("a value of %d characters kept as %d bytes", maxValue, len(got))
	}
	s.SetAttributes(str("ka", long+"é"))
	if got := s.attrs[0].Value.s; got != long {
		t.Errorf("a value over the limit kept as %d bytes, want %d", len(got), len(long))
	}
	for i := range maxEvents + 2 {
		s.AddEvent("e", time.Unix(int64(i), 0))
	}
	if len(s.events) != 256 || s.lostEvents != 2 || s.events[0].at.Unix() != 2 {
		t.Errorf("%d events, %d lost, the oldest at %d", len(s.events), s.lostEvents, s.events[0].at.Unix())
	}
	s.End(time.Now())
	s.SetAttributes(str("after", "end"))
	s.SetError("after end")
	if len(tel.col.take()) != 1 || s.status != 0 {
		t.Errorf("an ended span changed or was kept twice")
	}
}

// A span of a trace the sampler drops records nothing and is not kept.
func TestUnsampledSpanIsNotKept(t *testing.T) {
	tel := &Telemetry{cfg: Config{Sampler: "always_off"}, col: &collector{}}
	s := tel.startSpan(spanContext{}, "x", spanInternal, time.Now(), str("a", "b"))
	s.AddEvent("e", time.Now())
	s.End(time.Now())
	if len(tel.col.take()) != 0 || len(s.attrs) != 0 || len(s.events) != 0 {
		t.Errorf("an unsampled span recorded %+v", s)
	}
	if s.sc.sampled() || !s.sc.valid() {
		t.Errorf("span context %+v: want valid ids without the sampled flag", s.sc)
	}
}

// Trace and span ids are random in all their bytes: a new trace's root
// does not share its trace id, nor a child its span id.
func TestIDsAreRandom(t *testing.T) {
	tel := &Telemetry{cfg: Config{Sampler: "always_on"}, col: &collector{}}
	seen := map[string]bool{}
	for range 50 {
		root := tel.startSpan(spanContext{}, "root", spanInternal, time.Now())
		child := tel.startSpan(root.sc, "child", spanInternal, time.Now())
		if child.sc.traceID != root.sc.traceID || child.parent.spanID != root.sc.spanID || child.sc.spanID == root.sc.spanID {
			t.Fatalf("child %+v of root %+v", child.sc, root.sc)
		}
		for _, half := range [][]byte{root.sc.traceID[:8], root.sc.traceID[8:], root.sc.spanID[:]} {
			if seen[string(half)] {
				t.Fatalf("an id part repeated: %x", half)
			}
			seen[string(half)] = true
		}
	}
}

package pijson_test

import (
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"

	"gopi/internal/pijson"
)

// Below 64 bytes QuotedSize is the exact length of the quoted string, for
// every ASCII byte and for multi-byte runes.
func TestQuotedSizeShortIsExact(t *testing.T) {
	t.Parallel()
	var cases []string
	for c := range 128 {
		cases = append(cases, string(rune(c)), "ab"+string(rune(c))+"cd")
	}
	cases = append(cases, "", "héllo wörld", "日本語\n\t\"x\"", "🎉\x1b[0m\\", "\u2028\u2029",
		strings.Repeat("\x01", 63), strings.Repeat("é", 31)+"x")
	for _, s := range cases {
		want := len(pijson.AppendString(nil, s))
		if got := pijson.QuotedSize(s); got != want {
			t.Errorf("QuotedSize(%q) = %d, want %d", s, got, want)
		}
	}
}

// From 64 bytes on, QuotedSize counts the escapes of everyday text with a
// pass each, plus 1/64 of the length as slack; for text whose only
// escaped bytes are those it counts, it is never short.
func TestQuotedSizeLong(t *testing.T) {
	t.Parallel()
	tests := []struct {
		s    string
		want int
	}{
		{strings.Repeat("a", 64), 64 + 2 + 1},
		{strings.Repeat("\x01", 64), 64 + 2 + 1}, // rare control bytes are left to the slack
		{strings.Repeat("a", 640), 640 + 2 + 10},
		{strings.Repeat("line\n", 20), 100 + 2 + 1 + 20},
		{strings.Repeat("\t\r\"\\", 32), 128 + 2 + 2 + 128},
		{strings.Repeat("\x1b[1mbold\x1b[0m ", 8), 104 + 2 + 1 + 5*16},
	}
	for _, tt := range tests {
		got := pijson.QuotedSize(tt.s)
		if got != tt.want {
			t.Errorf("QuotedSize(%d bytes %q…) = %d, want %d", len(tt.s), tt.s[:8], got, tt.want)
		}
		if exact := len(pijson.AppendString(nil, tt.s)); got < exact && !strings.Contains(tt.s, "\x01") {
			t.Errorf("QuotedSize(%q…) = %d, shorter than the %d bytes written", tt.s[:8], got, exact)
		}
	}
}

func TestNumSizeBoundsNumbers(t *testing.T) {
	t.Parallel()
	for _, f := range []float64{-math.MaxFloat64, -math.SmallestNonzeroFloat64, -1.2345678901234567e-100, -0.1234567890123456789} {
		b, err := pijson.AppendFloat(nil, f)
		if err != nil || len(b) > pijson.NumSize {
			t.Errorf("AppendFloat(%v) = %s (%d bytes), %v; NumSize is %d", f, b, len(b), err, pijson.NumSize)
		}
	}
	if n := len(strconv.FormatInt(math.MinInt64, 10)); n > pijson.NumSize {
		t.Errorf("MinInt64 takes %d bytes, NumSize is %d", n, pijson.NumSize)
	}
}

func TestAppendRaw(t *testing.T) {
	t.Parallel()
	for _, raw := range []string{
		`{"a": 1, "b": [1, 2]}`,
		" \t\r\n[ 1 ,\n2 ]\n",
		`"a b"`,
		`{"k": "a \" b \\ c", "t":"\t x", "u": "\\"}`,
		`{"nested": {"s": "  spaced  ", "e": ["\"", " "]}}`,
		`  true`,
		`{}`,
	} {
		want, err := json.Marshal(json.RawMessage(raw))
		if err != nil {
			t.Fatal(err)
		}
		got, err := pijson.AppendRaw([]byte("x"), json.RawMessage(raw))
		if err != nil || string(got) != "x"+string(want) {
			t.Errorf("AppendRaw(%q) = %q, %v; want %q", raw, got, err, "x"+string(want))
		}
	}
	if got, err := pijson.AppendRaw([]byte("x"), nil); err != nil || string(got) != "xnull" {
		t.Errorf("AppendRaw(nil) = %q, %v; want xnull", got, err)
	}
	for _, bad := range []string{`{"a":`, `[1 2]`, ``} {
		_, want := json.Marshal(json.RawMessage(bad))
		got, err := pijson.AppendRaw([]byte("x"), json.RawMessage(bad))
		if err == nil || want == nil || err.Error() != want.Error() || string(got) != "x" {
			t.Errorf("AppendRaw(%q) = %q, %v; want x and %v", bad, got, err, want)
		}
	}
}

func TestAppendFloat(t *testing.T) {
	t.Parallel()
	for _, f := range []float64{
		0, math.Copysign(0, -1), 1, -1, 0.5, 3.14159, 100, 123456789, 1e20, 1e21, -1e21, 1.5e21, 1e100,
		1e-6, -1e-6, 1e-7, 1.5e-7, 9.99e-7, 1e-9, 1.5e-10, 1e-100, 1e-300,
		math.MaxFloat64, math.SmallestNonzeroFloat64, 0.1 + 0.2,
	} {
		want, err := json.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		got, err := pijson.AppendFloat([]byte("x"), f)
		if err != nil || string(got) != "x"+string(want) {
			t.Errorf("AppendFloat(%v) = %q, %v; want x%s", f, got, err, want)
		}
	}
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		_, want := json.Marshal(f)
		got, err := pijson.AppendFloat([]byte("x"), f)
		if err == nil || err.Error() != want.Error() || string(got) != "x" {
			t.Errorf("AppendFloat(%v) = %q, %v; want x and %v", f, got, err, want)
		}
	}
}

func TestAppendMarshal(t *testing.T) {
	t.Parallel()
	got, err := pijson.AppendMarshal([]byte("x"), map[string]any{"html": "<a&b>", "n": 1})
	if err != nil || string(got) != `x{"html":"<a&b>","n":1}` {
		t.Errorf("AppendMarshal = %q, %v", got, err)
	}
	got, err = pijson.AppendMarshal([]byte("x"), map[string]any{"c": make(chan int)})
	if err == nil || string(got) != "x" {
		t.Errorf("AppendMarshal(chan) = %q, %v; want x and an error", got, err)
	}
}

// AppendArray writes what encoding/json writes for a slice, and an
// element's error is the array's.
func TestAppendArray(t *testing.T) {
	t.Parallel()
	num := func(x *int, b []byte) ([]byte, error) {
		if *x < 0 {
			return b, errors.New("negative")
		}
		return strconv.AppendInt(b, int64(*x), 10), nil
	}
	for _, xs := range [][]int{nil, {}, {1}, {1, 2, 3}} {
		got, err := pijson.AppendArray([]byte("x"), xs, num)
		want, _ := json.Marshal(append([]int{}, xs...))
		if err != nil || string(got) != "x"+string(want) {
			t.Errorf("%v: %s, %v; want x%s", xs, got, err, want)
		}
	}
	if b, err := pijson.AppendArray(nil, []int{1, -1, 2}, num); err == nil || b != nil {
		t.Errorf("an element's error: %s, %v", b, err)
	}
}

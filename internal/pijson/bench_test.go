package pijson

import (
	"strings"
	"testing"
)

// benchObject is a text block's shape: short keys and values, and a long
// text of plain prose or of tool output with escapes.
func benchObject(text string) []byte {
	return []byte(`{"type":"text","id":"0000002a","parentId":"00000029","timestamp":"2026-01-01T00:00:00.000Z","text":"` + text + `"}`)
}

var (
	benchPlain   = benchObject(strings.Repeat("lorem ipsum dolor sit amet ", 250))
	benchEscaped = benchObject(strings.Repeat(`\tfmt.Println(\"result\", x) // a line of \"tool\" output\n`, 110))
)

func benchFields(b *testing.B, line []byte) {
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for b.Loop() {
		fs, _, err := Fields(line)
		if err != nil {
			b.Fatal(err)
		}
		var s string
		for _, f := range fs {
			if err := String(f.Key, f.Value, &s); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkFieldsPlain(b *testing.B)   { benchFields(b, benchPlain) }
func BenchmarkFieldsEscaped(b *testing.B) { benchFields(b, benchEscaped) }

func benchAppendString(b *testing.B, s string) {
	b.SetBytes(int64(len(s)))
	buf := make([]byte, 0, 2*len(s))
	for b.Loop() {
		buf = AppendString(buf[:0], s)
	}
}

func BenchmarkAppendStringPlain(b *testing.B) {
	benchAppendString(b, strings.Repeat("lorem ipsum dolor sit amet ", 250))
}

func BenchmarkAppendStringEscaped(b *testing.B) {
	benchAppendString(b, strings.Repeat("\tfmt.Println(\"result\", x) // a line of \"tool\" output\n", 110))
}

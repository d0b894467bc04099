package tools

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Output limits shared by the tools, as pi's.
const (
	// DefaultMaxLines is the most lines a tool result shows.
	DefaultMaxLines = 2000
	// DefaultMaxBytes is the most bytes a tool result shows.
	DefaultMaxBytes = 50 * 1024
	// GrepMaxLineLength is the most characters of one grep line shown.
	GrepMaxLineLength = 500
)

// Truncation describes how a text was cut to the limits; its JSON shape is
// pi's TruncationResult.
type Truncation struct {
	Content               string `json:"content"`
	Truncated             bool   `json:"truncated"`
	TruncatedBy           string `json:"truncatedBy,omitempty"` // "lines" or "bytes"
	TotalLines            int    `json:"totalLines"`
	TotalBytes            int    `json:"totalBytes"`
	OutputLines           int    `json:"outputLines"`
	OutputBytes           int    `json:"outputBytes"`
	LastLinePartial       bool   `json:"lastLinePartial"`
	FirstLineExceedsLimit bool   `json:"firstLineExceedsLimit"`
	MaxLines              int    `json:"maxLines"`
	MaxBytes              int    `json:"maxBytes"`
}

// countLines splits s into lines as pi 1.6 counts them: a final newline
// ends the last line rather than starting another, and empty text has no
// lines.
func countLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// formatSize renders a byte count as pi does: 512B, 1.5KB, 2.0MB.
func formatSize(n int) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%dB", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.1fKB", float64(n)/1024)
	default:
		return fmt.Sprintf("%.1fMB", float64(n)/(1024*1024))
	}
}

// truncateHead keeps the first whole lines of s within maxLines and
// maxBytes, lines counted by countLines. A first line longer than
// maxBytes is kept cut to its first maxBytes (on a rune boundary), with
// FirstLineExceedsLimit set: a result is never empty because its one line
// is long.
func truncateHead(s string, maxLines, maxBytes int) Truncation {
	lines := countLines(s)
	t := Truncation{TotalLines: len(lines), TotalBytes: len(s), MaxLines: maxLines, MaxBytes: maxBytes}
	if len(lines) <= maxLines && len(s) <= maxBytes {
		t.Content, t.OutputLines, t.OutputBytes = s, len(lines), len(s)
		return t
	}
	t.Truncated = true
	t.TruncatedBy = "bytes"
	if len(lines[0]) > maxBytes {
		t.FirstLineExceedsLimit = true
		t.Content = headBytes(lines[0], maxBytes)
		t.OutputLines, t.OutputBytes = 1, len(t.Content)
		return t
	}
	n, size := 0, 0
	for n < len(lines) && n < maxLines {
		add := len(lines[n])
		if n > 0 {
			add++
		}
		if size+add > maxBytes {
			break
		}
		size += add
		n++
	}
	if n >= maxLines {
		t.TruncatedBy = "lines"
	}
	t.Content = strings.Join(lines[:n], "\n")
	t.OutputLines, t.OutputBytes = n, len(t.Content)
	return t
}

// truncateTail keeps the last whole lines of s within maxLines and
// maxBytes, lines counted by countLines. When the lines that fit hold
// nothing but line ends (the last line alone is too long, or a too long
// line is followed by empty ones), the end of that long line is kept too,
// within maxBytes, and LastLinePartial is set: a result is never empty
// because its one line is long.
// (LastLinePartial then means the first line shown is a part.)
func truncateTail(s string, maxLines, maxBytes int) Truncation {
	lines := countLines(s)
	t := Truncation{TotalLines: len(lines), TotalBytes: len(s), MaxLines: maxLines, MaxBytes: maxBytes}
	if len(lines) <= maxLines && len(s) <= maxBytes {
		t.Content, t.OutputLines, t.OutputBytes = s, len(lines), len(s)
		return t
	}
	t.Truncated = true
	t.TruncatedBy = "lines"
	first, size := len(lines), 0
	for first > 0 && len(lines)-first < maxLines {
		add := len(lines[first-1])
		if first < len(lines) {
			add++
		}
		if size+add > maxBytes {
			t.TruncatedBy = "bytes"
			break
		}
		size += add
		first--
	}
	kept := strings.Join(lines[first:], "\n")
	if t.TruncatedBy == "bytes" && first > 0 && strings.Trim(kept, "\n") == "" {
		cut := lines[first-1]
		if first < len(lines) {
			cut += "\n"
		}
		t.Content = tailBytes(cut+kept, maxBytes)
		t.LastLinePartial = len(t.Content) > len(kept)+1 || first == len(lines) && t.Content != ""
		t.OutputLines, t.OutputBytes = strings.Count(t.Content, "\n")+1, len(t.Content)
		return t
	}
	t.Content = kept
	t.OutputLines, t.OutputBytes = len(lines)-first, len(t.Content)
	return t
}

// tailBytes returns at most max bytes from the end of s, starting on a
// rune boundary.
func tailBytes(s string, max int) string {
	if len(s) <= max {
		return s
	}
	start := len(s) - max
	for start < len(s) && !utf8.RuneStart(s[start]) {
		start++
	}
	return s[start:]
}

// headBytes returns at most max bytes from the start of s, ending on a
// rune boundary.
func headBytes(s string, max int) string {
	if len(s) <= max {
		return s
	}
	end := max
	for end > 0 && !utf8.RuneStart(s[end]) {
		end--
	}
	return s[:end]
}

// truncateLine cuts one line to maxChars characters, as pi's grep does.
func truncateLine(line string, maxChars int) (string, bool) {
	n := 0
	for i := range line {
		if n == maxChars {
			return line[:i] + "... [truncated]", true
		}
		n++
	}
	return line, false
}

// TruncateHead keeps the first whole lines of s within maxLines and
// maxBytes, as read does: for tools outside this package (an MCP
// server's) whose output is bounded like the built-in tools'.
func TruncateHead(s string, maxLines, maxBytes int) Truncation {
	return truncateHead(s, maxLines, maxBytes)
}

// FormatSize renders a byte count as the tools' notices do: 512B, 1.5KB.
func FormatSize(n int) string { return formatSize(n) }

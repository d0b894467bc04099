package nearest

import "testing"

// A slip of the keyboard is one edit in four letters (at least one); a
// name cut short names the one it begins from four letters on.
func TestName(t *testing.T) {
	t.Parallel()
	known := []string{"read", "bash", "edit", "write", "grep", "find", "ls", "mcp__files__read_file"}
	for _, c := range []struct{ name, want string }{
		{"reed", "read"}, {"Bash", "bash"}, {"wirte", ""}, {"writ", "write"}, {"gerp", ""},
		{"mcp__files__read_fil", "mcp__files__read_file"}, {"mcp__files", "mcp__files__read_file"},
		{"zzz", ""}, {"l", "ls"},
	} {
		if got := Name(c.name, known); got != c.want {
			t.Errorf("Name(%q) = %q, want %q", c.name, got, c.want)
		}
	}
}

func TestEditDistance(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		a, b string
		d    int
	}{
		{"kitten", "sitting", 3}, {"", "abc", 3}, {"abc", "", 3}, {"ab", "abc", 1}, {"abc", "ab", 1},
		{"abc", "axc", 1}, {"abc", "abc", 0}, {"abcdef", "bcdefa", 2},
	} {
		if d := editDistance(c.a, c.b); d != c.d {
			t.Errorf("editDistance(%q, %q) = %d, want %d", c.a, c.b, d, c.d)
		}
	}
}

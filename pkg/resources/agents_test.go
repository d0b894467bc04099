package resources

import (
	"slices"
	"strings"
	"testing"
)

// An agent file's frontmatter: name defaults to the file's, description is
// required, tools a list or a comma-separated string, maxSteps a positive
// whole number; the body is the prompt.
func TestParseAgent(t *testing.T) {
	t.Parallel()
	a, err := parseAgent("---\ndescription: Reviews.\ntools: [read, grep]\nmodel: anthropic/claude-haiku-4-5\nthinking: low\nmaxSteps: 5\n---\nYou review.\n", "reviewer")
	if err != nil {
		t.Fatal(err)
	}
	if a.Name != "reviewer" || a.Description != "Reviews." || !slices.Equal(a.Tools, []string{"read", "grep"}) ||
		a.Model != "anthropic/claude-haiku-4-5" || a.Thinking != "low" || a.MaxSteps != 5 || a.Prompt != "You review." {
		t.Fatalf("%+v", a)
	}
	if a, err = parseAgent("---\nname: x\ndescription: d\ntools: read, bash\n---\nbody", "file"); err != nil || a.Name != "x" || !slices.Equal(a.Tools, []string{"read", "bash"}) {
		t.Fatalf("%+v %v", a, err)
	}
	for text, want := range map[string]string{
		"just a body": "no description",
		"---\ndescription: d\nmaxSteps: 0\n---\n":     "maxSteps",
		"---\ndescription: d\ntools: 3\n---\n":        "tools",
		"---\nname: Bad Name\ndescription: d\n---\n":  "lowercase",
		"---\ndescription: d\nthinking: ultra\n---\n": "use one of off, minimal",
	} {
		if _, err := parseAgent(text, "f"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want an error naming %s", text, err, want)
		}
	}
}

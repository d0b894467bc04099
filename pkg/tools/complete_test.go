package tools

import (
	"slices"
	"testing"
)

// The name after the last comma completes, offering only tools the list
// does not hold yet; only --tools takes +name and -name.
func TestCompleteList(t *testing.T) {
	cases := []struct {
		typed string
		signs bool
		want  []string
	}{
		{"", false, []string{"read", "write", "edit", "bash", "grep", "find", "ls", "task"}},
		{"b", true, []string{"bash"}},
		{"read,b", false, []string{"read,bash"}},
		{"read,", false, []string{"read,write", "read,edit", "read,bash", "read,grep", "read,find", "read,ls", "read,task"}},
		{"read,grep,f", true, []string{"read,grep,find"}},
		{"read,grep,g", false, nil}, // grep is in the list already
		{"+g", true, []string{"+grep"}},
		{"+grep,-w", true, []string{"+grep,-write"}},
		{"+t", true, []string{"+task"}},
		{"-read,-r", true, nil}, // -read is in the list already
		{"+g", false, nil},
	}
	for _, c := range cases {
		if got := CompleteList(c.typed, c.signs); !slices.Equal(got, c.want) {
			t.Errorf("CompleteList(%q, %v) = %q, want %q", c.typed, c.signs, got, c.want)
		}
	}
	if AllNames[0] != "read" || len(AllNames) != 7 {
		t.Errorf("CompleteList changed AllNames: %q", AllNames)
	}
}

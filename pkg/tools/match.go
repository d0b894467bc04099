package tools

import (
	"regexp"
	"strings"
)

// MatchName reports whether a tool name or pattern (* matches any
// characters, nothing else is special) matches a tool's name: how tool
// selections (--tools, the tools setting, an agent file's tools) name
// tools.
func MatchName(pattern, name string) bool {
	if !strings.Contains(pattern, "*") {
		return pattern == name
	}
	parts := strings.Split(pattern, "*")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return regexp.MustCompile("^" + strings.Join(parts, ".*") + "$").MatchString(name)
}

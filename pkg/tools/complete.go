package tools

import (
	"slices"
	"strings"
)

// CompleteList completes the tool name after the last comma of a typed
// list of tools (--tools, --exclude-tools): every built-in tool and task
// whose name starts with what follows the comma, that the list does not
// hold yet, each as the whole list completed. With signs a +name or
// -name entry completes its name (pi's --tools).
func CompleteList(typed string, signs bool) []string {
	head, part := "", typed
	if i := strings.LastIndexByte(typed, ','); i >= 0 {
		head, part = typed[:i+1], typed[i+1:]
	}
	have := strings.Split(head, ",")
	sign := ""
	if signs && (strings.HasPrefix(part, "+") || strings.HasPrefix(part, "-")) {
		sign, part = part[:1], part[1:]
	}
	var out []string
	for _, name := range append(slices.Clone(AllNames), TaskName) {
		if strings.HasPrefix(name, part) && !slices.Contains(have, sign+name) {
			out = append(out, head+sign+name)
		}
	}
	return out
}

package resources

import (
	"fmt"
	"io"
)

// Describe writes gopi context's first sections: the system prompt, the
// settings files read (settingsFiles, in merge order), every resource
// found, and every one skipped with why, and the warnings.
func (c *Catalog) Describe(w io.Writer, settingsFiles []string) {
	fmt.Fprintf(w, "# System prompt\n\n%s\n\n# Settings files (merged in this order: a later one overrides an earlier one key by key)\n", c.SystemPrompt())
	for _, f := range settingsFiles {
		fmt.Fprintf(w, "- %s\n", f)
	}
	fmt.Fprintln(w, "\n# Resources found")
	for _, it := range c.Found {
		name := ""
		if it.Name != "" {
			name = " " + it.Name
		}
		fmt.Fprintf(w, "- %s%s (%s) %s\n", it.Kind, name, it.Source, it.Path)
	}
	fmt.Fprintln(w, "\n# Skipped")
	for _, sk := range c.Skipped {
		fmt.Fprintf(w, "- %s\n", sk)
	}
	for _, wa := range c.Warnings {
		fmt.Fprintf(w, "- warning: %s\n", wa)
	}
}

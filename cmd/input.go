package cmd

import (
	"gopi/pkg/assemble"
	"gopi/pkg/input"
	"gopi/pkg/resources"
	"gopi/pkg/settings"
	"gopi/pkg/tools"
)

// defaultMaxPromptBytes is --max-prompt-bytes' default.
const defaultMaxPromptBytes = settings.DefaultMaxPromptBytes

// promptInput is the reader of this invocation's prompt: the working
// folder, bound and its origin of set, the secrets scrubbed from @file
// text, the templates and skills (cat, nil for none). Stdin is read only
// when withStdin is set and stdin is not a terminal; the notice goes to
// a terminal's stderr only.
func promptInput(sys *System, set assemble.Settings, cat *resources.Catalog, secrets *tools.Secrets, withStdin bool) *input.Reader {
	r := &input.Reader{Cwd: set.Cwd, Home: sys.getenv("HOME"), Limit: set.MaxPromptBytes, LimitOrigin: set.Origin("maxPromptBytes"),
		Secrets: secrets, Now: sys.Now}
	if cat != nil {
		r.Expander = cat
	}
	if withStdin && !sys.StdinTTY && sys.Stdin != nil {
		r.Stdin = sys.Stdin
		if sys.StderrTTY {
			r.Notice = sys.Stderr
		}
	}
	return r
}

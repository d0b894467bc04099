package cmd

import (
	"slices"
	"strings"

	"gopi/pkg/ai"
	"gopi/pkg/ai/catalog"
)

// cutThinking takes a thinking level off the end of a model id, as pi's
// "sonnet:high" does. The id is cut at its last colon when what follows is
// a level. An id the catalog or settings know whole ("qwen3:8b" declared,
// or any tag after a model gopi does not know, as local servers name
// them) is kept whole; a known model followed by a word that is no level
// ("claude-sonnet-4-5:hgih") is a usage error naming the word.
func cutThinking(c *settings, id string, customs map[string]customProvider) (string, ai.ThinkingLevel, error) {
	i := strings.LastIndexByte(id, ':')
	if i < 0 || knownID(id, customs) {
		return id, "", nil
	}
	base, suffix := id[:i], id[i+1:]
	if slices.Contains(ai.ThinkingLevels, ai.ThinkingLevel(suffix)) {
		return base, ai.ThinkingLevel(suffix), nil
	}
	if knownID(base, customs) {
		return "", "", usageErr("%s %q: unknown thinking level %q after the colon: use off, minimal, low, medium, high or xhigh",
			c.origin("model"), id, suffix)
	}
	return id, "", nil
}

// knownID says whether a built-in catalog or a declared provider lists id.
func knownID(id string, customs map[string]customProvider) bool {
	for _, p := range []string{"anthropic", "openai"} {
		if _, ok := catalog.Resolve(p, id); ok {
			return true
		}
	}
	for _, cp := range customs {
		if slices.ContainsFunc(cp.Models, func(m ai.Info) bool { return m.ID == id }) {
			return true
		}
	}
	return false
}

// rank says how close to the run a setting was given: 3 a flag, 2 the
// environment, 1 a settings file, 0 unset.
func (c *settings) rank(key string) int {
	if f := c.flags.Lookup(settingsKeys[key]); f != nil && f.Changed {
		return 3
	}
	if _, ok := c.env[key]; ok {
		return 2
	}
	if c.v.IsSet(key) {
		return 1
	}
	return 0
}

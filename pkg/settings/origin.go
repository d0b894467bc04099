package settings

import (
	"fmt"
	"gopi/internal/said"
	"strings"
)

// Origin names where a setting's value came from, for messages: the flag
// given ("--max-steps"), the environment variable ("GOPI_MAX_STEPS"),
// the settings key and its file(s) (`"maxSteps" in FILE`, files joined
// by " or " for an object merged across them), or, for the default, the
// flag ("--max-steps") or the key (`setting "retry"`) that has none.
func (s *Settings) Origin(key string) string {
	flag := flagOf(key)
	hasFlag := flag != ""
	if hasFlag && s.given(flag) != nil {
		return "--" + flag
	}
	if name, ok := s.env[key]; ok {
		return name
	}
	if files := s.setBy[strings.ToLower(key)]; len(files) > 0 {
		return fmt.Sprintf("%q in %s", key, strings.Join(files, " or "))
	}
	if s.v.InConfig(key) {
		return fmt.Sprintf("%q in %s", key, strings.Join(s.files, " or "))
	}
	if !hasFlag {
		return fmt.Sprintf("setting %q", key)
	}
	return "--" + flag
}

// Source is how close to the run a setting was given.
type Source int

const (
	FromDefault Source = iota // a default, or nothing
	FromFile                  // a settings file
	FromEnv                   // a GOPI_* variable
	FromFlag                  // a flag the user gave
)

// Rank says how close to the run a setting was given: a flag, the
// environment, a settings file, or unset.
func (s *Settings) Rank(key string) Source {
	if flag := flagOf(key); flag != "" && s.given(flag) != nil {
		return FromFlag
	}
	if _, ok := s.env[key]; ok {
		return FromEnv
	}
	if s.v.IsSet(key) {
		return FromFile
	}
	return FromDefault
}

// Said remembers what was said, so that it is said once: the settings
// files whose unknown keys were named in one invocation (a chat or rpc
// reads its settings again for each new session or model list).
type Said = said.Set

package settings

import (
	"errors"
	"strings"
	"testing"

	"gopi/pkg/ai"
	"gopi/pkg/assemble"
)

// A settings value of the wrong JSON type is a usage error naming the
// file, the key and the value, raised when the file is read (before a
// model is chosen, a request sent or a session written: cmd's
// TestSettingsOfTheWrongTypeAreUsageErrors). It used to be read as "" or
// no list: a provider given as a list fell back to the one the
// environment's key inferred; tools given as a number ran with none.
func TestWrongTypesAreUsageErrors(t *testing.T) {
	cases := []struct {
		name    string
		project string   // .gopi/settings.json
		global  string   // $GOPI_HOME/settings.json
		want    []string // in the message besides the file's path
		inHome  bool     // the global file is the one named
	}{
		{"provider list", `{"provider":["faux"]}`, "",
			[]string{`"provider" in `, `is a list (["faux"]): give a provider name as a string`}, false},
		{"provider object", `{"provider":{"a":1}}`, "", []string{`"provider"`, `is an object ({"a":1})`}, false},
		{"provider boolean", `{"provider":true}`, "", []string{`"provider"`, `is a boolean (true)`}, false},
		{"provider number", `{"provider":5}`, "", []string{`"provider"`, `is a number (5)`}, false},
		{"provider in the global file", `{"thinking":"low"}`, `{"provider":["faux"]}`,
			[]string{`"provider" in `, `is a list (["faux"])`}, true},
		{"key in other case", `{"Provider":["faux"]}`, "", []string{`"Provider" in `, `is a list (["faux"])`}, false},

		{"tools number", `{"tools":5}`, "",
			[]string{`"tools" in `, `is a number (5): give a list of tool names or a comma-separated string`}, false},
		{"tools object", `{"tools":{"a":1}}`, "", []string{`"tools"`, `is an object ({"a":1}): give a list of tool names`}, false},
		{"tools boolean", `{"tools":true}`, "", []string{`"tools"`, `is a boolean (true)`}, false},
		{"tools list of numbers", `{"tools":["read",5]}`, "", []string{`"tools"`, `is a list (["read",5])`}, false},
		{"tools list of lists", `{"tools":[["read"]]}`, "", []string{`"tools"`, `is a list ([["read"]])`}, false},

		{"systemPrompt object", `{"systemPrompt":{"a":1}}`, "",
			[]string{`"systemPrompt" in `, `is an object ({"a":1}): give the prompt text`}, false},
		{"systemPrompt list", `{"systemPrompt":["be brief"]}`, "", []string{`"systemPrompt"`, `is a list (["be brief"])`}, false},
		{"systemPrompt boolean", `{"systemPrompt":false}`, "", []string{`"systemPrompt"`, `is a boolean (false)`}, false},

		{"model object", `{"model":{"a":1}}`, "", []string{`"model" in `, `is an object ({"a":1}): give a model id as a string`}, false},
		{"model list", `{"model":["demo"]}`, "", []string{`"model"`, `is a list (["demo"])`}, false},
		{"model boolean", `{"model":true}`, "", []string{`"model"`, `is a boolean (true)`}, false},

		{"maxSteps list", `{"maxSteps":[1]}`, "", []string{`"maxSteps" in `, `is a list ([1]): give a whole number above 0`}, false},
		{"maxSteps object", `{"maxSteps":{"a":1}}`, "", []string{`"maxSteps"`, `is an object ({"a":1}): give a whole number above 0`}, false},
		{"maxSteps boolean", `{"maxSteps":true}`, "", []string{`"maxSteps"`, `is a boolean (true)`}, false},
		{"maxTokens list", `{"maxTokens":[1]}`, "", []string{`"maxTokens"`, `is a list ([1]): give a whole number, 0 for the model's limit`}, false},

		{"thinking list", `{"thinking":["low"]}`, "", []string{`"thinking"`, `is a list (["low"]): give a string: "off"`}, false},
		{"timeout object", `{"timeout":{"s":1}}`, "", []string{`"timeout"`, `is an object ({"s":1}): give a duration`}, false},
		{"fsync boolean", `{"fsync":false}`, "", []string{`"fsync"`, `is a boolean (false): give a string: "always" or "never"`}, false},
		{"baseUrl list", `{"baseUrl":["http://x"]}`, "", []string{`"baseUrl"`, `is a list (["http://x"])`}, false},
		{"providers number", `{"providers":5}`, "", []string{`"providers"`, `is a number (5): give an object of named providers`}, false},
		{"retry list", `{"retry":[1]}`, "", []string{`"retry"`, `is a list ([1]): give an object`}, false},
		{"quirks string", `{"quirks":"x"}`, "", []string{`"quirks"`, `is a string ("x"): give an object`}, false},

		{"long value shortened", `{"systemPrompt":["` + strings.Repeat("x", 200) + `"]}`, "",
			[]string{`is a list (["` + strings.Repeat("x", 35) + `…)`}, false},
		{"the first bad key in order", `{"tools":5,"model":[1]}`, "", []string{`"model"`}, false},

		// Values of the right type and the wrong value were, and are,
		// refused by the checks after loading; the file named is the one
		// the value came from.
		{"fractional steps", `{"maxSteps":1.5}`, "", []string{`"maxSteps" in `, `"1.5": give a whole number`}, false},
		{"project string over global number", `{"maxSteps":"x"}`, `{"maxSteps":2}`, []string{`"maxSteps" in `, `"x": give a whole number`}, false},
		{"unknown tool in a list", `{"tools":["read","teleport"]}`, "", []string{`"tools" in `, `unknown tool "teleport"`}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := newPlace(t, c.global, c.project)
			named := p.projectFile
			if c.inHome {
				named = p.homeFile
			}
			s, err := p.try(runFlags(), false)
			if err == nil {
				_, err = s.readRun(runRequest{Cwd: p.cwd})
			}
			var ae *assemble.Error
			if !errors.As(err, &ae) || ae.Class != ai.ClassUsage {
				t.Fatalf("error %v, want a usage error", err)
			}
			for _, w := range append([]string{named}, c.want...) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q\nlacks %q", err, w)
				}
			}
			if !c.inHome && c.global != "" && strings.Contains(err.Error(), p.homeFile) {
				t.Errorf("%q names the global file too", err)
			}
		})
	}
}

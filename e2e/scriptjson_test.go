package e2e

import (
	"encoding/json"
	"reflect"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdJSONSame is
//
//	jsonsame [-anthropic] FILE1 PATH1 FILE2 PATH2
//
// the values at PATH1 of FILE1's last line and PATH2 of FILE2's last line
// are the same JSON value (key order and number spelling aside). With
// -anthropic, two spellings of one Anthropic request are the same: a
// string content and one text block, "is_error": false and no is_error,
// and cache_control marks are not compared.
func cmdJSONSame(ts *testscript.TestScript, neg bool, args []string) {
	anthropic := len(args) > 0 && args[0] == "-anthropic"
	if anthropic {
		args = args[1:]
	}
	if len(args) != 4 {
		ts.Fatalf("usage: jsonsame [-anthropic] FILE1 PATH1 FILE2 PATH2")
	}
	var vals [2]any
	for i := range vals {
		s, err := jsonField(pickLine(ts, ts.ReadFile(args[2*i]), 0), args[2*i+1])
		if err != nil {
			ts.Fatalf("jsonsame %s %s: %v", args[2*i], args[2*i+1], err)
		}
		if err := json.Unmarshal([]byte(s), &vals[i]); err != nil {
			vals[i] = s // a string value, unquoted by jsonField
		}
		if anthropic {
			vals[i] = anthropicMeaning(vals[i])
		}
	}
	same := reflect.DeepEqual(vals[0], vals[1])
	if same == neg {
		a, _ := json.MarshalIndent(vals[0], "", " ")
		b, _ := json.MarshalIndent(vals[1], "", " ")
		ts.Fatalf("jsonsame: same=%v\n%s:\n%s\n%s:\n%s", same, args[0], a, args[2], b)
	}
}

// anthropicMeaning rewrites an Anthropic request value to one spelling.
func anthropicMeaning(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, x := range t {
			switch {
			case k == "cache_control":
			case k == "is_error" && x == false:
			case k == "content":
				if s, ok := x.(string); ok {
					x = []any{map[string]any{"type": "text", "text": s}}
				}
				out[k] = anthropicMeaning(x)
			default:
				out[k] = anthropicMeaning(x)
			}
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = anthropicMeaning(x)
		}
		return out
	}
	return v
}

package tools

import (
	"encoding/json"
	"fmt"
	"math"
)

// decodeArgs unmarshals validated arguments into dst.
func decodeArgs(call Call, dst any) error {
	if err := json.Unmarshal(call.Args, dst); err != nil {
		return fmt.Errorf("decode %s arguments: %w", call.Name, err)
	}
	return nil
}

// intArg turns an optional JSON number into an int, rounding toward zero
// and clamping to the int range.
func intArg(f *float64, def int) int {
	if f == nil || math.IsNaN(*f) {
		return def
	}
	switch {
	case *f >= math.MaxInt32:
		return math.MaxInt32
	case *f <= math.MinInt32:
		return math.MinInt32
	}
	return int(*f)
}

// errAborted is the text of a call cancelled by its context, as pi's.
const errAborted = "Operation aborted"

package mode

import (
	"context"
	"encoding/json"

	"gopi/pkg/ai"
	"gopi/pkg/loop"
	"gopi/pkg/runtime"
)

// structuredAnswer is how the final answer fared against the schema.
type structuredAnswer struct {
	value json.RawMessage // the valid answer
	err   error           // why the last answer was refused
}

// checkAnswer checks a finished run's answer against opts.Schema, asking
// the model again in the same session while retries are left. The runs
// become one result: the messages of all of them, their steps and usage
// added up.
func checkAnswer(ctx context.Context, rt *runtime.Runtime, res runtime.Result, err error, opts Options, settled func(loop.Reason)) (runtime.Result, structuredAnswer, error) {
	for attempt := 0; ; attempt++ {
		if err != nil || res.Reason != loop.ReasonStop {
			return res, structuredAnswer{}, err // only a finished answer is checked
		}
		final, _ := res.Final()
		v, cerr := opts.Schema.Check(final.Text())
		if cerr == nil {
			return res, structuredAnswer{value: v}, nil
		}
		if attempt >= opts.OutputRetries {
			return res, structuredAnswer{err: cerr}, nil
		}
		var next runtime.Result
		next, err = rt.Prompt(ctx, opts.Schema.Correction(cerr, opts.Now().UnixMilli()))
		settled(next.Reason)
		res = chain(res, next)
	}
}

// apply puts the answer into the result object: the value, or the
// schema failure (the last answer stays in text).
func (a structuredAnswer) apply(obj *ResultObject, o *Outcome) {
	switch {
	case a.value != nil:
		obj.Structured = a.value
	case a.err != nil:
		o.Class = ai.ClassSchema
		obj.Reason, obj.IsError = "schema", true
		obj.Error = &ErrorInfo{Class: ai.ClassSchema, Message: a.err.Error()}
	}
}

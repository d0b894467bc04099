package faux

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
)

// Script is the JSON form of a scripted conversation:
//
//	{"responses": [{"text": "…"}, {"toolCalls": [{"name": "bash", "arguments": {"command": "ls"}}]}]}
//
// A bare JSON array of responses is accepted too.
type Script struct {
	Responses []Response `json:"responses"`
}

// Parse reads a script; unknown fields are an error so a typo in a script
// is reported instead of silently ignored.
func Parse(data []byte) ([]Response, error) {
	trimmed := bytes.TrimSpace(data)
	var rs []Response
	if len(trimmed) > 0 && trimmed[0] == '[' {
		if err := decodeStrict(trimmed, &rs); err != nil {
			return nil, err
		}
		return rs, nil
	}
	var s Script
	if err := decodeStrict(trimmed, &s); err != nil {
		return nil, err
	}
	return s.Responses, nil
}

func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("faux script: %w", err)
	}
	return nil
}

// Load reads a script file and returns a model that plays it.
func Load(path string) (*Model, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("faux script %s: %w", path, err)
	}
	rs, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return New(rs...), nil
}

// DemoName is the model id of the built-in demo script.
const DemoName = "demo"

// Demo returns the built-in demo: one tool call that lists the working
// directory, then an answer that uses the listing.
func Demo() *Model {
	return New(
		Response{Text: "Let me look at the working directory.", ToolCalls: []ToolCall{{Name: "bash", Arguments: json.RawMessage(`{"command":"ls -1"}`)}}},
		Response{Text: "The working directory contains:\n{{toolResult}}"},
	)
}

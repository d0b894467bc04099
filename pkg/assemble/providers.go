package assemble

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"gopi/pkg/ai"
)

// Providers are the "providers" setting: the providers declared, by
// name. Read from JSON, a value of the wrong type is named by its path
// in the settings ("providers.local.models[0].contextWindow"), never by
// the Go types it is decoded through; of several, the first provider in
// name order is said.
type Providers map[string]Provider

// UnmarshalJSON reads each declared provider, in name order.
func (ps *Providers) UnmarshalJSON(b []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return typeErrAt(err, "providers", nil)
	}
	names := make([]string, 0, len(raw))
	for name := range raw {
		names = append(names, name)
	}
	slices.Sort(names)
	out := make(Providers, len(raw))
	for _, name := range names {
		var p Provider
		if err := json.Unmarshal(raw[name], &p); err != nil {
			return typeErrAt(err, "providers."+name, nil)
		}
		out[name] = p
	}
	*ps = out
	return nil
}

// UnmarshalJSON reads a declared provider, its models in gopi's shape or
// in pi's models.json shape: "cost" (dollars per million tokens, as
// gopi's "prices"), "maxTokens" (the output limit, gopi's
// "maxOutputTokens") and "input" (["text", "image"] for gopi's
// "images": true); gopi's own field wins when both are given. A value
// of the wrong type is named by its path within the provider ("api",
// "models[0].id").
func (p *Provider) UnmarshalJSON(b []byte) error {
	type plain Provider
	var raw struct {
		plain
		Models []json.RawMessage `json:"models"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return typeErrAt(err, "", []string{"plain"})
	}
	*p = Provider(raw.plain)
	p.Models = nil
	for i, mb := range raw.Models {
		m, err := readModel(mb)
		if err != nil {
			return typeErrAt(err, fmt.Sprintf("models[%d]", i), []string{"Info"})
		}
		if m.Reasoning != nil && !*m.Reasoning {
			p.notReasoning = addID(p.notReasoning, m.ID)
		}
		if m.Images != nil && !*m.Images {
			p.noImages = addID(p.noImages, m.ID)
		}
		p.Models = append(p.Models, m.Info)
	}
	return nil
}

// piModel is a declared model in gopi's shape or pi's.
type piModel struct {
	ai.Info
	Cost      *ai.Prices `json:"cost"`
	MaxTokens int        `json:"maxTokens"`
	Reasoning *bool      `json:"reasoning"`
	Images    *bool      `json:"images"`
	// Input is pi's models.json name of images: the kinds of input the
	// model reads, ["text", "image"] for one that reads images.
	Input []string `json:"input"`
}

func addID(set map[string]bool, id string) map[string]bool {
	if set == nil {
		set = map[string]bool{}
	}
	set[id] = true
	return set
}

// readModel reads one declared model, pi's fields given gopi's names.
func readModel(b []byte) (piModel, error) {
	var m piModel
	if err := json.Unmarshal(b, &m); err != nil {
		return m, err
	}
	if m.Prices == (ai.Prices{}) && m.Cost != nil {
		m.Prices = *m.Cost
	}
	if m.MaxOutputTokens == 0 {
		m.MaxOutputTokens = m.MaxTokens
	}
	if m.Reasoning != nil {
		m.Info.Reasoning = *m.Reasoning
	}
	if m.Images == nil && m.Input != nil {
		images := slices.Contains(m.Input, "image")
		m.Images = &images
	}
	if m.Images != nil {
		m.Info.Images = *m.Images
	}
	return m, nil
}

// typeErrAt gives a JSON type error the path of the value in the user's
// settings: prefix, then the field path without goTypes (the embedded
// types decoded through). Other errors are returned as they are.
func typeErrAt(err error, prefix string, goTypes []string) error {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return err
	}
	parts := []string{}
	if prefix != "" {
		parts = append(parts, prefix)
	}
	for _, f := range strings.Split(te.Field, ".") {
		if f != "" && !slices.Contains(goTypes, f) {
			parts = append(parts, f)
		}
	}
	e := *te
	e.Struct, e.Field = "", strings.Join(parts, ".")
	return &e
}

package assemble

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"gopi/pkg/ai"
	"gopi/pkg/ai/catalog"
)

// ListedModel is one row of gopi models: a catalog model, or one declared
// under "providers" in settings.
type ListedModel struct {
	ai.Info
	Declared bool `json:"declared,omitempty"`
}

// ListModels is the catalog followed by the models providers (declared
// in settings) declare, each with what the catalog knows of its id filled
// in, as a run uses it (DeclaredInfo), providers in name order. One
// declared under a built-in provider's name takes the catalog's row of
// the same id. With only, the models of that provider alone; none is a
// usage error naming the providers.
func ListModels(providers map[string]Provider, only string) ([]ListedModel, error) {
	var out []ListedModel
	for _, m := range catalog.All() {
		out = append(out, ListedModel{Info: m})
	}
	names := make([]string, 0, len(providers))
	for name := range providers {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		p := providers[name]
		for _, m := range p.Models {
			out = addDeclared(out, name, p, m)
		}
	}
	if only == "" {
		return out, nil
	}
	rows := slices.DeleteFunc(out, func(m ListedModel) bool { return m.Provider != only })
	if len(rows) == 0 {
		known := append([]string{"anthropic", "openai"}, names...)
		return nil, Usagef("--provider %q: no models; the providers are %s", only, strings.Join(known, ", "))
	}
	return rows, nil
}

// addDeclared adds a model settings declare, in place of the catalog's
// row of the same provider and id when there is one.
func addDeclared(out []ListedModel, name string, p Provider, m ai.Info) []ListedModel {
	row := ListedModel{Info: DeclaredInfo(name, p, m), Declared: true}
	if i := slices.IndexFunc(out, func(l ListedModel) bool { return !l.Declared && l.Provider == name && l.ID == m.ID }); i >= 0 {
		out[i] = row
		return out
	}
	return append(out, row)
}

// WriteModels prints models as gopi models does: a table with context
// window, output bound, prices per million tokens, reasoning, images
// (whether it is sent them, or a text in their place) and source, or one
// JSON array.
func WriteModels(w io.Writer, models []ListedModel, asJSON bool) error {
	if asJSON {
		return json.NewEncoder(w).Encode(models)
	}
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PROVIDER/MODEL\tCONTEXT\tOUTPUT\t$/M IN\t$/M OUT\tREASONING\tIMAGES\tSOURCE")
	for _, m := range models {
		src := "catalog"
		if m.Declared {
			src = "declared"
		}
		fmt.Fprintf(tw, "%s/%s\t%d\t%d\t%.2f\t%.2f\t%v\t%v\t%s\n", m.Provider, m.ID, m.ContextWindow, m.MaxOutputTokens, m.Prices.Input, m.Prices.Output, m.Reasoning, m.Images, src)
	}
	return tw.Flush()
}

package cmd

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"gopi/pkg/ai"
	"gopi/pkg/ai/catalog"
	"gopi/pkg/assemble"
)

// listedModel is one row of gopi models: a catalog model, or one declared
// under "providers" in settings.
type listedModel struct {
	ai.Info
	Declared bool `json:"declared,omitempty"`
}

func newModelsCmd(sys *System) *cobra.Command {
	var asJSON bool
	var prov string
	c := &cobra.Command{
		Use:   "models",
		Short: "List known models (the catalog's and those declared in settings) with context window and prices",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			models, err := listModels(sys, c, prov)
			if err != nil {
				return err
			}
			if asJSON {
				return json.NewEncoder(sys.Stdout).Encode(models)
			}
			w := tabwriter.NewWriter(sys.Stdout, 2, 4, 2, ' ', 0)
			fmt.Fprintln(w, "PROVIDER/MODEL\tCONTEXT\tOUTPUT\t$/M IN\t$/M OUT\tREASONING\tSOURCE")
			for _, m := range models {
				src := "catalog"
				if m.Declared {
					src = "declared"
				}
				fmt.Fprintf(w, "%s/%s\t%d\t%d\t%.2f\t%.2f\t%v\t%s\n", m.Provider, m.ID, m.ContextWindow, m.MaxOutputTokens, m.Prices.Input, m.Prices.Output, m.Reasoning, src)
			}
			return w.Flush()
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	c.Flags().StringVar(&prov, "provider", "", "only this provider's models")
	return c
}

// listModels is the catalog followed by the models the settings declare,
// each with what the catalog knows of its id filled in, as a run uses it.
func listModels(sys *System, c *cobra.Command, prov string) ([]listedModel, error) {
	cwd, err := resolveCwd(sys, "")
	if err != nil {
		return nil, err
	}
	cfg, err := loadSettings(sys, c.Flags(), cwd, false)
	if err != nil {
		return nil, err
	}
	customs := map[string]assemble.Provider{}
	if err := cfg.Decode("providers", &customs); err != nil {
		return nil, err
	}
	var out []listedModel
	for _, m := range catalog.All() {
		out = append(out, listedModel{Info: m})
	}
	names := make([]string, 0, len(customs))
	for name := range customs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		cp := customs[name]
		for _, m := range cp.Models {
			out = addDeclared(out, name, cp, m)
		}
	}
	if prov == "" {
		return out, nil
	}
	var only []listedModel
	for _, m := range out {
		if m.Provider == prov {
			only = append(only, m)
		}
	}
	if len(only) == 0 {
		known := append([]string{"anthropic", "openai"}, names...)
		return nil, usageErr("--provider %q: no models; the providers are %s", prov, strings.Join(known, ", "))
	}
	return only, nil
}

// addDeclared adds a model settings declare, with what the catalog knows
// of its id filled in, as a run uses it. One declared under a built-in
// provider's name (and no "api" of its own) takes the catalog's row of
// the same id, its own fields winning.
func addDeclared(out []listedModel, name string, cp assemble.Provider, m ai.Info) []listedModel {
	row := listedModel{Info: assemble.DeclaredInfo(name, cp, m), Declared: true}
	if i := slices.IndexFunc(out, func(l listedModel) bool { return !l.Declared && l.Provider == name && l.ID == m.ID }); i >= 0 {
		out[i] = row
		return out
	}
	return append(out, row)
}

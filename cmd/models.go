package cmd

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"gopi/pkg/ai/catalog"
)

func newModelsCmd(sys *System) *cobra.Command {
	var asJSON bool
	var prov string
	c := &cobra.Command{
		Use:   "models",
		Short: "List known models with context window and prices",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			models := catalog.All()
			if prov != "" {
				models = catalog.ForProvider(prov)
				if len(models) == 0 {
					return usageErr("--provider %q: the catalog has anthropic and openai models", prov)
				}
			}
			if asJSON {
				enc := json.NewEncoder(sys.Stdout)
				return enc.Encode(models)
			}
			w := tabwriter.NewWriter(sys.Stdout, 2, 4, 2, ' ', 0)
			fmt.Fprintln(w, "PROVIDER/MODEL\tCONTEXT\tOUTPUT\t$/M IN\t$/M OUT\tREASONING")
			for _, m := range models {
				fmt.Fprintf(w, "%s/%s\t%d\t%d\t%.2f\t%.2f\t%v\n", m.Provider, m.ID, m.ContextWindow, m.MaxOutputTokens, m.Prices.Input, m.Prices.Output, m.Reasoning)
			}
			return w.Flush()
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	c.Flags().StringVar(&prov, "provider", "", "only this provider's models")
	return c
}

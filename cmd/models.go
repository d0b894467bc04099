package cmd

import (
	"github.com/spf13/cobra"

	"gopi/pkg/assemble"
	"gopi/pkg/settings"
)

func newModelsCmd(sys *System) *cobra.Command {
	var asJSON bool
	var prov string
	c := &cobra.Command{
		Use:   "models",
		Short: "List known models (the catalog's and those declared in settings) with context window and prices",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			cwd, err := sys.Cwd("")
			if err != nil {
				return err
			}
			cfg, err := sys.LoadSettings(settings.PFlags(c.Flags()), cwd, false)
			if err != nil {
				return err
			}
			declared := assemble.Providers{}
			if err := cfg.Decode("providers", &declared); err != nil {
				return err
			}
			models, err := assemble.ListModels(declared, prov)
			if err != nil {
				return err
			}
			return assemble.WriteModels(sys.Stdout, models, asJSON)
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	c.Flags().StringVar(&prov, "provider", "", "only this provider's models")
	return c
}

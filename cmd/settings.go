package cmd

import (
	"github.com/spf13/pflag"

	"gopi/pkg/settings"
)

// loadSettings reads the settings files (none when bare), the GOPI_*
// variables and the command's flags (pkg/settings).
func loadSettings(sys *System, flags *pflag.FlagSet, cwd string, bare bool) (*settings.Settings, error) {
	home, err := settings.GopiHome(sys.getenv)
	if err != nil {
		return nil, err
	}
	if sys.settingsSaid == nil { // the first load, before anything runs beside it
		sys.settingsSaid = &settings.Said{}
	}
	return settings.Load(settings.Options{Home: home, Cwd: cwd, Bare: bare, Flags: settings.PFlags(flags),
		Getenv: sys.getenv, Stderr: sys.Stderr, Said: sys.settingsSaid})
}

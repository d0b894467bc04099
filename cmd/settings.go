package cmd

import (
	"path/filepath"

	"github.com/spf13/pflag"
	"github.com/spf13/viper"

	"gopi/pkg/settings"
)

// gopiHome is $GOPI_HOME, or ~/.gopi.
func gopiHome(sys *System) (string, error) {
	if h := sys.getenv("GOPI_HOME"); h != "" {
		return filepath.Abs(h)
	}
	home := sys.getenv("HOME")
	if home == "" {
		return "", usageErr("cannot find the home folder: set HOME or GOPI_HOME")
	}
	return filepath.Join(home, ".gopi"), nil
}

// loadSettings reads the settings files (none when bare), the GOPI_*
// variables and the command's flags (pkg/settings).
func loadSettings(sys *System, flags *pflag.FlagSet, cwd string, bare bool) (*settings.Settings, error) {
	home, err := gopiHome(sys)
	if err != nil {
		return nil, err
	}
	if sys.settingsSaid == nil { // the first load, before anything runs beside it
		sys.settingsSaid = &settings.Said{}
	}
	return settings.Load(settings.Options{Home: home, Cwd: cwd, Bare: bare, Flags: flagValues{flags},
		Getenv: sys.getenv, Stderr: sys.Stderr, Said: sys.settingsSaid})
}

// flagValues hands a command's flags to pkg/settings as viper reads
// them.
type flagValues struct{ fs *pflag.FlagSet }

func (s flagValues) Lookup(name string) viper.FlagValue {
	if f := s.fs.Lookup(name); f != nil {
		return flagValue{f}
	}
	return nil
}

// flagValue is one pflag flag as a viper.FlagValue.
type flagValue struct{ f *pflag.Flag }

func (v flagValue) HasChanged() bool    { return v.f.Changed }
func (v flagValue) Name() string        { return v.f.Name }
func (v flagValue) ValueString() string { return v.f.Value.String() }
func (v flagValue) ValueType() string   { return v.f.Value.Type() }

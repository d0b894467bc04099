package settings

import (
	"path/filepath"

	"github.com/spf13/pflag"
	"github.com/spf13/viper"

	"gopi/pkg/assemble"
)

// PFlags are a command's pflag flags as Load reads them.
func PFlags(fs *pflag.FlagSet) Flags { return pflagValues{fs} }

// pflagValues hands a command's flags to viper.
type pflagValues struct{ fs *pflag.FlagSet }

func (s pflagValues) Lookup(name string) viper.FlagValue {
	if f := s.fs.Lookup(name); f != nil {
		return pflagValue{f}
	}
	return nil
}

// pflagValue is one pflag flag as a viper.FlagValue.
type pflagValue struct{ f *pflag.Flag }

func (v pflagValue) HasChanged() bool    { return v.f.Changed }
func (v pflagValue) Name() string        { return v.f.Name }
func (v pflagValue) ValueString() string { return v.f.Value.String() }
func (v pflagValue) ValueType() string   { return v.f.Value.Type() }

// GopiHome is $GOPI_HOME (made absolute), or ~/.gopi.
func GopiHome(getenv func(string) string) (string, error) {
	if h := getenv("GOPI_HOME"); h != "" {
		return filepath.Abs(h)
	}
	home := getenv("HOME")
	if home == "" {
		return "", assemble.Usagef("cannot find the home folder: set HOME or GOPI_HOME")
	}
	return filepath.Join(home, ".gopi"), nil
}

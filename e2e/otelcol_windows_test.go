//go:build windows

package e2e

import (
	"errors"
	"os"
)

func freeze(*os.Process) error { return errors.New("otelcol freeze: not on Windows") }

func thaw(*os.Process) {}

func terminate(p *os.Process) error { return p.Kill() }

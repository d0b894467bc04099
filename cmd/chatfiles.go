package cmd

import (
	"strings"

	"gopi/pkg/ai"
	"gopi/pkg/tools"
)

// chatFirst reads chat's arguments as pi's interactive mode reads its
// initial message: @file arguments as gopi run reads them (text inlined
// with its path, images attached; a missing or refused file is a usage
// error before the terminal is taken), the other words joined by spaces.
func chatFirst(sys *System, s *runSettings, args []string, secrets *tools.Secrets) (words, files string, images []ai.Content, err error) {
	paths, messages := splitArgs(args)
	if len(paths) > 0 {
		if files, images, err = readFileArgs(sys, s.cwd, paths, s.maxPrompt, s.cfg, secrets); err != nil {
			return "", "", nil, err
		}
	}
	return strings.Join(messages, " "), files, images, nil
}

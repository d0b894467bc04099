package cmd

import "os"

// osEnviron is the process's environment, with HOME set to the user's
// profile folder (USERPROFILE) when it is missing, as Git for Windows
// sets it: gopi's files live under HOME on every system.
func osEnviron() []string {
	env := os.Environ()
	if _, ok := os.LookupEnv("HOME"); !ok {
		if p := os.Getenv("USERPROFILE"); p != "" {
			env = append(env, "HOME="+p)
		}
	}
	return env
}

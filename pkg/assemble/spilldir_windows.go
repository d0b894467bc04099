package assemble

import "io/fs"

// ownedByMe: a Windows user's temporary folder (%TEMP%) is under their
// own profile, so what is found there is theirs.
func ownedByMe(fs.FileInfo) bool { return true }

// Package atomicfile replaces a file atomically: the new bytes go to a
// new temporary file next to it, which is fsynced, given the old file's
// owner and mode, and renamed over it; then the folder is fsynced. The
// write and edit tools, gopi session export (and rpc's export_html) and
// the notes file all replace files through it.
//
// Guarantees:
//   - A reader, and a crash, see the old bytes or the new, never a mix.
//   - On any failure before the rename the temporary file is removed and
//     the file keeps its old bytes.
//   - The temporary file is created O_EXCL and O_NOFOLLOW
//     (".<name>.gopi-tmp-<random>"): it never opens what was already there.
//   - Every step names the file relative to one open Folder (on Unix, by
//     its descriptor: a symbolic link swapped into the path after the
//     folder was opened does not move the write elsewhere).
//   - A replaced file keeps its owner (when the process may give it) and
//     its mode, set-id and sticky bits included; a new file gets the mode
//     asked for, less the umask.
//   - The content is in place when only the folder's fsync failed: that is
//     an *UnsyncedError, which callers report as a warning.
package atomicfile

//go:build linux

package memory

import "golang.org/x/sys/unix"

// renameNoReplace is renameat2(RENAME_NOREPLACE): atomic, and fails with
// EEXIST rather than replacing an existing entry.
func renameNoReplace(from, to string) error {
	return unix.Renameat2(unix.AT_FDCWD, from, unix.AT_FDCWD, to, unix.RENAME_NOREPLACE)
}

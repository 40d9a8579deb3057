//go:build linux && !echoes_portable

package fsx

import (
	"os"

	"golang.org/x/sys/unix"
)

// renameNoReplace is renameat2(RENAME_NOREPLACE): atomic, and fails with
// EEXIST rather than replacing an existing entry. File systems that do not
// support the flag answer EINVAL, kernels before 3.15 ENOSYS.
func renameNoReplace(from, to string) error {
	if err := unix.Renameat2(unix.AT_FDCWD, from, unix.AT_FDCWD, to, unix.RENAME_NOREPLACE); err != nil {
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: err}
	}
	return nil
}

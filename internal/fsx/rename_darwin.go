//go:build darwin && !echoes_portable

package fsx

import (
	"os"

	"golang.org/x/sys/unix"
)

// renameNoReplace is renamex_np(RENAME_EXCL) (macOS 10.12+): atomic, and
// fails with EEXIST rather than replacing an existing entry. File systems
// that do not support it answer ENOTSUP.
func renameNoReplace(from, to string) error {
	if err := unix.RenamexNp(from, to, unix.RENAME_EXCL); err != nil {
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: err}
	}
	return nil
}

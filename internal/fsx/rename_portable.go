//go:build unix && (echoes_portable || !(linux || darwin))

package fsx

import (
	"os"
	"syscall"
)

// renameNoReplace has no portable atomic form (FreeBSD has no no-replace
// rename, and the portable build stands for such systems): refusing is the
// create-only answer. Callers never fall back to rename(2), which would
// replace.
func renameNoReplace(from, to string) error {
	return &os.LinkError{Op: "rename", Old: from, New: to, Err: syscall.ENOTSUP}
}

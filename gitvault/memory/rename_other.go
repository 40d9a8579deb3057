//go:build !linux

package memory

import "syscall"

// renameNoReplace has no portable atomic form outside Linux; refusing is
// the create-only answer (never fall back to writing the final name).
func renameNoReplace(from, to string) error { return syscall.ENOTSUP }

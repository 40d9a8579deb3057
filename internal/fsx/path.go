package fsx

import (
	"errors"
	"io/fs"
)

// ErrSymlinkLoop is matched by the error ResolvePath returns for a symlink loop.
var ErrSymlinkLoop = errors.New("symlink loop")

// IsSymlink reports whether p itself is a symbolic link (not followed). On
// Windows every name-surrogate reparse point counts, a junction included:
// each redirects to another name, so each is refused as a managed target.
func IsSymlink(p string) bool {
	typ, _, err := lstatType(p)
	return err == nil && typ&fs.ModeSymlink != 0
}

// IsRegular reports whether p is a regular file and not a symbolic link.
func IsRegular(p string) bool {
	typ, _, err := lstatType(p)
	return err == nil && typ.IsRegular()
}

// IsDirNoFollow reports whether p is a real directory, not a symbolic link
// (nor, on Windows, a junction).
func IsDirNoFollow(p string) bool {
	typ, _, err := lstatType(p)
	return err == nil && typ.IsDir()
}

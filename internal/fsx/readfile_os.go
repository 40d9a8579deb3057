//go:build windows || (unix && (echoes_portable || !(linux || darwin || freebsd)))

package fsx

import (
	"io/fs"
	"os"
)

// checkRegular refuses an open file that is not a regular file (ReadFileBuf
// on the os package paths; the fast path checks its descriptor itself).
func checkRegular(f *os.File, path string) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return &fs.PathError{Op: "read", Path: path, Err: ErrNotRegular}
	}
	return nil
}

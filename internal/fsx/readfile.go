package fsx

import (
	"errors"
	"io/fs"
	"os"
)

// ErrNotRegular is matched by the error of a read that found a FIFO, a
// device, a socket or a directory where a regular file belongs (issue 11
// item 4); such a file is refused, never read and never waited on.
var ErrNotRegular = errors.New("not a regular file")

// ReadFile reads the whole file at path like os.ReadFile (symlinks
// followed), except that it never blocks on a FIFO or device: the open does
// not block and anything but a regular file fails with a *fs.PathError
// wrapping ErrNotRegular (ReadFileBuf).
func ReadFile(path string) ([]byte, error) {
	b, err := ReadFileBuf(path, nil)
	if err != nil {
		return nil, err
	}
	return b, nil
}

// checkRegular refuses an open file that is not a regular file.
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

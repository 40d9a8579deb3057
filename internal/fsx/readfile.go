package fsx

import "errors"

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

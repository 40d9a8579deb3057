//go:build windows

package fsx

import "io/fs"

// inodeOf reads the volume serial number and file index from a handle
// (os.Lstat does not report them).
func inodeOf(path string, _ fs.FileInfo) (dev, ino uint64, err error) {
	id, err := LstatIdent(path)
	if err != nil {
		return 0, 0, err
	}
	return id.dev, id.ino, nil
}

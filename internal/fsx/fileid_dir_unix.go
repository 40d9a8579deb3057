//go:build (linux || darwin || freebsd) && !echoes_portable

package fsx

import (
	"io/fs"

	"golang.org/x/sys/unix"
)

// FileID is LstatFileID for the file name (a single path component) of d:
// one fstatat on the directory descriptor, no path resolution per file.
func (d *Dir) FileID(name string) (FileID, error) {
	var st unix.Stat_t
	if err := retry(func() error { return unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) }); err != nil {
		return FileID{}, &fs.PathError{Op: "lstat", Path: d.path + "/" + name, Err: err}
	}
	id := identOf(&st)
	return FileID{Mode: id.Mode, Size: id.Size, MtimeNs: st.Mtim.Nano(), Dev: id.dev, Ino: id.ino}, nil
}

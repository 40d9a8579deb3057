//go:build unix

package fsx

import (
	"io/fs"

	"golang.org/x/sys/unix"
)

// LstatStamp returns the Stamp of path itself (lstat: a final symlink is
// reported, not followed).
func LstatStamp(path string) (Stamp, error) {
	var st unix.Stat_t
	err := unix.Lstat(path, &st)
	for err == unix.EINTR {
		err = unix.Lstat(path, &st)
	}
	if err != nil {
		return Stamp{}, &fs.PathError{Op: "lstat", Path: path, Err: err}
	}
	return stampOf(&st), nil
}

func stampOf(st *unix.Stat_t) Stamp {
	id := identOfMode(uint32(st.Mode))
	return Stamp{Mode: id, Size: st.Size, Mtime: st.Mtim.Nano(), Ctime: st.Ctim.Nano(),
		Dev: uint64(st.Dev), Ino: uint64(st.Ino)}
}

// identOfMode maps st_mode's type bits to fs.FileMode type bits.
func identOfMode(mode uint32) fs.FileMode {
	switch mode & unix.S_IFMT {
	case unix.S_IFREG:
		return 0
	case unix.S_IFDIR:
		return fs.ModeDir
	case unix.S_IFLNK:
		return fs.ModeSymlink
	case unix.S_IFIFO:
		return fs.ModeNamedPipe
	case unix.S_IFSOCK:
		return fs.ModeSocket
	case unix.S_IFCHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		return fs.ModeDevice
	}
	return fs.ModeIrregular
}

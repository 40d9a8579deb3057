package fsx

import "io/fs"

// Ident is what a guarded reader checks about a file
// (ecc-conformance §11.3): its type, its size, and its identity, the device and inode
// numbers (on Windows the volume serial number and the file index, which
// is what Node's fs.Stats report there as dev and ino).
type Ident struct {
	// Mode holds the type bits only (fs.ModeType): 0 for a regular file.
	// A symbolic link, and on Windows any name-surrogate reparse point (a
	// junction too), is fs.ModeSymlink.
	Mode     fs.FileMode
	Size     int64
	dev, ino uint64
}

func newIdent(mode fs.FileMode, size int64, dev, ino uint64) Ident {
	return Ident{Mode: mode, Size: size, dev: dev, ino: ino}
}

// IsRegular reports whether the file is a regular file.
func (a Ident) IsRegular() bool { return a.Mode&fs.ModeType == 0 }

// SameFile compares identities as the reference does: the inode always,
// the device only when both sides report a non-zero one.
func (a Ident) SameFile(b Ident) bool {
	return a.ino == b.ino && (a.dev == 0 || b.dev == 0 || a.dev == b.dev)
}

// minRead is the smallest buffer a whole-file read starts with; pages are a
// few KB.
const minRead = 16 << 10

// readLoop fills buf (grown as needed, starting at minRead) from read until
// a short read, which for a regular file means end of file: only a full
// buffer needs another read to find out. Pages are regular files (the
// listing excludes everything else).
func readLoop(buf []byte, read func([]byte) (int, error)) ([]byte, error) {
	if cap(buf) < minRead {
		buf = make([]byte, 0, minRead)
	}
	buf = buf[:0]
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := read(buf[len(buf):cap(buf)])
		if err != nil {
			return buf[:0], err
		}
		buf = buf[:len(buf)+n]
		if n == 0 || len(buf) < cap(buf) {
			return buf, nil
		}
	}
}

//go:build windows || (unix && (echoes_portable || !(linux || darwin || freebsd)))

package fsx

import (
	"errors"
	"io/fs"
	"os"
)

// The path-based Dir of the builds without openat (Windows, and the
// portable build): the same operations as dir_unix.go's descriptor-based
// Dir, on joined paths. Win32 has no openat, and the per-file path walk it
// would save is done by the kernel anyway; the portable build exists so
// that this path runs under the test suite on Linux too.

// Dir is a directory whose files can be read by name. In these builds it
// holds the directory's path.
type Dir struct{ path string }

// OpenDir checks that path is (or, through links, leads to) a directory.
func OpenDir(path string) (*Dir, error) {
	fi, err := os.Stat(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return nil, &fs.PathError{Op: "open", Path: path, Err: pe.Err}
		}
		return nil, err
	}
	if !fi.IsDir() {
		return nil, &fs.PathError{Op: "open", Path: path, Err: errNotDir}
	}
	return &Dir{path: path}, nil
}

// Close releases nothing in these builds.
func (d *Dir) Close() error { return nil }

func (d *Dir) join(name string) string { return d.path + string(os.PathSeparator) + name }

// ReadFileBuf reads the file name (a single path component) of d into buf.
func (d *Dir) ReadFileBuf(name string, buf []byte) ([]byte, error) {
	return ReadFileBuf(d.join(name), buf)
}

// OpenNoFollow is OpenNoFollow for the file name (a single path component)
// of d.
func (d *Dir) OpenNoFollow(name string) (File, error) { return OpenNoFollow(d.join(name)) }

// Lstat is LstatIdent for the file name (a single path component) of d.
func (d *Dir) Lstat(name string) (Ident, error) { return LstatIdent(d.join(name)) }

// Stamp is LstatStamp for the file name (a single path component) of d.
func (d *Dir) Stamp(name string) (Stamp, error) { return LstatStamp(d.join(name)) }

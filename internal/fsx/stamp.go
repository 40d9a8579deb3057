package fsx

import "io/fs"

// Stamp is what a cache keyed by file identity remembers about a file and
// compares on the next run, as Git's index does with its stat data: the
// type, the size, the modification and change times in nanoseconds, and
// the identity (device and inode; on Windows the volume serial number and
// the file index). Any difference means the file may have changed and must
// be read again. Equal stamps prove nothing about a file modified within
// the timestamp granule of the moment the stamp was recorded: callers treat
// such "racy" stamps as Git does (see Stamp.Racy).
//
// The fields are exported so that caches can store them; a Stamp is only
// ever compared with another one taken on the same machine.
type Stamp struct {
	Mode  fs.FileMode // type bits only (fs.ModeType): 0 for a regular file
	Size  int64
	Mtime int64 // modification time, nanoseconds since the Unix epoch
	// Ctime is the inode change time (POSIX st_ctime; Windows ChangeTime),
	// nanoseconds since the Unix epoch: it moves on every write and on
	// every metadata change, os.Chtimes included, so a file rewritten with
	// the same size and its old mtime restored is still seen to change. 0
	// where the system does not report one.
	Ctime    int64
	Dev, Ino uint64
}

// IsRegular reports whether the stamp is a regular file's.
func (s Stamp) IsRegular() bool { return s.Mode&fs.ModeType == 0 }

// Racy reports whether a file with this stamp, recorded by a cache written
// at time written (Unix nanoseconds, on the file system's clock), may have
// changed again without changing the stamp: its modification or change
// time is not safely older than the cache's own write time. granule is the
// coarsest timestamp resolution the caller allows for (a file system that
// keeps seconds, FAT's two seconds). A racy entry must be read again.
func (s Stamp) Racy(written, granule int64) bool {
	return s.Mtime >= written-granule || s.Ctime >= written-granule
}

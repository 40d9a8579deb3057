package fsx

import (
	"io/fs"
	"os"
)

// FileID is the identity a derived cache keys a file's content by (the
// ranked-search index, issue 12): its type, size, modification time and
// device and inode numbers, as Git's index does. Equal FileIDs mean
// "unchanged" unless the modification time is too recent to trust
// (racy: the caller re-reads such files).
type FileID struct {
	Mode    fs.FileMode // type bits only
	Size    int64
	MtimeNs int64
	Dev     uint64
	Ino     uint64
}

// LstatFileID returns the FileID of path itself (a final symlink is
// reported as one, not followed).
func LstatFileID(path string) (FileID, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return FileID{}, err
	}
	id := FileID{Mode: fi.Mode().Type(), Size: fi.Size(), MtimeNs: fi.ModTime().UnixNano()}
	id.Dev, id.Ino, err = inodeOf(path, fi)
	return id, err
}

package fsx

import (
	"errors"
	"os"
)

// SyncFile flushes a regular file's data to stable storage, for a file
// written by another writer without syncs (the find index builds its
// SQLite generation with synchronous=OFF and syncs it once before
// publishing it, issue 19). A symlink is refused, never followed.
func SyncFile(path string) error {
	if IsSymlink(path) {
		return errors.New("refusing to sync a symbolic link: " + path)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

package fsx

import (
	"io/fs"
	"os"
)

// The file-system calls internal/fswatch needs besides the watch itself
// (which github.com/fsnotify/fsnotify makes): a private directory for its
// barrier files, creating and removing them, and listing a directory
// without following its entries (issue 19).

// MkdirTemp creates a new private directory (mode 0700) in dir ("" is the
// OS temporary directory) whose name starts with prefix.
func MkdirTemp(dir, prefix string) (string, error) { return os.MkdirTemp(dir, prefix) }

// RemoveFile removes one name; a missing name is not an error.
func RemoveFile(path string) error {
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		return err
	}
	return nil
}

// RemoveTree removes a directory this process created and everything in it.
func RemoveTree(dir string) error { return os.RemoveAll(dir) }

// ReadDirEntries lists a directory; the entries' types are those of the
// names themselves (a symlink is a symlink, never its target).
func ReadDirEntries(dir string) ([]fs.DirEntry, error) { return os.ReadDir(dir) }

// RenameMarker renames a marker file to another name in the same
// directory: one system call whose event names the new name, as a
// creation's does (the watcher's barrier, issue 19).
func RenameMarker(from, to string) error { return os.Rename(from, to) }

// CreateMarker creates an empty file exclusively, without syncing it: a
// name whose only purpose is the change event it causes (the watcher's
// barrier), not its durability.
func CreateMarker(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	return f.Close()
}

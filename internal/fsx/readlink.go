package fsx

import "os"

// Readlink returns a symbolic link's target, as git stores it in a blob.
func Readlink(path string) (string, error) { return os.Readlink(path) }

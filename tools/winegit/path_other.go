//go:build !windows

package main

// unixPath is the identity outside Windows: paths are already Unix paths.
func unixPath(p string) (string, bool) { return p, true }

//go:build !windows

package gitrepo

// dosPath has nothing to translate off Windows.
func dosPath(string) (string, bool) { return "", false }

// unixPath has nothing to translate off Windows.
func unixPath(string) (string, bool) { return "", false }

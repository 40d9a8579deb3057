//go:build !windows

package fsx

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// maxSymlinkExpansions bounds the number of symlinks followed by ResolvePath,
// so that a pathological (non-looping but unbounded) chain still terminates.
const maxSymlinkExpansions = 255

// ResolvePath mimics Python's Path(p).resolve(strict=False) (posixpath.realpath
// in non-strict mode): components are processed left to right; each existing
// symlink is replaced by its (recursively resolved) target, so a following
// ".." applies to the link's target; components that do not exist (or cannot
// be inspected) are appended as written, "." and empty components are
// dropped, and ".." removes the last component of the path built so far. A
// relative p is taken relative to the working directory. A symlink loop that
// the path still runs into returns an error matching ErrSymlinkLoop (Python
// raises RuntimeError); a loop the path steps back out of with ".." resolves
// to the lexically normalized remainder, as in Python 3.8-3.12.
func ResolvePath(p string) (string, error) {
	if p == "" {
		return "", errors.New("resolve path: empty path")
	}
	if !strings.HasPrefix(p, "/") {
		wd, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("resolve %s: working directory: %w", p, err)
		}
		p = wd + "/" + p
	}

	// The work stack holds components still to process, last element first
	// to pop. A linkDone item records that the symlink it names is resolved
	// to the path built so far.
	type item struct {
		name     string
		linkDone string // non-empty: marker for this symlink path
	}
	var stack []item
	pushComponents := func(s string) {
		parts := strings.Split(s, "/")
		for i := len(parts) - 1; i >= 0; i-- {
			stack = append(stack, item{name: parts[i]})
		}
	}
	pushComponents(p)

	path := ""                      // "" stands for "/"
	resolved := map[string]string{} // symlink path -> resolved path
	pending := map[string]bool{}    // symlinks being resolved
	expansions := 0
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if it.linkDone != "" {
			delete(pending, it.linkDone)
			resolved[it.linkDone] = path
			continue
		}
		name := it.name
		switch name {
		case "", ".":
			continue
		case "..":
			if i := strings.LastIndexByte(path, '/'); i >= 0 {
				path = path[:i]
			}
			continue
		}
		newpath := path + "/" + name
		fi, err := os.Lstat(newpath)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			path = newpath
			continue
		}
		if r, ok := resolved[newpath]; ok {
			path = r
			continue
		}
		if pending[newpath] {
			// Like Python before 3.13: realpath gives up and returns the
			// unresolved remainder, lexically normalized (abspath); pathlib
			// then raises only if that path still runs into the loop.
			rest := []string{newpath}
			for i := len(stack) - 1; i >= 0; i-- {
				if stack[i].linkDone == "" {
					rest = append(rest, stack[i].name)
				}
			}
			candidate := filepath.Clean(strings.Join(rest, "/"))
			if _, err := os.Stat(candidate); errors.Is(err, syscall.ELOOP) {
				return "", fmt.Errorf("resolve %s: %w at %s", p, ErrSymlinkLoop, newpath)
			}
			return candidate, nil
		}
		expansions++
		if expansions > maxSymlinkExpansions {
			return "", fmt.Errorf("resolve %s: %w: more than %d symlinks", p, ErrSymlinkLoop, maxSymlinkExpansions)
		}
		target, err := os.Readlink(newpath)
		if err != nil {
			// Python's realpath treats an unreadable link like a non-link.
			path = newpath
			continue
		}
		pending[newpath] = true
		stack = append(stack, item{linkDone: newpath})
		if strings.HasPrefix(target, "/") {
			path = ""
		}
		pushComponents(target)
	}
	if path == "" {
		return "/", nil
	}
	return path, nil
}

// Within reports whether path equals root or lies below it. Both must already
// be resolved and clean absolute paths.
func Within(root, path string) bool {
	if path == root {
		return true
	}
	if root == "/" {
		return strings.HasPrefix(path, "/")
	}
	return strings.HasPrefix(path, root+"/")
}

package gitrepo

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"unicode"
)

// errInvalidPath is wrapped by the error for a tree entry name or a path
// looked up in a tree that must not be read into a work tree.
var errInvalidPath = errors.New("invalid path")

// errMaxTreeDepth: trees nested deeper than maxTreeDepth are refused, as
// go-git's TreeWalker refused them.
var errMaxTreeDepth = errors.New("maximum tree depth exceeded")

const maxTreeDepth = 1024

// validTreePath is the check go-git's TreeWalker made of every entry
// name it walked, and Tree.FindEntry of a path (go-git
// internal/pathutil/tree.go ValidTreePath, after git's verify_path): no
// control character, something besides separators ("/" and "\"), no
// drive or UNC volume (on Windows), no "." or ".." component, and no
// component that names the .git directory on any file system: ".git"
// and its 8.3 short name "git~1" in any case, the HFS+ spellings with
// ignorable code points in them, the NTFS ones followed by dots, spaces
// or an alternate data stream. A commit holding such a name is refused
// as unreadable, so the CI gate fails closed on it (gate's
// TestCheckWindowsNames).
func validTreePath(p string) error {
	for i := 0; i < len(p); i++ {
		if p[i] < 0x20 || p[i] == 0x7f {
			return fmt.Errorf("%w %q: contains control character", errInvalidPath, p)
		}
	}
	parts := strings.FieldsFunc(p, func(r rune) bool { return r == '\\' || r == '/' })
	if len(parts) == 0 {
		return fmt.Errorf("%w: %q", errInvalidPath, p)
	}
	if filepath.VolumeName(p) != "" {
		return fmt.Errorf("%w: %q", errInvalidPath, p)
	}
	for _, part := range parts {
		if part == "." || part == ".." {
			return fmt.Errorf("%w %q: cannot use %q", errInvalidPath, p, part)
		}
		if isDotGitName(part) || isHFSDotGit(part) || isNTFSDotGit(part) {
			return fmt.Errorf("%w component: %q", errInvalidPath, p)
		}
	}
	return nil
}

func isDotGitName(part string) bool {
	switch strings.ToLower(part) {
	case ".git", "git~1":
		return true
	}
	return false
}

// hfsIgnorable are the code points HFS+ drops when it compares names
// (git's utf8.c is_hfs_dotgit).
func hfsIgnorable(r rune) bool {
	switch r {
	case 0x200c, 0x200d, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e,
		0x206a, 0x206b, 0x206c, 0x206d, 0x206e, 0x206f, 0xfeff:
		return true
	}
	return false
}

// isHFSDotGit reports whether part is ".git" once the ignorable code
// points are dropped, compared case-insensitively in ASCII.
func isHFSDotGit(part string) bool {
	runes := []rune(part)
	i := 0
	skip := func() {
		for i < len(runes) && hfsIgnorable(runes[i]) {
			i++
		}
	}
	skip()
	if i >= len(runes) || runes[i] != '.' {
		return false
	}
	i++
	for _, want := range "git" {
		skip()
		if i >= len(runes) || runes[i] > 127 || unicode.ToLower(runes[i]) != want {
			return false
		}
		i++
	}
	skip()
	return i == len(runes)
}

// isNTFSDotGit reports whether part is ".git" or "git~1" (any case)
// followed only by dots and spaces, or by anything after a ':' (a
// stream name), which NTFS reads as the .git directory.
func isNTFSDotGit(part string) bool {
	lower := func(c byte) byte {
		if 'A' <= c && c <= 'Z' {
			return c + 'a' - 'A'
		}
		return c
	}
	var i int
	switch {
	case len(part) >= 4 && part[0] == '.' && lower(part[1]) == 'g' && lower(part[2]) == 'i' && lower(part[3]) == 't':
		i = 4
	case len(part) >= 5 && lower(part[0]) == 'g' && lower(part[1]) == 'i' && lower(part[2]) == 't' && part[3] == '~' && part[4] == '1':
		i = 5
	default:
		return false
	}
	for ; i < len(part); i++ {
		switch part[i] {
		case ':':
			return true
		case '.', ' ':
		default:
			return false
		}
	}
	return true
}

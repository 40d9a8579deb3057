//go:build windows

package fsx

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/sys/windows"
)

// ResolvePath mimics Python's Path(p).resolve(strict=False) on Windows,
// which is ntpath.realpath(strict=False) (Python 3.8-3.12):
//
//  1. the path is normalized lexically first (ntpath.normpath: "." and ".."
//     are applied before any link is resolved, unlike on POSIX systems) and
//     made absolute against the working directory (filepath.Abs, which also
//     handles drive-relative "C:x" and rooted "\x" paths);
//  2. the longest prefix that can be opened is resolved by the system:
//     GetFinalPathNameByHandle on a handle that follows every symlink and
//     junction, which also gives each existing component its on-disk case
//     and long (not 8.3) name; the rest is appended as written;
//  3. when a component cannot be opened but is a link (a dangling symlink),
//     its target chain is followed with readlink, as Python's
//     _readlink_deep does, and the rest appended to it;
//  4. the \\?\ (or \\?\UNC\) prefix the system adds is removed unless p had
//     it. Python keeps it when the unprefixed form would name a different
//     file (names ending in a dot or space); this function always removes
//     it, as those names are refused as page names anyway.
//
// Drive letters, UNC paths (\\server\share\...) and both separators are
// accepted; the result uses `\`. As in Python, a result that still runs into
// a symlink loop is an error matching ErrSymlinkLoop.
func ResolvePath(p string) (string, error) {
	if p == "" {
		return "", errors.New("resolve path: empty path")
	}
	verbatim := strings.HasPrefix(p, `\\?\`)
	abs := p
	if !verbatim {
		a, err := filepath.Abs(p)
		if err != nil {
			return "", fmt.Errorf("resolve %s: %w", p, err)
		}
		abs = a
	}
	res, err := resolveNonStrict(abs)
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", p, err)
	}
	if !verbatim {
		res = stripVerbatim(res)
	}
	// pathlib's resolve raises when the result still runs into a loop.
	if _, err := os.Stat(res); errors.Is(err, windows.ERROR_CANT_RESOLVE_FILENAME) {
		return "", fmt.Errorf("resolve %s: %w at %s", p, ErrSymlinkLoop, res)
	}
	return res, nil
}

// resolveNonStrict is ntpath._getfinalpathname_nonstrict.
func resolveNonStrict(path string) (string, error) {
	tail := ""
	join := func(head string) string {
		if tail == "" {
			return head
		}
		return filepath.Join(head, tail)
	}
	for cur := path; ; {
		final, err := finalPath(cur)
		if err == nil {
			return join(final), nil
		}
		if !resolveStops(err) {
			return "", err
		}
		if target := readlinkDeep(cur); target != cur {
			return join(target), nil
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return join(cur), nil
		}
		if tail == "" {
			tail = filepath.Base(cur)
		} else {
			tail = filepath.Base(cur) + `\` + tail
		}
		cur = parent
	}
}

// resolveStops lists the errors after which Python stops resolving and
// keeps the remaining components as written (ntpath's allowed_winerror).
func resolveStops(err error) bool {
	var errno windows.Errno
	if !errors.As(err, &errno) {
		return false
	}
	switch errno {
	case 1, 2, 3, 5, 21, 32, 50, 53, 65, 67, 87, 123, 161, 1920, 1921:
		return true
	}
	return false
}

// finalPath is Python's nt._getfinalpathname: the final path of an
// existing file or directory, links followed, with the \\?\ prefix.
func finalPath(p string) (string, error) {
	h, err := openHandle(p, 0, windows.FILE_FLAG_BACKUP_SEMANTICS)
	if err != nil {
		return "", err
	}
	defer windows.CloseHandle(h)
	buf := make([]uint16, 260)
	for {
		// Flags 0: FILE_NAME_NORMALIZED | VOLUME_NAME_DOS.
		n, err := windows.GetFinalPathNameByHandle(h, &buf[0], uint32(len(buf)), 0)
		if err != nil {
			return "", err
		}
		if int(n) < len(buf) {
			return windows.UTF16ToString(buf[:n]), nil
		}
		buf = make([]uint16, n+1)
	}
}

// stripVerbatim removes the \\?\ prefix: \\?\C:\x is C:\x and
// \\?\UNC\server\share\x is \\server\share\x.
func stripVerbatim(p string) string {
	if rest, ok := strings.CutPrefix(p, `\\?\UNC\`); ok {
		return `\\` + rest
	}
	if rest, ok := strings.CutPrefix(p, `\\?\`); ok {
		return rest
	}
	return p
}

// readlinkDeep is ntpath._readlink_deep: follow a chain of links that the
// system could not open, until a name that is not a link (or a loop).
func readlinkDeep(p string) string {
	seen := map[string]bool{}
	for !seen[normcase(p)] {
		seen[normcase(p)] = true
		old := p
		target, err := os.Readlink(p)
		if err != nil {
			break
		}
		if filepath.IsAbs(target) {
			p = target
			continue
		}
		// A relative target is relative to the link's directory; for
		// anything but a symlink proper Python does not know what it is
		// relative to and keeps the old path.
		if fi, err := os.Lstat(old); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			p = old
			break
		}
		p = filepath.Join(filepath.Dir(old), target)
	}
	return p
}

// normcase is ntpath.normcase: case-folded, with `\` separators.
func normcase(p string) string { return strings.ToLower(strings.ReplaceAll(p, "/", `\`)) }

// Within reports whether path equals root or lies below it. Both must already
// be resolved absolute paths (ResolvePath). Windows paths compare
// case-insensitively (NTFS and FAT look names up through an upper-case
// table; so are drive letters and server names) and either separator is
// accepted; a root ending in a separator (C:\, \\server\share\) contains
// everything on that volume.
func Within(root, path string) bool {
	r := strings.ReplaceAll(root, "/", `\`)
	p := strings.ReplaceAll(path, "/", `\`)
	rest, ok := cutPrefixFold(p, r)
	if !ok {
		return false
	}
	return rest == "" || strings.HasSuffix(r, `\`) || rest[0] == '\\'
}

// cutPrefixFold is strings.CutPrefix comparing runes by their upper case,
// as Windows compares names.
func cutPrefixFold(s, prefix string) (string, bool) {
	for prefix != "" {
		if s == "" {
			return "", false
		}
		a, na := utf8.DecodeRuneInString(s)
		b, nb := utf8.DecodeRuneInString(prefix)
		if a != b && unicode.ToUpper(a) != unicode.ToUpper(b) {
			return "", false
		}
		s, prefix = s[na:], prefix[nb:]
	}
	return s, true
}

// Package winname decides whether a file name can exist on Windows. It is
// the one home of that rule: gitvault refuses to create such names on
// Windows, and `git echoes check` reports them on every OS (rule
// "windows-name"), because a name Windows cannot hold makes `git checkout`
// fail for every Windows clone of the repository (issue 8, "what a vault
// shared across OSes meets").
//
// The rule follows Microsoft's "Naming Files, Paths, and Namespaces" (the
// reserved device names, with any extension, and the reserved characters)
// and Git for Windows' is_valid_win32_path (compat/mingw.c), which is what
// actually refuses the checkout: it also reserves CONIN$, CONOUT$ and LPT0,
// and ignores spaces between a device name and its extension ("CON .md" is
// still CON).
package winname

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// forbidden are the printable characters Windows refuses in a file name.
// The path separators are included: "\" splits a component on Windows, and
// Git for Windows refuses tree entries that hold one.
const forbidden = `<>:"|?*\/`

// Reason returns why name, one path component, cannot exist on Windows, or
// "" when it can. Reasons are short phrases that callers put after the
// name, for example "'CON.md' (reserved device name CON)".
func Reason(name string) string {
	if name == "" || name == "." || name == ".." {
		return "" // not a file name; other rules deal with these
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c < 0x20:
			return fmt.Sprintf("control character U+%04X is not allowed", c)
		case strings.IndexByte(forbidden, c) >= 0:
			return fmt.Sprintf("character %q is not allowed", rune(c))
		}
	}
	if dev := device(name); dev != "" {
		return "reserved device name " + dev
	}
	switch name[len(name)-1] {
	case '.':
		return "ends with '.'"
	case ' ':
		return "ends with a space"
	}
	return ""
}

// PathReason checks every component of a slash-separated relative path. It
// returns the path up to and including the first component that cannot
// exist on Windows, with that component's reason, or two empty strings.
// Reporting the shortest bad prefix names a reserved directory once, not
// once per file below it.
func PathReason(p string) (prefix, reason string) {
	start := 0
	for {
		end := strings.IndexByte(p[start:], '/')
		if end < 0 {
			end = len(p)
		} else {
			end += start
		}
		if r := Reason(p[start:end]); r != "" {
			return p[:end], r
		}
		if end == len(p) {
			return "", ""
		}
		start = end + 1
	}
}

// device returns the reserved device name that name stands for, in upper
// case, or "". Windows reads the part before the first '.', ignoring
// trailing spaces, as the device: "nul.tar.gz" and "Aux .md" are devices.
func device(name string) string {
	base := name
	if i := strings.IndexByte(base, '.'); i >= 0 {
		base = base[:i]
	}
	base = strings.TrimRight(base, " ")
	switch len(base) {
	case 3:
		switch up := upperASCII(base); up {
		case "CON", "PRN", "AUX", "NUL":
			return up
		}
	case 4, 5: // COM1-COM9, LPT0-LPT9, or a superscript ¹²³ (2 bytes)
		up := upperASCII(base[:3])
		if up != "COM" && up != "LPT" {
			return ""
		}
		r, size := utf8.DecodeRuneInString(base[3:])
		if 3+size != len(base) {
			return ""
		}
		switch {
		case r >= '1' && r <= '9', r == '0' && up == "LPT":
			// Microsoft lists COM1-9 and LPT1-9; Git for Windows also
			// refuses LPT0 (isdigit), so a vault that holds it cannot be
			// checked out there either.
			return up + string(r)
		case r == '¹' || r == '²' || r == '³':
			return up + string(r)
		}
	case 6, 7:
		switch up := upperASCII(base); up {
		case "CONIN$", "CONOUT$":
			return up
		}
	}
	return ""
}

// upperASCII upper-cases ASCII letters only: device names are ASCII, and
// Unicode case folding would map other letters onto them (U+017F ſ folds
// to s).
func upperASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}

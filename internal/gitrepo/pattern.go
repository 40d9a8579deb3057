package gitrepo

import (
	"bytes"
	"strings"
)

// Pattern flags, named after git's PATTERN_FLAG_* in dir.h.
const (
	flagNoDir     = 1 << iota // no slash in the pattern: match the basename only
	flagEndsWith              // "*literal": a plain suffix comparison suffices
	flagMustBeDir             // trailing slash: directories only
	flagNegative              // leading "!": re-include
)

// pattern is one parsed exclude line, as git's struct path_pattern.
type pattern struct {
	text      string // without the leading "!" and the trailing "/"
	noWildLen int    // length of the leading run with no glob-special byte
	flags     int
	base      string // directory of the file it came from, "" or "a/b" (no trailing slash)
	source    string // file it came from, for diagnostics
	line      int    // 1-based line number in source
}

// parsePatterns parses an exclude file the way git's add_patterns_from_buffer
// does: a leading UTF-8 BOM is skipped, lines are split on LF with one CR
// before it dropped, blank lines and lines starting with '#' are skipped and
// unescaped trailing spaces are trimmed. base is the slash-separated
// directory (relative to the top) the patterns are relative to.
func parsePatterns(data []byte, base, source string) []pattern {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var out []pattern
	line := 0
	for len(data) > 0 {
		line++
		var entry []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			entry, data = data[:i], data[i+1:]
		} else {
			entry, data = data, nil
		}
		if len(entry) == 0 || entry[0] == '#' {
			continue
		}
		entry = bytes.TrimSuffix(entry, []byte("\r"))
		// git works on NUL-terminated strings: a NUL ends the line.
		if i := bytes.IndexByte(entry, 0); i >= 0 {
			entry = entry[:i]
		}
		p := parsePattern(trimTrailingSpaces(string(entry)))
		p.base, p.source, p.line = base, source, line
		out = append(out, p)
	}
	return out
}

// trimTrailingSpaces ports dir.c's trim_trailing_spaces: trailing ' ' bytes
// go unless the first of them is escaped by a backslash; tabs stay.
func trimTrailingSpaces(s string) string {
	lastSpace := -1
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ':
			if lastSpace < 0 {
				lastSpace = i
			}
		case '\\':
			i++
			if i >= len(s) {
				return s
			}
			lastSpace = -1
		default:
			lastSpace = -1
		}
	}
	if lastSpace >= 0 {
		return s[:lastSpace]
	}
	return s
}

// simpleLength is dir.c's simple_length: bytes before the first glob
// special character.
func simpleLength(s string) int {
	for i := 0; i < len(s); i++ {
		if isGlobSpecial(s[i]) {
			return i
		}
	}
	return len(s)
}

// parsePattern ports dir.c's parse_path_pattern.
func parsePattern(s string) pattern {
	var p pattern
	if strings.HasPrefix(s, "!") {
		p.flags |= flagNegative
		s = s[1:]
	}
	// noWildLen and flagEndsWith look at the string before the trailing
	// slash is cut, exactly as git does, then get clamped.
	full := s
	if strings.HasSuffix(s, "/") {
		s = s[:len(s)-1]
		p.flags |= flagMustBeDir
	}
	if !strings.Contains(s, "/") {
		p.flags |= flagNoDir
	}
	p.noWildLen = simpleLength(full)
	if p.noWildLen > len(s) {
		p.noWildLen = len(s)
	}
	if strings.HasPrefix(full, "*") && simpleLength(full[1:]) == len(full)-1 {
		p.flags |= flagEndsWith
	}
	p.text = s
	return p
}

// matcher holds the case sensitivity shared by all comparisons
// (core.ignoreCase selects strncasecmp and WM_CASEFOLD in git).
type matcher struct{ ignoreCase bool }

func (m matcher) equal(a, b string) bool {
	if m.ignoreCase {
		if len(a) != len(b) {
			return false
		}
		for i := 0; i < len(a); i++ {
			if toLower(a[i]) != toLower(b[i]) {
				return false
			}
		}
		return true
	}
	return a == b
}

func (m matcher) wildFlags(pathname bool) int {
	f := 0
	if m.ignoreCase {
		f |= wmCaseFold
	}
	if pathname {
		f |= wmPathname
	}
	return f
}

// matchBasename ports dir.c's match_basename.
func (m matcher) matchBasename(basename string, p *pattern) bool {
	switch {
	case p.noWildLen == len(p.text):
		return m.equal(p.text, basename)
	case p.flags&flagEndsWith != 0:
		suffix := p.text[1:]
		return len(suffix) <= len(basename) && m.equal(suffix, basename[len(basename)-len(suffix):])
	default:
		return wildmatch(p.text, basename, m.wildFlags(false))
	}
}

// matchPathname ports dir.c's match_pathname: the pattern is anchored at
// its base directory and matched with WM_PATHNAME.
func (m matcher) matchPathname(path string, p *pattern) bool {
	pat, prefix := p.text, p.noWildLen
	if strings.HasPrefix(pat, "/") {
		pat, prefix = pat[1:], prefix-1
	}
	base := p.base
	if len(path) < len(base)+1 || (base != "" && path[len(base)] != '/') || !m.equal(path[:len(base)], base) {
		return false
	}
	name := path
	if base != "" {
		name = path[len(base)+1:]
	}
	if prefix > 0 {
		if prefix > len(name) || !m.equal(pat[:prefix], name[:prefix]) {
			return false
		}
		pat, name = pat[prefix:], name[prefix:]
		if pat == "" && name == "" {
			return true
		}
	}
	return wildmatch(pat, name, m.wildFlags(true))
}

// lastMatch ports last_matching_pattern_from_list: the last pattern of the
// list that matches path (with its basename and type) wins, negative or not.
func (m matcher) lastMatch(list []pattern, path string, isDir bool) *pattern {
	basename := path[strings.LastIndexByte(path, '/')+1:]
	for i := len(list) - 1; i >= 0; i-- {
		p := &list[i]
		if p.flags&flagMustBeDir != 0 && !isDir {
			continue
		}
		if p.flags&flagNoDir != 0 {
			if m.matchBasename(basename, p) {
				return p
			}
			continue
		}
		if m.matchPathname(path, p) {
			return p
		}
	}
	return nil
}

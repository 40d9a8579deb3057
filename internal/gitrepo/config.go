package gitrepo

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// configEntry is one "section.subsection.key = value" assignment. section and
// key are lower-cased (git compares them case-insensitively); subsection is
// kept as written except in the legacy "[section.sub]" form. value is nil
// for a key written without "=" (a boolean true).
type configEntry struct {
	section, subsection, key string
	value                    *string
}

// maxIncludeDepth mirrors git's MAX_INCLUDE_DEPTH.
const maxIncludeDepth = 10

// configParser reads git config files (git-config(1) syntax) including
// include.path and the includeIf conditions gitdir:, gitdir/i: and onbranch:.
type configParser struct {
	gitDir string // for includeIf "gitdir:"
	branch string // short name of the checked-out branch, for "onbranch:"
	home   string
	out    []configEntry
	read   *[]string // every file parseFile was asked for (Repo.Sources), when set
}

// parseFile appends the entries of path. A missing file is not an error,
// matching git for optional sources and for includes.
func (c *configParser) parseFile(path string, depth int) error {
	if depth > maxIncludeDepth {
		return fmt.Errorf("config %s: exceeded maximum include depth (%d)", path, maxIncludeDepth)
	}
	if c.read != nil {
		*c.read = append(*c.read, path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("read config %s: %w", path, err)
	}
	return c.parse(data, path, depth)
}

type configScanner struct {
	data []byte
	pos  int
	line int
	name string
}

// next returns the next byte, folding CRLF into LF and reporting EOF as a
// final LF, like config.c's get_next_char.
func (s *configScanner) next() (byte, bool) {
	if s.pos >= len(s.data) {
		s.pos++
		s.line++
		return '\n', true
	}
	c := s.data[s.pos]
	s.pos++
	if c == '\r' && s.pos < len(s.data) && s.data[s.pos] == '\n' {
		c = '\n'
		s.pos++
	}
	if c == '\n' {
		s.line++
	}
	return c, false
}

func (s *configScanner) errorf(format string, args ...any) error {
	return fmt.Errorf("bad config line %d in file %s: %s", s.line+1, s.name, fmt.Sprintf(format, args...))
}

func isConfigKeyChar(c byte) bool { return isAlpha(c) || isDigit(c) || c == '-' }

// parse ports the structure of config.c's git_parse_source.
func (c *configParser) parse(data []byte, name string, depth int) error {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	s := &configScanner{data: data, name: name}
	var section, subsection string
	haveSection := false
	comment := false
	for {
		ch, eof := s.next()
		if eof {
			return nil
		}
		if ch == '\n' {
			comment = false
			continue
		}
		if comment || isSpace(ch) {
			continue
		}
		if ch == '#' || ch == ';' {
			comment = true
			continue
		}
		if ch == '[' {
			var err error
			section, subsection, err = parseSectionHeader(s)
			if err != nil {
				return err
			}
			haveSection = true
			continue
		}
		if !isAlpha(ch) || !haveSection {
			return s.errorf("unexpected character %q", ch)
		}
		key := []byte{toLower(ch)}
		for {
			ch, _ = s.next()
			if !isConfigKeyChar(ch) {
				break
			}
			key = append(key, toLower(ch))
		}
		for ch == ' ' || ch == '\t' {
			ch, _ = s.next()
		}
		var value *string
		switch ch {
		case '\n':
			s.pos-- // let the main loop see the end of line
			s.line--
		case '=':
			v, err := parseConfigValue(s)
			if err != nil {
				return err
			}
			value = &v
		default:
			return s.errorf("invalid key %q", string(key))
		}
		e := configEntry{section: section, subsection: subsection, key: string(key), value: value}
		c.out = append(c.out, e)
		if err := c.include(e, name, depth); err != nil {
			return err
		}
	}
}

func parseSectionHeader(s *configScanner) (section, subsection string, err error) {
	var name []byte
	for {
		ch, _ := s.next()
		if ch == '\n' {
			return "", "", s.errorf("unterminated section header")
		}
		if ch == ']' {
			sec := strings.ToLower(string(name))
			// Legacy "[section.sub]": the subsection is case-insensitive.
			if i := strings.IndexByte(sec, '.'); i >= 0 {
				return sec[:i], sec[i+1:], nil
			}
			return sec, "", nil
		}
		if isSpace(ch) {
			break
		}
		if !isConfigKeyChar(ch) && ch != '.' {
			return "", "", s.errorf("invalid section name")
		}
		name = append(name, ch)
	}
	// Extended form: [section "subsection"].
	ch, _ := s.next()
	for ch == ' ' || ch == '\t' {
		ch, _ = s.next()
	}
	if ch != '"' {
		return "", "", s.errorf("invalid section header")
	}
	var sub []byte
	for {
		ch, _ = s.next()
		if ch == '\n' {
			return "", "", s.errorf("unterminated subsection")
		}
		if ch == '"' {
			break
		}
		if ch == '\\' {
			ch, _ = s.next()
			if ch == '\n' {
				return "", "", s.errorf("unterminated subsection")
			}
		}
		sub = append(sub, ch)
	}
	if ch, _ = s.next(); ch != ']' {
		return "", "", s.errorf("invalid section header")
	}
	return strings.ToLower(string(name)), string(sub), nil
}

// parseConfigValue ports config.c's parse_value: quotes, the escapes \n \t
// \b \\ \", line continuation, comments and whitespace folding.
func parseConfigValue(s *configScanner) (string, error) {
	var out []byte
	quote, comment := false, false
	space := 0
	for {
		ch, eof := s.next()
		if ch == '\n' {
			if quote {
				return "", s.errorf("unterminated quoted value")
			}
			if !eof {
				s.pos--
				s.line--
			}
			return string(out), nil
		}
		if comment {
			continue
		}
		if isSpace(ch) && !quote {
			if len(out) > 0 {
				space++
			}
			continue
		}
		if !quote && (ch == ';' || ch == '#') {
			comment = true
			continue
		}
		for ; space > 0; space-- {
			out = append(out, ' ')
		}
		if ch == '\\' {
			ch, _ = s.next()
			switch ch {
			case '\n':
				continue
			case 't':
				ch = '\t'
			case 'b':
				ch = '\b'
			case 'n':
				ch = '\n'
			case '\\', '"':
			default:
				return "", s.errorf("invalid escape sequence")
			}
			out = append(out, ch)
			continue
		}
		if ch == '"' {
			quote = !quote
			continue
		}
		out = append(out, ch)
	}
}

// include follows include.path and the supported includeIf conditions.
func (c *configParser) include(e configEntry, from string, depth int) error {
	if e.key != "path" || e.value == nil {
		return nil
	}
	switch {
	case e.section == "include" && e.subsection == "":
	case e.section == "includeif" && c.conditionHolds(e.subsection, from):
	default:
		return nil
	}
	path := expandHome(*e.value, c.home)
	if !filepath.IsAbs(path) {
		path = filepath.Join(filepath.Dir(from), path)
	}
	return c.parseFile(path, depth+1)
}

// conditionHolds evaluates an includeIf condition. Conditions this package
// does not know (hasconfig:) are false, which is also what older gits do.
func (c *configParser) conditionHolds(cond, from string) bool {
	switch {
	case strings.HasPrefix(cond, "gitdir:"):
		return c.gitdirMatches(cond[len("gitdir:"):], from, false)
	case strings.HasPrefix(cond, "gitdir/i:"):
		return c.gitdirMatches(cond[len("gitdir/i:"):], from, true)
	case strings.HasPrefix(cond, "onbranch:"):
		if c.branch == "" {
			return false
		}
		pat := cond[len("onbranch:"):]
		if strings.HasSuffix(pat, "/") {
			pat += "**"
		}
		return wildmatch(pat, c.branch, wmPathname)
	}
	return false
}

// gitdirMatches follows config.c's include_by_gitdir pattern preparation.
func (c *configParser) gitdirMatches(pat, from string, icase bool) bool {
	if c.gitDir == "" {
		return false
	}
	switch {
	case strings.HasPrefix(pat, "./"):
		pat = filepath.ToSlash(filepath.Dir(from)) + pat[1:]
	case strings.HasPrefix(pat, "~/"):
		// git's interpolate_path: $HOME, then the pattern's rest as
		// written. filepath.Join would drop a trailing "/" (so "~/work/"
		// never became "~/work/**") and, on Windows, write backslashes,
		// which wildmatch reads as escapes. Without a home, git's
		// expansion fails and the condition is false.
		if c.home == "" {
			return false
		}
		pat = filepath.ToSlash(c.home) + pat[1:]
	case !filepath.IsAbs(pat):
		pat = "**/" + pat
	}
	if strings.HasSuffix(pat, "/") {
		pat += "**"
	}
	flags := wmPathname
	if icase {
		flags |= wmCaseFold
	}
	dirs := []string{c.gitDir}
	if real, err := filepath.EvalSymlinks(c.gitDir); err == nil && real != c.gitDir {
		dirs = append(dirs, real)
	}
	for _, d := range dirs {
		if wildmatch(pat, filepath.ToSlash(d), flags) {
			return true
		}
	}
	return false
}

// expandHome expands a leading "~/" (git's expand_user_path for the current
// user). "~user/" forms are left as written.
func expandHome(p, home string) string {
	if p == "~" {
		return home
	}
	if strings.HasPrefix(p, "~/") && home != "" {
		return filepath.Join(home, p[2:])
	}
	return p
}

// parseCommandLineConfig reads the configuration git passes to children
// (hooks) through GIT_CONFIG_PARAMETERS and GIT_CONFIG_COUNT, as `git -c`.
func parseCommandLineConfig(getenv func(string) string) ([]configEntry, error) {
	var out []configEntry
	add := func(spec string, value *string) error {
		dot, last := strings.IndexByte(spec, '.'), strings.LastIndexByte(spec, '.')
		if dot <= 0 || last == len(spec)-1 {
			return fmt.Errorf("invalid config key %q from the environment", spec)
		}
		e := configEntry{section: strings.ToLower(spec[:dot]), key: strings.ToLower(spec[last+1:]), value: value}
		if last > dot {
			e.subsection = spec[dot+1 : last]
		}
		out = append(out, e)
		return nil
	}
	if params := getenv("GIT_CONFIG_PARAMETERS"); params != "" {
		items, err := sqDequoteList(params)
		if err != nil {
			return nil, fmt.Errorf("GIT_CONFIG_PARAMETERS: %w", err)
		}
		for _, it := range items {
			// New format: 'key'='value' (it.value set); old: 'key=value'.
			if it.hasValue {
				v := it.value
				if err := add(it.key, &v); err != nil {
					return nil, err
				}
				continue
			}
			if i := strings.IndexByte(it.key, '='); i >= 0 {
				v := it.key[i+1:]
				if err := add(it.key[:i], &v); err != nil {
					return nil, err
				}
				continue
			}
			if err := add(it.key, nil); err != nil {
				return nil, err
			}
		}
	}
	if countStr := getenv("GIT_CONFIG_COUNT"); countStr != "" {
		n, err := strconv.Atoi(countStr)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("GIT_CONFIG_COUNT: bogus count %q", countStr)
		}
		for i := 0; i < n; i++ {
			key := getenv(fmt.Sprintf("GIT_CONFIG_KEY_%d", i))
			if key == "" {
				return nil, fmt.Errorf("GIT_CONFIG_KEY_%d: missing config key", i)
			}
			v := getenv(fmt.Sprintf("GIT_CONFIG_VALUE_%d", i))
			if err := add(key, &v); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

type sqItem struct {
	key, value string
	hasValue   bool
}

// sqDequoteList parses the shell-quoted list in GIT_CONFIG_PARAMETERS:
// whitespace-separated items, each 'key' or 'key'='value', where a quote
// inside a quoted string is written as quote, backslash, quote, quote.
func sqDequoteList(s string) ([]sqItem, error) {
	var items []sqItem
	i := 0
	word := func() (string, error) {
		if i >= len(s) || s[i] != '\'' {
			return "", fmt.Errorf("malformed value %q", s)
		}
		var b []byte
		i++
		for {
			if i >= len(s) {
				return "", fmt.Errorf("unterminated quote in %q", s)
			}
			if s[i] != '\'' {
				b = append(b, s[i])
				i++
				continue
			}
			i++
			if strings.HasPrefix(s[i:], "\\''") {
				b = append(b, '\'')
				i += 3
				continue
			}
			return string(b), nil
		}
	}
	for {
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		if i >= len(s) {
			return items, nil
		}
		k, err := word()
		if err != nil {
			return nil, err
		}
		it := sqItem{key: k}
		if i < len(s) && s[i] == '=' {
			i++
			if it.value, err = word(); err != nil {
				return nil, err
			}
			it.hasValue = true
		}
		items = append(items, it)
	}
}

// parseBool follows git's git_parse_maybe_bool; ok is false for a value
// that is not a boolean.
func parseBool(v *string) (val, ok bool) {
	if v == nil {
		return true, true
	}
	switch strings.ToLower(*v) {
	case "true", "yes", "on":
		return true, true
	case "false", "no", "off", "":
		return false, true
	}
	if n, err := strconv.ParseInt(*v, 0, 64); err == nil {
		return n != 0, true
	}
	return false, false
}

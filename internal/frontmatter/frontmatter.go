// Package frontmatter is the restricted frontmatter scanner of EchoesVault
// Protocol 1.0.0 (echoes-conformance §9 steps 4-8). It is deliberately not a
// YAML parser: it recognises top-level "key: value" lines, reports duplicate
// keys, decides whether a key is valued, and decodes the three scalar forms
// the protocol accepts. Acceptance must match the reference engine exactly,
// because a page one writer accepts and another rejects blocks the shared
// index on one side only.
package frontmatter

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/git-echoes/git-echoes/internal/pyjson"
	"github.com/git-echoes/git-echoes/internal/pytext"
)

// Error is a frontmatter rejection; its message is the reference engine's.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

func errorf(format string, args ...any) error { return &Error{Msg: fmt.Sprintf(format, args...)} }

// Key is one top-level key line of the frontmatter block.
type Key struct {
	Name   string
	Raw    string // inline value: the text after the colon and the whitespace after it
	Line   int    // index into Block.Lines
	Valued bool   // non-blank inline value, or followed by an indented line
}

// Block is a scanned frontmatter block.
type Block struct {
	Lines []string // splitlines of the text, up to and including the closing line
	Close int      // index of the closing "---" line
	Keys  []Key    // top-level keys in order of appearance
}

// Get returns the key named name, if present.
func (b *Block) Get(name string) (Key, bool) {
	for _, k := range b.Keys {
		if k.Name == name {
			return k, true
		}
	}
	return Key{}, false
}

// Scan reads the frontmatter block at the start of text, which the caller has
// already normalized (strip + "\n") and checked for conflict markers.
func Scan(text string) (*Block, error) {
	first, pos, ok := pytext.NextLine(text, 0)
	if !ok || first != "---" {
		return nil, errorf("Every page must begin with YAML frontmatter.")
	}
	// Collect lines only up to the closing delimiter: page bodies can be
	// large and are never needed here.
	lines := []string{first}
	closing := -1
	for {
		var line string
		line, pos, ok = pytext.NextLine(text, pos)
		if !ok {
			break
		}
		lines = append(lines, line)
		if line == "---" {
			closing = len(lines) - 1
			break
		}
	}
	if closing < 0 {
		return nil, errorf("YAML frontmatter is missing its closing '---'.")
	}
	if closing == 1 {
		return nil, errorf("YAML frontmatter cannot be empty.")
	}
	b := &Block{Lines: lines, Close: closing}
	seen := make(map[string]bool)
	for i := 1; i < closing; i++ {
		line := lines[i]
		if Skippable(line) || startsIndented(line) {
			continue
		}
		name, raw, ok := KeyLine(line)
		if !ok {
			continue // the reference silently ignores lines that are not key lines
		}
		if seen[name] {
			return nil, errorf("YAML frontmatter contains duplicate key: %s", name)
		}
		seen[name] = true
		b.Keys = append(b.Keys, Key{Name: name, Raw: raw, Line: i, Valued: !pytext.IsBlank(raw) || indentedValueFollows(lines, i+1, closing)})
	}
	return b, nil
}

// Skippable reports blank lines and comment lines (first non-whitespace
// character is '#', indented comments included).
func Skippable(line string) bool {
	t := pytext.LStrip(line)
	return t == "" || t[0] == '#'
}

func startsIndented(line string) bool {
	r, _ := utf8.DecodeRuneInString(line)
	return line != "" && pytext.IsSpace(r)
}

// indentedValueFollows reports whether the first non-blank, non-comment line
// in lines[from:end] is indented (a block value such as "  - go").
func indentedValueFollows(lines []string, from, end int) bool {
	for i := from; i < end; i++ {
		if Skippable(lines[i]) {
			continue
		}
		return startsIndented(lines[i])
	}
	return false
}

// KeyLine matches ^([A-Za-z][A-Za-z0-9_-]*):\s*(.*)$ with \s as Python's
// whitespace set.
func KeyLine(line string) (name, raw string, ok bool) {
	if line == "" || !isASCIILetter(line[0]) {
		return "", "", false
	}
	i := 1
	for i < len(line) && (isASCIILetter(line[i]) || (line[i] >= '0' && line[i] <= '9') || line[i] == '_' || line[i] == '-') {
		i++
	}
	if i >= len(line) || line[i] != ':' {
		return "", "", false
	}
	return line[:i], pytext.LStrip(line[i+1:]), true
}

func isASCIILetter(c byte) bool { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') }

// Missing returns the keys of required that are absent or not valued, in the
// order of required.
func (b *Block) Missing(required []string) []string {
	var missing []string
	for _, name := range required {
		if k, ok := b.Get(name); !ok || !k.Valued {
			missing = append(missing, name)
		}
	}
	return missing
}

// MissingError is the reference message for missing required keys.
func MissingError(missing []string) error {
	return errorf("YAML frontmatter is missing required keys: %s", strings.Join(missing, ", "))
}

// DecodeScalar decodes the inline value of key as a plain, single-quoted or
// JSON double-quoted scalar string (echoes-conformance §9 step 8).
func DecodeScalar(key, raw string) (string, error) { return decodeScalar(key, raw, false) }

// DecodeUnwrittenScalar is DecodeScalar for values that are compared but
// never written (type, status). Python's json.loads keeps a lone surrogate
// escape such as "\ud800" in the string, so the reference accepts the page;
// the value is decoded here with U+FFFD in its place, which no comparison
// the protocol makes can tell apart.
func DecodeUnwrittenScalar(key, raw string) (string, error) { return decodeScalar(key, raw, true) }

func decodeScalar(key, raw string, keepLoneSurrogates bool) (string, error) {
	v := pytext.Strip(raw)
	switch {
	case v == "":
		return "", errorf("YAML frontmatter key '%s' must have an inline value.", key)
	case v[0] == '"':
		decoded, err := pyjson.Decode(v)
		var lone *pyjson.LoneSurrogateError
		if keepLoneSurrogates && errors.As(err, &lone) {
			err = nil
		}
		if err != nil {
			return "", errorf("Invalid quoted YAML value for %s: %s", key, err.Error())
		}
		if decoded.Kind != pyjson.String {
			return "", errorf("YAML frontmatter key '%s' must be a string.", key)
		}
		return decoded.S, nil
	case len(v) >= 2 && v[0] == '\'' && v[len(v)-1] == '\'':
		return strings.ReplaceAll(v[1:len(v)-1], "''", "'"), nil
	default:
		return v, nil
	}
}

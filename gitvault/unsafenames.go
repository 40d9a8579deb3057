package gitvault

import (
	"fmt"
	"unicode"

	"github.com/git-echoes/git-echoes/internal/pyjson"
)

// Page names that inject lines (issue 11 item 6). The protocol (echoes-conformance §8.1) filters
// nothing but separators and dots, and copies a page's name verbatim into index.md
// (echoes-conformance §11) and the start context (echoes-conformance §15.5), which agents read
// as instructions. A name holding a line break, a line or paragraph separator or a bidi override
// therefore forges headings and list items there, or shows a different name than the one on disk.
//
// Deliberate deviation from the reference: the writers (upsert, end) refuse such a name,
// checked after the protocol's whitespace strip and NFC, so a trailing newline or U+2028 is still
// stripped as the reference strips it. A page another engine already created keeps the index
// bytes the protocol defines (every engine renders the same index); check reports it under
// ruleUnsafeName and inspect under health.unsafePageNames, so it can be renamed.

// unsafeNameRune returns the first character of name that would let it inject text into what
// agents read, and what kind of character it is: a Unicode Cc control (U+0000-U+001F,
// U+007F-U+009F), a line or paragraph separator (U+2028, U+2029), or a bidirectional control
// (U+200E, U+200F, U+202A-U+202E, U+2066-U+2069).
func unsafeNameRune(name string) (rune, string, bool) {
	for _, r := range name {
		switch {
		case unicode.Is(unicode.Cc, r):
			return r, "a control character", true
		case r == '\u2028':
			return r, "a line separator", true
		case r == '\u2029':
			return r, "a paragraph separator", true
		case r == '\u200e' || r == '\u200f' || (r >= '\u202a' && r <= '\u202e') || (r >= '\u2066' && r <= '\u2069'):
			return r, "a bidirectional control", true
		}
	}
	return 0, "", false
}

// UnsafeNameDetail describes why name is unsafe, or "" when it is not.
func UnsafeNameDetail(name string) string {
	r, kind, bad := unsafeNameRune(name)
	if !bad {
		return ""
	}
	return fmt.Sprintf("U+%04X, %s", r, kind)
}

// RefuseUnsafePageName refuses to write a page whose normalized file name (after
// echoes-conformance §8.1) holds an unsafe character.
func RefuseUnsafePageName(name string) error {
	if d := UnsafeNameDetail(name); d != "" {
		return Errorf("Page filename must not contain control, line-separator or bidirectional-control characters: %s holds %s.",
			pyjson.ReprString(name), d)
	}
	return nil
}

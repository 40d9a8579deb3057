package importer

import (
	"strconv"
	"strings"
	"unicode"

	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/internal/pytext"
)

// The page name of an imported record (protocol §7.1). A source name is
// made a page name by replacing what no page name may hold, and what would
// break a [[wikilink]] to it, with "-": path separators, the characters
// Windows reserves (<>:"|?*), the link syntax (#^[]|), control, line
// separator and bidirectional control characters. Whitespace runs become
// one space; ".." becomes "."; leading and trailing dots and spaces go (a
// leading dot hides a page, a trailing one Windows drops). Non-ASCII
// letters are kept, in NFC. What is left and still cannot exist on every
// OS, a reserved device name such as CON or LPT1, is refused: renaming it
// silently would leave links pointing at a name that does not exist.

const maxStemRunes = 120

// sanitizeStem maps a source name to a page stem.
func sanitizeStem(s string) string {
	s = pytext.NFC(s)
	var b strings.Builder
	space := false
	for _, r := range s {
		switch {
		case r == ' ' || r == '\t' || unicode.Is(unicode.Zs, r):
			space = true
			continue
		case unicode.Is(unicode.Cc, r), r == '\u2028', r == '\u2029',
			r == '\u200e', r == '\u200f', r >= '\u202a' && r <= '\u202e', r >= '\u2066' && r <= '\u2069',
			strings.ContainsRune(`/\<>:"|?*#^[]`, r):
			r = '-'
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	out := b.String()
	for strings.Contains(out, "..") {
		out = strings.ReplaceAll(out, "..", ".")
	}
	out = strings.Trim(out, ". ")
	if r := []rune(out); len(r) > maxStemRunes {
		out = strings.TrimRight(string(r[:maxStemRunes]), ". ")
	}
	if out == "" {
		out = "untitled"
	}
	return out
}

// Renamed reports a record whose page name differs from its source name.
type Renamed struct {
	Source string `json:"source"`
	From   string `json:"from"`
	To     string `json:"to"`
	Reason string `json:"reason"`
}

// assignNames gives every doc a page stem: its sanitized name, or, when an
// earlier doc (in the docs' order, which callers make deterministic)
// already holds that stem after NFC and case folding (protocol §7.1), the
// stem with " 2", " 3", ... appended. Names no OS can check out are
// refused as problems.
func assignNames(docs []*doc) ([]Renamed, []Problem) {
	var renamed []Renamed
	var problems []Problem
	taken := map[string]string{} // folded stem -> source key
	for _, d := range docs {
		base := sanitizeStem(d.wantName)
		if _, err := gitvault.ImportPageName(base); err != nil {
			problems = append(problems, Problem{File: d.sourceFile, Line: d.line, Message: "name " + strconv.Quote(d.wantName) + ": " + gitvault.ErrorMessage(err)})
			continue
		}
		stem := base
		for i := 2; ; i++ {
			if _, ok := taken[pytext.Casefold(pytext.NFC(stem))]; !ok {
				break
			}
			stem = base + " " + strconv.Itoa(i)
		}
		taken[pytext.Casefold(pytext.NFC(stem))] = d.key
		d.stem = stem
		switch {
		case stem != base:
			renamed = append(renamed, Renamed{Source: d.key, From: d.wantName, To: stem, Reason: "collides with another imported name after case folding and NFC; numbered"})
		case base != d.wantName:
			renamed = append(renamed, Renamed{Source: d.key, From: d.wantName, To: stem, Reason: "characters a page name or a wikilink cannot hold were replaced"})
		}
	}
	return renamed, problems
}

// Package analysis turns text into the search terms of `git echoes find`
// (issue 12): the one tokenizer the ranked-search index and its queries
// share, so a document and a query always agree on what a word is.
//
// The pipeline, per word:
//
//  1. NFKC normalization (compatibility forms such as ﬁ or full-width
//     letters become their plain letters);
//  2. compounds: a run of letters and digits joined by single connector
//     characters (- _ . / ' ’) is one compound; anything else separates;
//  3. parts: a compound splits at its connectors and at case boundaries
//     (camelCase, HTTPServer, v2Parser), so rate-limit, rate_limit,
//     rateLimit and "rate limit" all give the parts rate, limit;
//  4. folding: case folding (pytext.Casefold, Python's str.casefold) and
//     removal of combining marks, so café, CAFÉ and cafe agree;
//  5. stemming: English Snowball (Porter2) for ASCII-letter words, so
//     retries, retrying and retried agree.
//
// The whole compound is kept too (ratelimit, maxretries), so a query
// written as one word still finds the compound and the other way round.
// Terms contain only ASCII letters and digits or non-ASCII letters,
// digits and marks: never an ASCII separator.
package analysis

import (
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/english"
	"golang.org/x/text/unicode/norm"

	"github.com/git-echoes/git-echoes/internal/pytext"
)

// Version names the analysis: an index built by another version is
// rebuilt, never trusted. Bump it whenever any output of this package
// changes.
const Version = "1"

// MaxWordBytes bounds one part or compound; longer runs (base64, hashes)
// are cut there, so a pathological token cannot bloat the index.
const MaxWordBytes = 64

// Compound is one compound of the text: its parts in order, each folded
// (Surface) and stemmed (Stem), the folded whole when it has more than
// one part, and the line it starts on (1-based).
type Compound struct {
	Surfaces []string
	Stems    []string
	Whole    string // folded concatenation of the parts; "" for a single part
	Line     int
}

// Analyze splits text into compounds. Lines are counted at \n, \r\n and
// \r; other text is left to the caller's line rules.
func Analyze(text string) []Compound {
	text = norm.NFKC.String(text)
	var out []Compound
	line := 1
	i := 0
	for i < len(text) {
		r, n := utf8.DecodeRuneInString(text[i:])
		if !isWordRune(r) {
			if r == '\n' || (r == '\r' && !strings.HasPrefix(text[i+n:], "\n")) {
				line++
			}
			i += n
			continue
		}
		// A compound: word runs joined by single connectors.
		start := i
		end := i
		for j := i; j < len(text); {
			r, n := utf8.DecodeRuneInString(text[j:])
			if isWordRune(r) {
				j += n
				end = j
				continue
			}
			if isConnector(r) && j+n < len(text) {
				r2, _ := utf8.DecodeRuneInString(text[j+n:])
				if isWordRune(r2) {
					j += n
					continue
				}
			}
			break
		}
		if c, ok := compound(text[start:end], line); ok {
			out = append(out, c)
		}
		i = end
	}
	return out
}

// compound analyzes one compound's raw text.
func compound(raw string, line int) (Compound, bool) {
	c := Compound{Line: line}
	for _, p := range splitParts(raw) {
		f := Fold(p)
		if f == "" {
			continue
		}
		c.Surfaces = append(c.Surfaces, f)
		c.Stems = append(c.Stems, Stem(f))
	}
	if len(c.Surfaces) == 0 {
		return c, false
	}
	if len(c.Surfaces) > 1 {
		c.Whole = clip(strings.Join(c.Surfaces, ""))
	}
	return c, true
}

// splitParts splits a compound at connectors and case boundaries:
// lower→Upper (parseConfig), Upper→Upper+lower (HTTPServer), and
// letter↔digit is not a boundary (v2, utf8 stay whole).
func splitParts(raw string) []string {
	var parts []string
	runes := []rune(raw)
	start := 0
	flush := func(end int) {
		if end > start {
			parts = append(parts, string(runes[start:end]))
		}
		start = end
	}
	for k := 0; k < len(runes); k++ {
		r := runes[k]
		if isConnector(r) {
			flush(k)
			start = k + 1
			continue
		}
		if k == start {
			continue
		}
		prev := runes[k-1]
		switch {
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			flush(k)
		case unicode.IsUpper(r) && unicode.IsUpper(prev) && k+1 < len(runes) && unicode.IsLower(runes[k+1]):
			flush(k)
		}
	}
	flush(len(runes))
	return parts
}

// Fold is steps 1 and 4 for one word: NFKC, case folding, combining
// marks removed, cut at MaxWordBytes on a rune boundary. Characters that
// are not letters, digits or marks are dropped, so the result is a term.
func Fold(w string) string {
	if isASCII(w) {
		// NFKC and case folding of ASCII are lowercasing.
		b := make([]byte, 0, len(w))
		for i := 0; i < len(w); i++ {
			c := w[i]
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
				b = append(b, c)
			}
		}
		return clip(string(b))
	}
	w = pytext.Casefold(norm.NFKC.String(w))
	var b strings.Builder
	if isASCII(w) {
		for i := 0; i < len(w); i++ {
			if c := w[i]; c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
				b.WriteByte(c)
			}
		}
		return clip(b.String())
	}
	for _, r := range norm.NFD.String(w) {
		if unicode.Is(unicode.Mn, r) || !(unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsNumber(r) || unicode.IsMark(r)) {
			continue
		}
		b.WriteRune(r)
	}
	return clip(norm.NFC.String(b.String()))
}

// Stem is step 5: the English Snowball stem of a folded word made of
// ASCII letters; other words are their own stem.
func Stem(w string) string {
	if len(w) < 3 {
		return w
	}
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return w
		}
	}
	if s, ok := stemCache.Load(w); ok {
		return s.(string)
	}
	env := snowballstem.NewEnv(w)
	english.Stem(env)
	s := env.Current()
	if s == "" {
		s = w
	}
	// Text repeats its words: most stems come from the cache. It is
	// bounded, so a stream of distinct words cannot grow it without end.
	if stemCached.Add(1) <= maxStemCache {
		stemCache.Store(strings.Clone(w), s)
	}
	return s
}

const maxStemCache = 1 << 17

var (
	stemCache  sync.Map // folded word → stem
	stemCached atomic.Int64
)

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func clip(s string) string {
	if len(s) <= MaxWordBytes {
		return s
	}
	cut := MaxWordBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

// isWordRune: letters, digits and marks (a combining accent belongs to
// its letter).
func isWordRune(r rune) bool {
	return r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') ||
		r >= utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r))
}

// isConnector: the characters that join the parts of one compound.
func isConnector(r rune) bool {
	switch r {
	case '-', '_', '.', '/', '\'', '\u2019', '\u2010', '\u2011':
		return true
	}
	return false
}

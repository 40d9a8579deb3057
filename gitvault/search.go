package gitvault

import (
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/git-echoes/git-echoes/internal/jsonx"
	"github.com/git-echoes/git-echoes/internal/pytext"
)

// SearchHit is one matching page line.
type SearchHit struct {
	File string // workspace-relative, OS separators
	Line int    // 1-based, splitlines numbering
	Text string // stripped, at most 300 code points
}

// Search scans top-level page bodies for a literal, case-insensitive
// substring (§15.7). It is read-only.
func (e *Engine) Search(query string, limit int) (jsonx.Value, error) {
	if err := e.WS.Gate(); err != nil {
		return jsonx.Value{}, err
	}
	q := pytext.Strip(query)
	if q == "" {
		return jsonx.Value{}, errorf("Search query cannot be empty.")
	}
	limit = max(1, min(limit, MaxLimit))
	hits, truncated, err := e.search(q, limit)
	if err != nil {
		return jsonx.Value{}, err
	}
	results := make([]jsonx.Value, len(hits))
	for i, h := range hits {
		results[i] = jsonx.ObjectValue(jsonx.NewObj().Set("file", jsonx.Str(h.File)).
			Set("line", jsonx.Int(int64(h.Line))).Set("text", jsonx.Str(h.Text)))
	}
	return jsonx.ObjectValue(jsonx.NewObj().Set("ok", jsonx.Boolean(true)).
		Set("query", jsonx.Str(q)).
		Set("truncated", jsonx.Boolean(truncated)).
		Set("results", jsonx.Arr(results...))), nil
}

func (e *Engine) search(q string, limit int) ([]SearchHit, bool, error) {
	src := dirSource{e.WS.Pages}
	names, err := src.PageNames()
	if err != nil {
		return nil, false, wrapf(err, "Cannot list pages in %s: %s", e.WS.Pages, osDetail(err))
	}
	m := newMatcher(q)
	relDir := e.WS.Rel(e.WS.Pages)
	// Pages are read and matched in parallel chunks but consumed in listing
	// order, so the result is the reference's sequential scan, including
	// where it stops.
	var hits []SearchHit
	const chunk = 256
	for start := 0; start < len(names); start += chunk {
		part := names[start:min(start+chunk, len(names))]
		found := make([][]SearchHit, len(part))
		errs := make([]error, len(part))
		parallel(len(part), func(i int) {
			data, err := src.ReadPage(part[i])
			if err != nil {
				errs[i] = wrapf(err, "Cannot read page %s: %s", part[i], osDetail(err))
				return
			}
			if !utf8.Valid(data) {
				errs[i] = errorf("Cannot read page %s: invalid UTF-8", part[i])
				return
			}
			found[i] = m.scan(string(data), filepath.Join(relDir, part[i]), limit+1)
		})
		for i := range part {
			if errs[i] != nil {
				return nil, false, errs[i]
			}
			for _, h := range found[i] {
				if len(hits) == limit {
					// One match beyond the limit proves truncation (the
					// reference reports it at exactly limit matches, §15.7 Quirk).
					return hits, true, nil
				}
				hits = append(hits, h)
			}
		}
	}
	return hits, false, nil
}

// matcher finds lines whose casefold contains the folded query.
type matcher struct {
	folded      string
	asciiFolded bool // folded query is ASCII: allows a byte-level prefilter
}

func newMatcher(q string) *matcher {
	f := pytext.Casefold(q)
	ascii := true
	for i := 0; i < len(f); i++ {
		if f[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	return &matcher{folded: f, asciiFolded: ascii}
}

// scan returns up to max hits of one page's raw (valid UTF-8) bytes.
func (m *matcher) scan(raw, file string, max int) []SearchHit {
	if m.asciiFolded && isASCIIString(raw) && !containsFoldASCII(raw, m.folded) {
		// For pure-ASCII text, casefold is ASCII lowercasing, so no line can
		// match when the whole page does not.
		return nil
	}
	text := pytext.UniversalNewlines(raw)
	var hits []SearchHit
	lineNo := 0
	for pos := 0; ; {
		line, next, ok := pytext.NextLine(text, pos)
		if !ok {
			break
		}
		pos = next
		lineNo++
		if !m.lineMatches(line) {
			continue
		}
		hits = append(hits, SearchHit{File: file, Line: lineNo, Text: pytext.Truncate(pytext.Strip(line), SearchTextLimit)})
		if len(hits) >= max {
			break
		}
	}
	return hits
}

func (m *matcher) lineMatches(line string) bool {
	if isASCIIString(line) {
		if !m.asciiFolded {
			return false // folding ASCII yields ASCII: a non-ASCII query cannot match
		}
		return containsFoldASCII(line, m.folded)
	}
	return strings.Contains(pytext.Casefold(line), m.folded)
}

func isASCIIString(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// containsFoldASCII reports whether the ASCII-lowercased s contains the
// lowercase ASCII needle.
func containsFoldASCII(s, needle string) bool {
	n := len(needle)
	if n == 0 {
		return true
	}
	first := needle[0]
	upper := first
	if first >= 'a' && first <= 'z' {
		upper = first - 'a' + 'A'
	}
	for i := 0; i+n <= len(s); i++ {
		c := s[i]
		if c != first && c != upper {
			j := strings.IndexByte(s[i+1:], first)
			k := -1
			if upper != first {
				k = strings.IndexByte(s[i+1:], upper)
			}
			switch {
			case j < 0 && k < 0:
				return false
			case j < 0 || (k >= 0 && k < j):
				j = k
			}
			i += j // loop increment adds the final 1
			continue
		}
		if equalFoldASCII(s[i:i+n], needle) {
			return true
		}
	}
	return false
}

func equalFoldASCII(s, lower string) bool {
	for i := 0; i < len(lower); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

func itoa(n int) string { return strconv.Itoa(n) }

package gitvault

import (
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/git-echoes/git-echoes/internal/fsx"
	"github.com/git-echoes/git-echoes/internal/pyjson"
	"github.com/git-echoes/git-echoes/internal/pytext"
)

// SearchHit is one matching page line.
type SearchHit struct {
	File string // workspace-relative, OS separators
	Line int    // 1-based, splitlines numbering
	Text string // stripped, at most 300 code points
}

// SearchResult is the outcome of Search.
type SearchResult struct {
	Query     string // the query as matched: stripped
	Truncated bool   // more lines matched than the limit
	Hits      []SearchHit
}

// JSON renders {"ok", "query", "truncated", "results"}, results as
// {"file", "line", "text"}.
func (r *SearchResult) JSON() pyjson.Value {
	results := make([]pyjson.Value, len(r.Hits))
	for i, h := range r.Hits {
		results[i] = pyjson.ObjectValue(pyjson.NewObj().Set("file", pyjson.Str(h.File)).
			Set("line", pyjson.Int(int64(h.Line))).Set("text", pyjson.Str(h.Text)))
	}
	return pyjson.ObjectValue(pyjson.NewObj().Set("ok", pyjson.Boolean(true)).
		Set("query", pyjson.Str(r.Query)).
		Set("truncated", pyjson.Boolean(r.Truncated)).
		Set("results", pyjson.Arr(results...)))
}

// Search scans top-level page bodies for a literal, case-insensitive
// substring (echoes-conformance §15.7). It is read-only.
func (e *Engine) Search(query string, limit int) (*SearchResult, error) {
	if err := e.WS.Gate(); err != nil {
		return nil, err
	}
	q := pytext.Strip(query)
	if q == "" {
		return nil, Errorf("Search query cannot be empty.")
	}
	limit = max(1, min(limit, MaxLimit))
	hits, truncated, err := e.search(q, limit)
	if err != nil {
		return nil, err
	}
	return &SearchResult{Query: q, Truncated: truncated, Hits: hits}, nil
}

func (e *Engine) search(q string, limit int) ([]SearchHit, bool, error) {
	src := DirSource{e.WS.Pages}
	names, err := src.PageNames()
	if err != nil {
		return nil, false, Wrapf(err, "Cannot list pages in %s: %s", e.WS.Pages, OSDetail(err))
	}
	tc := e.textCache()
	var dir *fsx.Dir
	if tc != nil {
		if dir, err = fsx.OpenDir(e.WS.Pages); err != nil {
			tc, dir = nil, nil // read as without the cache, errors included
		} else {
			defer dir.Close()
			tc.retain(names)
		}
	}
	return SearchPages(src, names, e.WS.Rel(e.WS.Pages), q, limit, tc, dir)
}

// SearchPages scans the named pages of src; hits name files below relDir.
// tc and dir, both set or both nil, are the long-lived engine's page-text
// cache and the open pages directory its stamps are taken from (the work
// tree only: a snapshot passes nil).
func SearchPages(src pageSource, names []string, relDir, q string, limit int, tc *textCache, dir *fsx.Dir) ([]SearchHit, bool, error) {
	read, done := bufferedReader(src)
	defer done()
	m := newMatcher(q)
	// Pages are read and matched in parallel chunks but consumed in listing
	// order, so the result is the reference's sequential scan, including
	// where it stops.
	var hits []SearchHit
	const chunk = 256
	for start := 0; start < len(names); start += chunk {
		part := names[start:min(start+chunk, len(names))]
		found := make([][]SearchHit, len(part))
		errs := make([]error, len(part))
		parallelWorkers(len(part), func() func(int) {
			var buf []byte
			return func(i int) {
				name := part[i]
				var st fsx.Stamp
				var since int64
				stamped := false
				if tc != nil {
					since = time.Now().UnixNano()
					var err error
					st, err = dir.Stamp(name)
					stamped = err == nil && st.IsRegular()
					if t, ok := tc.lookup(name, st); ok && stamped {
						found[i] = m.scanKnown(t.text, filepath.Join(relDir, name), limit+1, t.ascii)
						return
					}
				}
				var err error
				buf, err = read(name, buf)
				if err != nil {
					errs[i] = Wrapf(err, "Cannot read page %s: %s", name, OSDetail(err))
					if tc != nil {
						tc.forget(name)
					}
					return
				}
				if !utf8.Valid(buf) {
					errs[i] = Errorf("Cannot read page %s: invalid UTF-8", name)
					if tc != nil {
						tc.forget(name)
					}
					return
				}
				if stamped {
					text := string(buf)
					tc.store(name, cachedText{stamp: st, since: since, text: text, ascii: isASCIIString(text)})
				}
				// The buffer is reused: scan copies what it keeps.
				found[i] = m.scan(unsafeString(buf), filepath.Join(relDir, name), limit+1)
			}
		})
		for i := range part {
			if errs[i] != nil {
				return nil, false, errs[i]
			}
			for _, h := range found[i] {
				if len(hits) == limit {
					// One match beyond the limit proves truncation (the
					// reference reports it at exactly limit matches, echoes-conformance §15.7 Quirk).
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
	return m.scanKnown(raw, file, max, m.asciiFolded && isASCIIString(raw))
}

// scanKnown is scan with isASCIIString(raw) already known (kept page
// texts record it) when the folded query is ASCII; ascii is ignored
// otherwise.
func (m *matcher) scanKnown(raw, file string, max int, ascii bool) []SearchHit {
	if m.asciiFolded && ascii && !containsFoldASCII(raw, m.folded) {
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
		text := strings.Clone(pytext.Truncate(pytext.Strip(line), searchTextLimit))
		hits = append(hits, SearchHit{File: file, Line: lineNo, Text: text})
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

// isASCIIString reports whether s is pure ASCII, eight bytes at a time.
func isASCIIString(s string) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		if w&0x8080808080808080 != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// englishRank orders bytes from rare to common in source text and prose, so
// the prefilter anchors on the needle byte least likely to occur.
const englishRank = "QJZXqjzxKVkvBYGPWFMUCby0123456789gwfpmucdlhrsnioate"

func anchorIndex(needle string) int {
	best, bestRank := 0, len(englishRank)+1
	for i := 0; i < len(needle); i++ {
		r := strings.IndexByte(englishRank, needle[i])
		if r < 0 {
			r = -1 // punctuation and symbols are rarer than any letter
		}
		if r < bestRank {
			best, bestRank = i, r
		}
	}
	return best
}

// containsFoldASCII reports whether the ASCII-lowercased s contains the
// lowercase ASCII needle. It jumps between occurrences of the needle's
// rarest byte (either case) with IndexByte, which is vectorized.
func containsFoldASCII(s, needle string) bool {
	n := len(needle)
	if n == 0 {
		return true
	}
	a := anchorIndex(needle)
	lo := needle[a]
	up := lo
	if lo >= 'a' && lo <= 'z' {
		up = lo - 'a' + 'A'
	}
	for pos := a; pos < len(s); {
		j := strings.IndexByte(s[pos:], lo)
		if up != lo {
			if k := strings.IndexByte(s[pos:], up); k >= 0 && (j < 0 || k < j) {
				j = k
			}
		}
		if j < 0 {
			return false
		}
		at := pos + j - a
		if at+n <= len(s) && equalFoldASCII(s[at:at+n], needle) {
			return true
		}
		pos += j + 1
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

// unsafeString views b as a string without copying; the caller must not
// keep the string (or substrings of it) past the next change to b.
func unsafeString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

func itoa(n int) string { return strconv.Itoa(n) }

package memory

import (
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/git-echoes/git-echoes/internal/jsjson"
	"github.com/git-echoes/git-echoes/internal/jstext"
)

// SearchOptions are the search parameters. Scopes nil means project and
// team. Kinds nil means every kind. Trust "" means no trust filter.
// TargetHarness "" means no harness filter; otherwise only memories
// targeted at it or "all" are returned (an adapter's identity). Limit is
// clamped with NormalizeLimit (0 means 20).
type SearchOptions struct {
	Query         string
	Scopes        []string
	Kinds         []string
	Trust         string
	TargetHarness string
	Limit         int
}

// SearchResult is one ranked memory (summary, without body).
type SearchResult struct {
	Memory  *Memory
	Path    string
	Score   int
	Excerpt string
}

// JSONValue is the result's JSON object in the reference's key order
// (jsjson.Valuer).
func (r SearchResult) JSONValue() any {
	return jsjson.Object{{Key: "memory", Value: r.Memory.Summary()}, {Key: "score", Value: r.Score}, {Key: "excerpt", Value: r.Excerpt}}
}

// SearchResponse holds ranked results and the complete scan diagnostics;
// callers must not read results as a complete inventory when
// Diagnostics.Truncated or InvalidFileCount say otherwise.
type SearchResponse struct {
	Results     []SearchResult
	Diagnostics Diagnostics
}

// JSON returns the {"results", "diagnostics"} object.
func (s *SearchResponse) JSON() jsjson.Object {
	res := make([]any, len(s.Results))
	for i, r := range s.Results {
		res[i] = r
	}
	return jsjson.Object{{Key: "results", Value: res}, {Key: "diagnostics", Value: &s.Diagnostics}}
}

// RedactedJSON is the form an MCP server should return: every diagnostics
// key and count is kept, but the invalidFiles and skippedSymlinks path lists
// are emptied (they would reveal other harnesses' vault layout), and
// diagnosticsTruncated is true whenever a count is non-zero, so the shape
// stays honest about what was left out.
func (s *SearchResponse) RedactedJSON() jsjson.Object {
	d := s.Diagnostics
	d.InvalidFiles = []InvalidFile{}
	d.SkippedSymlinks = []string{}
	d.DiagnosticsTruncated = d.DiagnosticsTruncated || d.InvalidFileCount > 0 || d.SkippedSymlinkCount > 0
	return (&SearchResponse{Results: s.Results, Diagnostics: d}).JSON()
}

// tokenRe is compiled on first use: its Unicode classes cost most of the
// package's init otherwise, paid by every process (issue 19).
var tokenRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[\p{L}\p{N}_-]+`) })

// Tokenize returns the distinct query tokens the ranking uses: maximal
// runs of letters, numbers, _ and - in the lowercased query, in order of
// first appearance.
func Tokenize(query string) []string {
	all := tokenRe().FindAllString(jstext.ToLower(jstext.Trim(query)), -1)
	seen := make(map[string]bool, len(all))
	out := make([]string, 0, len(all))
	for _, t := range all {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// ValidateQuery trims the query and applies the length and control
// character rules (TAB and LF are refused here too). Invalid UTF-8 is
// replaced by U+FFFD first, as Node decodes argv.
func ValidateQuery(q string) (string, error) {
	q = jstext.Trim(strings.ToValidUTF8(q, "\uFFFD"))
	if jstext.UnitLen(q) > MaxQueryUnits {
		return "", invalid("memory search query is too long (maximum 500 characters).")
	}
	if hasUnsafe(q, false) {
		return "", invalid("memory search query must not contain control characters.")
	}
	return q, nil
}

// Search runs the bounded lexical search (ecc-conformance §12). It fails only
// on invalid options, root-safety errors and directory I/O errors
// (CodeIncomplete); invalid files and truncation are reported in the
// diagnostics.
func Search(r *Roots, opts SearchOptions) (*SearchResponse, error) {
	q, err := ValidateQuery(opts.Query)
	if err != nil {
		return nil, err
	}
	scopes, err := ValidateScopes(opts.Scopes)
	if err != nil {
		return nil, err
	}
	kinds, err := ValidateKinds(opts.Kinds)
	if err != nil {
		return nil, err
	}
	v := validator{forWrite: true}
	if opts.Trust != "" {
		if opts.Trust, err = v.enum("memory trust", opts.Trust, trustValues); err != nil {
			return nil, err
		}
	}
	if opts.TargetHarness != "" {
		if opts.TargetHarness, err = v.slug("target harness", opts.TargetHarness); err != nil {
			return nil, err
		}
	}
	limit := NormalizeLimit(float64(opts.Limit))
	sr, err := scan(r, scopes)
	if err != nil {
		return nil, err
	}
	lq := jstext.ToLower(q)
	tokens := Tokenize(q)
	// Filtering and scoring are pure per entry: they run in parallel
	// chunks, and the results are collected in scan order.
	const skip = -1
	scores := make([]int, len(sr.Entries))
	parallelChunks(len(sr.Entries), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			m := sr.Entries[i].Memory
			if m.Status != "active" || (kinds != nil && !contains(kinds, m.Kind)) ||
				(opts.Trust != "" && m.Trust != opts.Trust) || !targets(m, opts.TargetHarness) {
				scores[i] = skip
				continue
			}
			scores[i] = scoreMemory(m, sr.Entries[i].fold, lq, tokens)
		}
	})
	var results []SearchResult
	for i, e := range sr.Entries {
		score := scores[i]
		if score == skip || (q != "" && score == 0) {
			continue
		}
		results = append(results, SearchResult{Memory: e.Memory, Path: e.Path, Score: score})
	}
	results = rankTop(results, limit)
	for i := range results {
		results[i].Excerpt = excerpt(results[i].Memory.Body, tokenRe().FindAllString(lq, -1))
	}
	if results == nil {
		results = []SearchResult{}
	}
	return &SearchResponse{Results: results, Diagnostics: sr.Diagnostics}, nil
}

// rankItem is a result with what its comparisons need precomputed: the
// scan-order index (the stable sort's tie-break) and whether updatedAt is
// timestamp-shaped.
type rankItem struct {
	r   SearchResult
	idx int
	ts  bool
}

// rankCompare is ecc-conformance §12.2 step 5: score descending, then updatedAt
// descending, then id ascending (localeCompare). Equal strings compare
// equal without collation, and two timestamp-shaped updatedAt values
// compare bytewise, which is what localeCompare returns for them (digits
// and '-' rank in byte order on its slug fast path, and shaped pairs
// otherwise take strings.Compare).
func rankCompare(a, b *rankItem) int {
	if a.r.Score != b.r.Score {
		if a.r.Score > b.r.Score {
			return -1
		}
		return 1
	}
	if ua, ub := a.r.Memory.UpdatedAt, b.r.Memory.UpdatedAt; ua != ub {
		var c int
		if a.ts && b.ts {
			c = strings.Compare(ua, ub)
		} else {
			c = localeCompare(ua, ub)
		}
		if c != 0 {
			return -c
		}
	}
	if a.r.Memory.ID == b.r.Memory.ID {
		return 0
	}
	return localeCompare(a.r.Memory.ID, b.r.Memory.ID)
}

// rankBefore is rankCompare with the scan order as the last key: the
// strict total order whose ascending sequence is the stable sort.
func rankBefore(a, b *rankItem) bool {
	if c := rankCompare(a, b); c != 0 {
		return c < 0
	}
	return a.idx < b.idx
}

// rankTop returns the first limit results of the stable ranking sort. The
// stable sort's first k elements are the k smallest in rankBefore's total
// order, so with fewer wanted than found they are selected with a bounded
// max-heap and only those are sorted (tested against SliceStable).
func rankTop(results []SearchResult, limit int) []SearchResult {
	items := make([]rankItem, len(results))
	for i, r := range results {
		items[i] = rankItem{r, i, isTimestampShape(r.Memory.UpdatedAt)}
	}
	if limit < len(items) {
		heap := items[:limit:limit]
		down := func(i int) {
			for {
				big := i
				for _, c := range [2]int{2*i + 1, 2*i + 2} {
					if c < len(heap) && rankBefore(&heap[big], &heap[c]) {
						big = c
					}
				}
				if big == i {
					return
				}
				heap[i], heap[big] = heap[big], heap[i]
				i = big
			}
		}
		for i := len(heap)/2 - 1; i >= 0; i-- {
			down(i)
		}
		for i := limit; i < len(items); i++ {
			if len(heap) > 0 && rankBefore(&items[i], &heap[0]) {
				heap[0] = items[i]
				down(0)
			}
		}
		items = heap
	}
	slices.SortFunc(items, func(a, b rankItem) int {
		if rankBefore(&a, &b) {
			return -1
		}
		if rankBefore(&b, &a) {
			return 1
		}
		return 0
	})
	out := make([]SearchResult, len(items))
	for i := range items {
		out[i] = items[i].r
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// targets: with no harness every memory is visible; otherwise it must be
// targeted at "all" or the harness.
func targets(m *Memory, harness string) bool {
	return harness == "" || contains(m.TargetHarnesses, "all") || contains(m.TargetHarnesses, harness)
}

// scoreMemory is the reference's lexical score (ecc-conformance §12.3). lq is the trimmed,
// lowercased query and tokens its distinct tokens.
func scoreMemory(m *Memory, f *folded, lq string, tokens []string) int {
	if lq == "" {
		return 0
	}
	if f == nil {
		f = &folded{}
	}
	title, body, meta := f.get(m)
	score := 0
	if strings.Contains(title, lq) {
		score += 20
	} else if strings.Contains(body, lq) {
		score += 5
	}
	for _, t := range tokens {
		if strings.Contains(title, t) {
			score += 8
		}
		if contains(m.Tags, t) {
			score += 6
		}
		if strings.Contains(meta, t) {
			score += 3
		}
		score += min(strings.Count(body, t), 5)
	}
	return score
}

// folded is what scoreMemory compares the query with: a memory's title,
// body and metadata line, lowercased. It depends on the memory alone, and a
// cached memory is never modified, so a scan with a Cache keeps one per
// cached file (issue 10, "Fast while it lives") and a memory whose stamp is
// unchanged is not lowercased again. It is filled by the first search that
// scores the memory. The Cache's byte bound counts the document text; the
// lowercased copies add memory in proportion to it (none for ASCII text
// that is already lowercase, which jstext.ToLower returns as is).
type folded struct {
	once              sync.Once
	title, body, meta string
}

func (f *folded) get(m *Memory) (title, body, meta string) {
	f.once.Do(func() {
		f.title, f.body = jstext.ToLower(m.Title), jstext.ToLower(m.Body)
		f.meta = jstext.ToLower(m.Kind + " " + m.Scope + " " + m.SourceHarness + " " + strings.Join(m.TargetHarnesses, " "))
	})
	return f.title, f.body, f.meta
}

// excerpt reproduces ecc-conformance §12.4 with UTF-16 arithmetic, including its parity
// quirks: indices found in the lowercased text are applied to the original
// text, and slicing can split a surrogate pair.
func excerpt(body string, tokens []string) string {
	var b strings.Builder
	inSpace := false
	for i := 0; i < len(body); {
		r, size := utf8.DecodeRuneInString(body[i:])
		if jstext.IsSpace(r) {
			if !inSpace {
				b.WriteByte(' ')
				inSpace = true
			}
		} else {
			inSpace = false
			// Copy the bytes, not r: a WTF-8 lone surrogate must survive.
			b.WriteString(body[i : i+size])
		}
		i += size
	}
	collapsed := jstext.Trim(b.String())
	u := jstext.Units(collapsed)
	if len(u) <= 240 {
		return collapsed
	}
	lower := jstext.ToLower(collapsed)
	index := -1
	for _, t := range tokens {
		if i := strings.Index(lower, t); i >= 0 {
			ui := jstext.UnitLen(lower[:i])
			if index < 0 || ui < index {
				index = ui
			}
		}
	}
	if index < 0 {
		index = 0
	}
	start := max(0, index-60)
	end := min(len(u), start+240)
	out := ""
	if start > 0 {
		out = "…"
	}
	if start < len(u) {
		out += jstext.FromUnits(u[start:end])
	}
	if start+240 < len(u) {
		out += "…"
	}
	return out
}

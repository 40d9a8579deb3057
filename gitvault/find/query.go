package find

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/git-echoes/git-echoes/internal/analysis"
)

// MaxQueryChars bounds a query (code points), as the memory search bounds
// its own (ecc-conformance §12.1 uses 500 UTF-16 units).
const MaxQueryChars = 500

// clauseKind is what one query clause matches.
type clauseKind int

const (
	clauseTerm   clauseKind = iota // a word or compound: its parts as a phrase, or its whole
	clausePhrase                   // "quoted words": the stems in a row
	clausePrefix                   // word*: any indexed surface form starting with it
)

// clause is one parsed element of a query.
type clause struct {
	kind    clauseKind
	negated bool                // -term: documents matching it are excluded
	parts   []analysis.Compound // term and phrase
	prefix  string              // prefix: the folded word without *
}

// Query is a parsed find query.
type Query struct {
	Raw     string
	clauses []clause
}

// QueryError is a query the parser refuses: a usage error (exit 2).
type QueryError struct{ Msg string }

func (e *QueryError) Error() string { return e.Msg }

func qerr(msg string) error { return &QueryError{msg} }

// ParseQuery parses QUERY: words (all of them optional, documents matching
// more rank higher), "quoted phrases", -word or -"phrase" to exclude, and
// word* for a prefix. Empty, oversized, control characters, unbalanced
// quotes and queries with nothing to search for are refused.
func ParseQuery(raw string) (*Query, error) {
	if !utf8.ValidString(raw) {
		return nil, qerr("find query is not valid UTF-8.")
	}
	q := strings.TrimSpace(raw)
	if q == "" {
		return nil, qerr("find query cannot be empty.")
	}
	if utf8.RuneCountInString(q) > MaxQueryChars {
		return nil, qerr("find query is too long (maximum 500 characters).")
	}
	for _, r := range q {
		if unicode.IsControl(r) && r != '\t' {
			return nil, qerr("find query must not contain control characters.")
		}
	}
	if strings.Count(q, `"`)%2 != 0 {
		return nil, qerr(`find query has an unbalanced quote (").`)
	}
	out := &Query{Raw: q}
	for i := 0; i < len(q); {
		r, n := utf8.DecodeRuneInString(q[i:])
		if unicode.IsSpace(r) {
			i += n
			continue
		}
		neg := false
		if r == '-' && i+1 < len(q) && q[i+1] != ' ' && q[i+1] != '\t' {
			neg = true
			i++
		}
		if q[i] == '"' {
			end := strings.IndexByte(q[i+1:], '"')
			// Balanced quotes guarantee a closing one.
			text := q[i+1 : i+1+end]
			i += end + 2
			if cs := analysis.Analyze(text); len(cs) > 0 {
				out.clauses = append(out.clauses, clause{kind: clausePhrase, negated: neg, parts: cs})
			}
			continue
		}
		end := i
		for end < len(q) {
			r, n := utf8.DecodeRuneInString(q[end:])
			if unicode.IsSpace(r) || r == '"' {
				break
			}
			end += n
		}
		word := q[i:end]
		i = end
		if strings.HasSuffix(word, "*") {
			p := analysis.Fold(strings.TrimRight(word, "*"))
			if p == "" {
				continue
			}
			if utf8.RuneCountInString(p) < 2 {
				return nil, qerr("find query prefix " + quote(word) + " is too short (at least 2 letters before *).")
			}
			out.clauses = append(out.clauses, clause{kind: clausePrefix, negated: neg, prefix: p})
			continue
		}
		for _, c := range analysis.Analyze(word) {
			out.clauses = append(out.clauses, clause{kind: clauseTerm, negated: neg, parts: []analysis.Compound{c}})
		}
	}
	positive := 0
	for _, c := range out.clauses {
		if !c.negated {
			positive++
		}
	}
	if positive == 0 {
		if len(out.clauses) > 0 {
			return nil, qerr("find query needs at least one word that is not excluded.")
		}
		return nil, qerr("find query has no searchable words.")
	}
	return out, nil
}

func quote(s string) string { return `"` + s + `"` }

// Columns of the full-text table, in order; bm25 weights in weights.
var (
	stemCols = "{title summary body tags}"
	allCols  = "{title summary body tags whole}"
	weights  = "10.0, 8.0, 1.0, 4.0, 3.0, 0.5"
)

// match renders the query as an FTS5 MATCH expression. Every term is a
// quoted string of analysis terms, which contain no FTS5 syntax.
func (q *Query) match() string {
	var pos, neg []string
	for _, c := range q.clauses {
		e := c.expr()
		if c.negated {
			neg = append(neg, e)
		} else {
			pos = append(pos, e)
		}
	}
	expr := "(" + strings.Join(pos, " OR ") + ")"
	for _, n := range neg {
		expr = "(" + expr + " NOT " + n + ")"
	}
	return expr
}

func (c clause) expr() string {
	switch c.kind {
	case clausePrefix:
		return "(surface : \"" + c.prefix + "\" *)"
	case clausePhrase:
		var stems []string
		for _, p := range c.parts {
			stems = append(stems, p.Stems...)
		}
		return "(" + stemCols + " : \"" + strings.Join(stems, " ") + "\")"
	}
	p := c.parts[0]
	if p.Whole == "" {
		return "(" + allCols + " : \"" + p.Stems[0] + "\")"
	}
	return "((" + stemCols + " : \"" + strings.Join(p.Stems, " ") + "\") OR (" + allCols + " : \"" + analysis.Stem(p.Whole) + "\"))"
}

// lineMatcher scores one line of a hit for the "best lines": how many of
// the query's positive clauses it contains. It keeps buffers, so it is
// for one goroutine at a time.
type lineMatcher struct {
	clauses  map[string][]int // stem or whole → the positive term clauses it satisfies
	nclauses int
	prefixes []string // per positive prefix clause

	x                    *analysis.Columns
	first                *[256]bool // the first bytes of the clauses' terms and prefixes; nil: every term
	stems, wholes, parts []byte     // the line's terms (Columns.AppendTermsFirst)
	seen                 []bool     // per term clause, during score
}

func (q *Query) lineMatcher() *lineMatcher {
	m := &lineMatcher{clauses: map[string][]int{}, x: analysis.NewColumns()}
	add := func(term string) {
		if l := m.clauses[term]; len(l) == 0 || l[len(l)-1] != m.nclauses {
			m.clauses[term] = append(l, m.nclauses)
		}
	}
	for _, c := range q.clauses {
		if c.negated {
			continue
		}
		switch c.kind {
		case clausePrefix:
			m.prefixes = append(m.prefixes, c.prefix)
		default:
			for _, p := range c.parts {
				for _, s := range p.Stems {
					add(s)
				}
				if p.Whole != "" {
					add(analysis.Stem(p.Whole))
				}
			}
			m.nclauses++
		}
	}
	m.seen = make([]bool, m.nclauses)
	// A line's term can only equal a clause's term, or start with a
	// prefix, when their first bytes are the same: the line's other words
	// need not be stemmed (Columns.AppendTermsFirst).
	first := new([256]bool)
	for t := range m.clauses {
		if t == "" {
			first = nil
			break
		}
		first[t[0]] = true
	}
	for _, p := range m.prefixes {
		if first == nil || p == "" {
			first = nil
			break
		}
		first[p[0]] = true
	}
	m.first = first
	return m
}

// score is the number of clauses the line satisfies (a phrase or compound
// counts when one of its words is there: the line is a pointer, the
// ranking already decided the document): a term clause when one of its
// stems or stemmed wholes is among the line's stems or wholes (stemmed or
// not), a prefix clause when one of the line's parts starts with it
// (analysis.Columns.AppendTerms).
func (m *lineMatcher) score(line string) int {
	m.stems, m.wholes, m.parts = m.stems[:0], m.wholes[:0], m.parts[:0]
	if m.first != nil {
		m.x.AppendTermsFirst(line, m.first, &m.stems, &m.wholes, &m.parts)
	} else {
		m.x.AppendTerms(line, &m.stems, &m.wholes, &m.parts)
	}
	clear(m.seen)
	n := 0
	mark := func(list []byte) {
		eachTerm(list, func(t []byte) bool {
			for _, ci := range m.clauses[string(t)] {
				if !m.seen[ci] {
					m.seen[ci] = true
					n++
				}
			}
			return n < m.nclauses
		})
	}
	if m.nclauses > 0 {
		mark(m.stems)
		mark(m.wholes)
	}
	for _, p := range m.prefixes {
		found := false
		eachTerm(m.parts, func(t []byte) bool {
			found = bytes.HasPrefix(t, []byte(p))
			return !found
		})
		if found {
			n++
		}
	}
	return n
}

// eachTerm calls f with each term of a space-separated list until f
// returns false.
func eachTerm(list []byte, f func([]byte) bool) {
	for len(list) > 0 {
		t := list
		if k := bytes.IndexByte(list, ' '); k >= 0 {
			t, list = list[:k], list[k+1:]
		} else {
			list = nil
		}
		if !f(t) {
			return
		}
	}
}

package analysis

import (
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Columns renders text as the index writes it, the same terms Analyze
// gives, without building a Compound per word (issue 19: Analyze's
// allocations were the largest single cost of a first build): the stems
// space-separated into stems, the stemmed wholes into wholes and the
// surfaces (parts, then the folded whole) into surfaces, each appended
// after a space when not empty. A Columns keeps a stem cache of its own,
// so it is for one goroutine at a time.
//
// For every text, Columns gives exactly what this gives:
//
//	for _, c := range Analyze(text) {
//		stems += c.Stems...; surfaces += c.Surfaces...
//		if c.Whole != "" { wholes += Stem(c.Whole); surfaces += c.Whole }
//	}
type Columns struct {
	stems map[string]string // folded word → Stem(word), this goroutine's
	part  []byte            // the folded part being built
	whole []byte            // the folded whole of the compound being built
	marks []int             // ends of the parts in whole
}

// NewColumns returns an empty Columns.
func NewColumns() *Columns { return &Columns{stems: make(map[string]string, 4096)} }

// maxLocalStems bounds a Columns' own cache, as maxStemCache bounds the
// shared one.
const maxLocalStems = 1 << 16

// Append analyzes text and appends its terms; see Columns.
func (x *Columns) Append(text string, stems, wholes, surfaces *[]byte) {
	x.run(text, sinks{stems: stems, wholes: wholes, parts: surfaces, raw: surfaces})
}

// AppendTerms appends Analyze's terms of text as space-separated lists:
// the stems into stems, each whole's stem and then the whole itself into
// wholes, and the parts alone (no wholes) into parts. The best lines of a
// hit (gitvault/find) match every line of a document this way (issue 19):
// without Analyze's allocations, a line takes about a seventh of the time
// of collecting them from Analyze (BenchmarkAppendTerms against
// BenchmarkTerms).
func (x *Columns) AppendTerms(text string, stems, wholes, parts *[]byte) {
	x.run(text, sinks{stems: stems, wholes: wholes, parts: parts, raw: wholes})
}

// AppendTermsFirst is AppendTerms keeping only the terms whose first byte
// is marked in first (an empty term is not kept). A stem begins with its
// word's first byte (Snowball English changes endings only:
// FuzzStemKeepsFirstByte), and a whole with its first part's, so an ASCII
// word whose folded first byte is not marked is not stemmed at all: the
// best lines of a hit ask only for terms that can equal a query's, and
// stemming every other word of the hit was most of their cost (issue 19).
func (x *Columns) AppendTermsFirst(text string, first *[256]bool, stems, wholes, parts *[]byte) {
	x.run(text, sinks{stems: stems, wholes: wholes, parts: parts, raw: wholes, first: first})
}

// sinks are where run appends each kind of term: a compound's stems, the
// stem of its whole, its parts (folded surfaces) and its whole as folded
// (after the stem when raw is wholes, after the parts when raw is parts).
// A non-nil first keeps only the terms whose first byte it marks.
type sinks struct {
	stems, wholes, parts, raw *[]byte
	first                     *[256]bool
}

// keeps reports whether term t is kept.
func (d *sinks) keeps(t string) bool { return d.first == nil || len(t) > 0 && d.first[t[0]] }

func (x *Columns) run(text string, d sinks) {
	text = norm.NFKC.String(text)
	i := 0
	for i < len(text) {
		c := text[i]
		if c < utf8.RuneSelf && !asciiWord(c) {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			if r, n := utf8.DecodeRuneInString(text[i:]); !isWordRune(r) {
				i += n
				continue
			}
		}
		// A compound: word runs joined by single connectors (as Analyze).
		start, end, ascii := i, i, true
		for j := i; j < len(text); {
			c := text[j]
			if c < utf8.RuneSelf {
				if asciiWord(c) {
					j++
					end = j
					continue
				}
				if isConnector(rune(c)) && j+1 < len(text) {
					r2, _ := utf8.DecodeRuneInString(text[j+1:])
					if isWordRune(r2) {
						j++
						continue
					}
				}
				break
			}
			r, n := utf8.DecodeRuneInString(text[j:])
			if isWordRune(r) {
				ascii = false
				j += n
				end = j
				continue
			}
			if isConnector(r) && j+n < len(text) {
				r2, _ := utf8.DecodeRuneInString(text[j+n:])
				if isWordRune(r2) {
					ascii = false
					j += n
					continue
				}
			}
			break
		}
		if ascii {
			x.asciiCompound(text[start:end], d)
		} else if cp, ok := compound(text[start:end], 0); ok {
			for k, s := range cp.Stems {
				if d.keeps(s) {
					appendTerm(d.stems, s)
				}
				if d.keeps(cp.Surfaces[k]) {
					appendTerm(d.parts, cp.Surfaces[k])
				}
			}
			if cp.Whole != "" {
				if s := Stem(cp.Whole); d.keeps(s) {
					appendTerm(d.wholes, s)
				}
				if d.keeps(cp.Whole) {
					appendTerm(d.raw, cp.Whole)
				}
			}
		}
		i = end
	}
}

func asciiWord(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func isUpperASCII(c byte) bool { return c >= 'A' && c <= 'Z' }
func isLowerASCII(c byte) bool { return c >= 'a' && c <= 'z' }

// asciiCompound is compound for a compound of ASCII letters, digits and
// connectors: the same parts (splitParts' rules on bytes), Fold's ASCII
// branch, clip and Stem.
func (x *Columns) asciiCompound(raw string, d sinks) {
	x.whole = x.whole[:0]
	x.marks = x.marks[:0]
	nparts := 0
	start := 0
	flush := func(end int) {
		if end > start {
			p := x.part[:0]
			for k := start; k < end; k++ {
				c := raw[k]
				if isUpperASCII(c) {
					c += 'a' - 'A'
				}
				p = append(p, c) // parts hold letters and digits only
			}
			if len(p) > MaxWordBytes {
				p = p[:MaxWordBytes]
			}
			x.part = p
			if d.first == nil || d.first[p[0]] { // p's stem begins with p[0]
				appendTerm(d.stems, x.stem(p))
				appendTermBytes(d.parts, p)
			}
			x.whole = append(x.whole, p...)
			nparts++
		}
		start = end
	}
	for k := 0; k < len(raw); k++ {
		c := raw[k]
		if isConnector(rune(c)) {
			flush(k)
			start = k + 1
			continue
		}
		if k == start {
			continue
		}
		prev := raw[k-1]
		switch {
		case isUpperASCII(c) && isLowerASCII(prev):
			flush(k)
		case isUpperASCII(c) && isUpperASCII(prev) && k+1 < len(raw) && isLowerASCII(raw[k+1]):
			flush(k)
		}
	}
	flush(len(raw))
	if nparts > 1 {
		w := x.whole
		if len(w) > MaxWordBytes {
			w = w[:MaxWordBytes]
		}
		if d.first == nil || d.first[w[0]] {
			appendTerm(d.wholes, x.stem(w))
			appendTermBytes(d.raw, w)
		}
	}
}

// stem is Stem through this Columns' cache (a map lookup by a []byte
// key does not allocate).
func (x *Columns) stem(w []byte) string {
	if s, ok := x.stems[string(w)]; ok {
		return s
	}
	key := string(w)
	s := Stem(key)
	if len(x.stems) < maxLocalStems {
		x.stems[key] = s
	}
	return s
}

func appendTerm(dst *[]byte, s string) {
	if len(*dst) > 0 {
		*dst = append(*dst, ' ')
	}
	*dst = append(*dst, s...)
}

func appendTermBytes(dst *[]byte, s []byte) {
	if len(*dst) > 0 {
		*dst = append(*dst, ' ')
	}
	*dst = append(*dst, s...)
}

package secretscan

import (
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode/utf8"
)

// Line windows (issue 22, speed). gitleaks runs a rule's regex over the
// whole text once one of its keywords is anywhere in it. Many rules
// (generic-api-key above all) start with a lazy `[\w.-]{0,50}?` and are
// case-insensitive, so Go's regexp cannot skip to a literal and steps its
// NFA over every byte: on prose where "key", "token" and "secret" are
// common words, that is most of a gate run.
//
// For a rule whose regex we can analyse, the scanner runs it only on
// windows of lines around the keyword hits that could start a match, and
// finds exactly what gitleaks finds. The proof, for a rule with a plan:
//
//  1. Its top-level concatenation has an element E_k every match of which
//     begins with one of the rule's keywords (prefixes), so every match
//     holds a keyword hit, at the start of E_k's part of the match.
//  2. A match holds at most maxNL line feeds (maxNewlines), so it lies in
//     the lines [K-maxNL, K+maxNL] around the line K of that hit.
//  3. A window is a union of such line ranges, from a line start to the
//     "\n" ending its last line, which it excludes. At both edges every
//     assertion Go has (\b, \B, (?m)^, (?m)$) sees what it sees in the
//     whole text (a line feed is a non-word character and a line end),
//     except end of text ($ without m, \z): noEnd replaces it by a
//     never-matching node for windows that stop before the text's end.
//     A regex with begin of text (^ without m, \A) gets no plan.
//  4. So the matches that start in a window are the whole text's matches
//     that start there, no match crosses two windows, and FindAll over
//     the windows in order returns the whole text's FindAll (leftmost
//     first, non-overlapping), window by window.
//
// A hit only opens a window when head, the elements E_k.., may match at
// the hit (maybeAt, a necessary condition): prose has "key" on every line
// but rarely "key =" or "token:".
//
// Hits are found on the text lowercased byte for byte (ASCII letters
// only), so their offsets are the text's. A case-insensitive regex also
// matches U+212A (Kelvin sign, folds to k) and U+017F (long s, folds to
// s), which that lowercasing does not map: a text holding either is
// scanned whole (noWindows).

// maxWindowNL bounds the line feeds a windowed rule's match may hold; a
// rule allowing more is run over the whole text.
const maxWindowNL = 16

type windowPlan struct {
	maxNL int
	head  *hnode         // E_k ..., checked at a hit by maybeAt
	noEnd *regexp.Regexp // the regex with end of text never matching; nil: it has none
}

// planFor analyses a rule's regex; nil means: run it over the whole text.
func planFor(expr string, keywords []string) *windowPlan {
	if len(keywords) == 0 || expr == "" {
		return nil
	}
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil || hasOp(re, syntax.OpBeginText) {
		return nil
	}
	n := maxNewlines(re)
	if n < 0 || n > maxWindowNL {
		return nil
	}
	elems := []*syntax.Regexp{re}
	if re.Op == syntax.OpConcat {
		elems = re.Sub
	}
	k := -1
	for i, e := range elems {
		ps := prefixes(e)
		ok := len(ps) > 0
		for _, p := range ps {
			if !hasKeywordPrefix(p, keywords) {
				ok = false
				break
			}
		}
		if ok {
			k = i
			break
		}
	}
	if k < 0 {
		return nil
	}
	p := &windowPlan{maxNL: n, head: compileHead(&syntax.Regexp{Op: syntax.OpConcat, Flags: re.Flags, Sub: elems[k:]})}
	if hasOp(re, syntax.OpEndText) {
		ne, err := regexp.Compile(rewrite(re, neverEndText).String())
		if err != nil {
			return nil
		}
		p.noEnd = ne
	}
	return p
}

// hasKeywordPrefix: p begins with one of the keywords.
func hasKeywordPrefix(p string, keywords []string) bool {
	for _, k := range keywords {
		if strings.HasPrefix(p, k) {
			return true
		}
	}
	return false
}

func hasOp(re *syntax.Regexp, op syntax.Op) bool {
	if re.Op == op {
		return true
	}
	for _, s := range re.Sub {
		if hasOp(s, op) {
			return true
		}
	}
	return false
}

// rewrite is a deep copy of re with f applied to every node, bottom up.
func rewrite(re *syntax.Regexp, f func(*syntax.Regexp) *syntax.Regexp) *syntax.Regexp {
	c := *re
	c.Sub = nil
	for _, s := range re.Sub {
		c.Sub = append(c.Sub, rewrite(s, f))
	}
	c.Rune = append([]rune(nil), re.Rune...)
	return f(&c)
}

func neverEndText(re *syntax.Regexp) *syntax.Regexp {
	if re.Op == syntax.OpEndText {
		return &syntax.Regexp{Op: syntax.OpNoMatch, Flags: re.Flags}
	}
	return re
}

// maxNewlines is the most line feeds a match of re holds; -1: unbounded.
func maxNewlines(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpLiteral:
		return strings.Count(string(re.Rune), "\n")
	case syntax.OpCharClass:
		if classHas(re.Rune, '\n') {
			return 1
		}
		return 0
	case syntax.OpAnyChar:
		return 1
	case syntax.OpAnyCharNotNL, syntax.OpEmptyMatch, syntax.OpNoMatch, syntax.OpBeginLine, syntax.OpEndLine,
		syntax.OpBeginText, syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return 0
	case syntax.OpCapture, syntax.OpQuest:
		return maxNewlines(re.Sub[0])
	case syntax.OpStar, syntax.OpPlus:
		if n := maxNewlines(re.Sub[0]); n != 0 {
			return -1
		}
		return 0
	case syntax.OpRepeat:
		n := maxNewlines(re.Sub[0])
		if n == 0 {
			return 0
		}
		if n < 0 || re.Max < 0 {
			return -1
		}
		return n * re.Max
	case syntax.OpConcat:
		t := 0
		for _, s := range re.Sub {
			n := maxNewlines(s)
			if n < 0 {
				return -1
			}
			t += n
		}
		return t
	case syntax.OpAlternate:
		m := 0
		for _, s := range re.Sub {
			n := maxNewlines(s)
			if n < 0 {
				return -1
			}
			m = max(m, n)
		}
		return m
	}
	return -1
}

func classHas(ranges []rune, r rune) bool {
	for i := 0; i+1 < len(ranges); i += 2 {
		if ranges[i] <= r && r <= ranges[i+1] {
			return true
		}
	}
	return false
}

// Bounds of the finite-language analysis.
const (
	maxLangStrings = 64
	maxLangBytes   = 64
	maxClassRunes  = 16
)

// lowerRune is a rune as the hit search sees it: ASCII letters
// lowercased; U+212A and U+017F as the letters they fold to (texts holding
// them are scanned whole); any other non-ASCII rune is not analysed.
func lowerRune(r rune) (byte, bool) {
	switch {
	case r == 0x212A:
		return 'k', true
	case r == 0x017F:
		return 's', true
	case r >= utf8.RuneSelf:
		return 0, false
	case 'A' <= r && r <= 'Z':
		return byte(r) + 'a' - 'A', true
	}
	return byte(r), true
}

// exact is the finite language of re, lowercased as lowerRune does, or
// false when it is not small and finite. Assertions match "".
func exact(re *syntax.Regexp) ([]string, bool) {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return []string{""}, true
	case syntax.OpLiteral:
		b := make([]byte, 0, len(re.Rune))
		for _, r := range re.Rune {
			c, ok := lowerRune(r)
			if !ok {
				return nil, false
			}
			b = append(b, c)
		}
		if len(b) > maxLangBytes {
			return nil, false
		}
		return []string{string(b)}, true
	case syntax.OpCharClass:
		var out []string
		n := 0
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				if n++; n > maxClassRunes {
					return nil, false
				}
				c, ok := lowerRune(r)
				if !ok {
					return nil, false
				}
				out = appendNew(out, string(c))
			}
		}
		return out, len(out) > 0
	case syntax.OpCapture:
		return exact(re.Sub[0])
	case syntax.OpQuest:
		s, ok := exact(re.Sub[0])
		if !ok {
			return nil, false
		}
		return appendNew(s, ""), true
	case syntax.OpRepeat:
		if re.Max < 0 || re.Max > 4 {
			return nil, false
		}
		s, ok := exact(re.Sub[0])
		if !ok {
			return nil, false
		}
		var out []string
		cur := []string{""}
		for i := 0; i <= re.Max; i++ {
			if i >= re.Min {
				for _, c := range cur {
					out = appendNew(out, c)
				}
			}
			if cur, ok = product(cur, s); !ok {
				return nil, false
			}
		}
		return out, len(out) <= maxLangStrings
	case syntax.OpConcat:
		acc := []string{""}
		for _, sub := range re.Sub {
			s, ok := exact(sub)
			if !ok {
				return nil, false
			}
			if acc, ok = product(acc, s); !ok {
				return nil, false
			}
		}
		return acc, true
	case syntax.OpAlternate:
		var out []string
		for _, sub := range re.Sub {
			s, ok := exact(sub)
			if !ok {
				return nil, false
			}
			for _, x := range s {
				out = appendNew(out, x)
			}
		}
		return out, len(out) <= maxLangStrings
	}
	return nil, false
}

// prefixes is a set of strings one of which begins every match of re
// (lowercased as lowerRune does); {""} when nothing is known.
func prefixes(re *syntax.Regexp) []string {
	if s, ok := exact(re); ok {
		return s
	}
	switch re.Op {
	case syntax.OpCapture, syntax.OpPlus:
		return prefixes(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return prefixes(re.Sub[0])
		}
	case syntax.OpConcat:
		acc := []string{""}
		for _, sub := range re.Sub {
			if s, ok := exact(sub); ok {
				next, ok := product(acc, s)
				if !ok {
					return acc
				}
				acc = next
				continue
			}
			if next, ok := product(acc, prefixes(sub)); ok {
				return next
			}
			return acc
		}
		return acc
	case syntax.OpAlternate:
		var out []string
		for _, sub := range re.Sub {
			for _, x := range prefixes(sub) {
				out = appendNew(out, x)
			}
		}
		return out
	}
	return []string{""}
}

func product(a, b []string) ([]string, bool) {
	if len(a)*len(b) > maxLangStrings {
		return nil, false
	}
	var out []string
	for _, x := range a {
		for _, y := range b {
			if len(x)+len(y) > maxLangBytes {
				return nil, false
			}
			out = appendNew(out, x+y)
		}
	}
	return out, true
}

func appendNew(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// hit is a keyword found in the text: its index in the scanner's keyword
// set and the offset just after it.
type hit struct {
	word int
	end  int
}

// noWindows: the text holds a rune a case-insensitive regex folds to an
// ASCII letter that byte-wise lowercasing does not map (see above).
func noWindows(text string) bool {
	return strings.Contains(text, "\u212A") || strings.Contains(text, "\u017F")
}

// window is a byte range of the text: from a line start to the "\n"
// ending a line (excluded) or the text's end.
type window struct{ from, to int }

// windowsFor are the merged windows of a rule with plan p over text, from
// the hits of its keywords (words: their indexes in keywords), in text
// order.
func windowsFor(text, lower string, hits []hit, words []int, keywords []string, p *windowPlan) []window {
	var out []window
	sim := &headSim{text: text, lower: lower}
	for _, h := range hits {
		mine := false
		for _, w := range words {
			if w == h.word {
				mine = true
				break
			}
		}
		if !mine {
			continue
		}
		start := h.end - len(keywords[h.word])
		// Hits come in line order, so a window starts at or after the
		// last one's start; one that also ends by its end adds nothing.
		if n := len(out); n > 0 && start < out[n-1].to &&
			(out[n-1].to == len(text) || strings.Count(text[start:out[n-1].to], "\n") >= p.maxNL) {
			continue
		}
		if !sim.maybeAt(p.head, start) {
			continue
		}
		from := strings.LastIndexByte(text[:start], '\n') + 1
		for i := 0; i < p.maxNL && from > 0; i++ {
			from = strings.LastIndexByte(text[:from-1], '\n') + 1
		}
		to := start
		for i := 0; i <= p.maxNL; i++ {
			j := strings.IndexByte(text[to:], '\n')
			if j < 0 {
				to = len(text)
				break
			}
			to += j
			if i < p.maxNL {
				to++
			}
		}
		n := len(out)
		if n > 0 && from <= out[n-1].to+1 {
			out[n-1].from = min(out[n-1].from, from)
			out[n-1].to = max(out[n-1].to, to)
			continue
		}
		out = append(out, window{from, to})
	}
	return out
}

// maxHeadSteps bounds the work of one head check; past it the hit opens
// its window (the check may only say no when no match can start there).
const maxHeadSteps = 4096

// hnode is a node of a head compiled for maybeAt.
type hnode struct {
	op       syntax.Op
	lit      string // the literal; lowercased when fold
	litRunes int
	fold     bool      // compared case-insensitively
	asciiLit bool      // the literal is ASCII
	ascii    [2]uint64 // a class's ASCII members
	ranges   []rune    // a class's ranges (for runes past ASCII)
	sub      []*hnode
	min, max int
	// first: the bytes a match can start with (ASCII in first, any byte
	// past ASCII when firstHigh); nullable: it may match "".
	first     [2]uint64
	firstHigh bool
	nullable  bool
}

func compileHead(re *syntax.Regexp) *hnode {
	n := &hnode{op: re.Op, min: re.Min, max: re.Max}
	switch re.Op {
	case syntax.OpLiteral:
		n.lit = string(re.Rune)
		n.litRunes = len(re.Rune)
		n.asciiLit = isASCII(n.lit)
		n.fold = re.Flags&syntax.FoldCase != 0
		if n.fold && n.asciiLit {
			n.lit = asciiLower(n.lit)
		}
	case syntax.OpCharClass:
		n.ranges = re.Rune
		for c := rune(0); c < utf8.RuneSelf; c++ {
			if classHas(re.Rune, c) {
				n.ascii[c>>6] |= 1 << (c & 63)
			}
		}
	case syntax.OpStar:
		n.op, n.min, n.max = syntax.OpRepeat, 0, -1
	case syntax.OpPlus:
		n.op, n.min, n.max = syntax.OpRepeat, 1, -1
	}
	for _, s := range re.Sub {
		n.sub = append(n.sub, compileHead(s))
	}
	n.firstSet()
	return n
}

func (n *hnode) addFirst(c byte) {
	n.first[c>>6] |= 1 << (c & 63)
}

// firstSet computes first, firstHigh and nullable from the node's
// children (a superset of the bytes a match can begin with).
func (n *hnode) firstSet() {
	switch n.op {
	case syntax.OpLiteral:
		if n.lit == "" {
			n.nullable = true
			return
		}
		c := n.lit[0]
		switch {
		case c >= utf8.RuneSelf || (n.fold && !n.asciiLit):
			n.firstHigh = true
			n.first = [2]uint64{^uint64(0), ^uint64(0)}
		case n.fold:
			n.addFirst(c)
			if 'a' <= c && c <= 'z' {
				n.addFirst(c - 'a' + 'A')
			}
		default:
			n.addFirst(c)
		}
	case syntax.OpCharClass:
		n.first = n.ascii
		n.firstHigh = len(n.ranges) > 0 && n.ranges[len(n.ranges)-1] >= utf8.RuneSelf
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		n.first = [2]uint64{^uint64(0), ^uint64(0)}
		n.firstHigh = true
	case syntax.OpCapture:
		n.first, n.firstHigh, n.nullable = n.sub[0].first, n.sub[0].firstHigh, n.sub[0].nullable
	case syntax.OpQuest:
		n.first, n.firstHigh, n.nullable = n.sub[0].first, n.sub[0].firstHigh, true
	case syntax.OpRepeat:
		n.first, n.firstHigh = n.sub[0].first, n.sub[0].firstHigh
		n.nullable = n.min == 0 || n.sub[0].nullable
	case syntax.OpConcat:
		n.nullable = true
		for _, s := range n.sub {
			n.first[0] |= s.first[0]
			n.first[1] |= s.first[1]
			n.firstHigh = n.firstHigh || s.firstHigh
			if !s.nullable {
				n.nullable = false
				break
			}
		}
	case syntax.OpAlternate:
		for _, s := range n.sub {
			n.first[0] |= s.first[0]
			n.first[1] |= s.first[1]
			n.firstHigh = n.firstHigh || s.firstHigh
			n.nullable = n.nullable || s.nullable
		}
	case syntax.OpNoMatch:
	default: // assertions, empty match, and what run does not know
		n.nullable = true
	}
}

// mayStart: a match of n may begin at p.
func (n *hnode) mayStart(text string, p int) bool {
	if n.nullable {
		return true
	}
	if p >= len(text) {
		return false
	}
	c := text[p]
	if c >= utf8.RuneSelf {
		return n.firstHigh
	}
	return n.first[c>>6]&(1<<(c&63)) != 0
}

// maybeAt reports whether the head may match text at start. It runs the
// head's syntax tree over sets of positions (a Thompson simulation) with
// every assertion taken as true and case-insensitive literals compared on
// lower (text lowercased byte for byte, offsets the same): a superset of
// what the regex matches, so false means no match starts at start.
func (h *headSim) maybeAt(head *hnode, start int) bool {
	h.steps = 0
	h.slab = h.slab[:0]
	out := h.run(head, h.set(start))
	return len(out) > 0 || h.steps > maxHeadSteps
}

// headSim holds one text and the slab its position sets are carved from
// (a set, once made, is never written again).
type headSim struct {
	text, lower string
	steps       int
	slab        []int
}

func (h *headSim) set(ps ...int) []int {
	from := len(h.slab)
	h.slab = append(h.slab, ps...)
	return h.slab[from:len(h.slab):len(h.slab)]
}

// run returns the positions where n can end, from positions pos (sorted,
// unique).
func (h *headSim) run(n *hnode, pos []int) []int {
	if len(pos) == 0 || h.steps > maxHeadSteps {
		return nil
	}
	h.steps += len(pos)
	if !n.nullable {
		keep := 0
		for _, p := range pos {
			if n.mayStart(h.text, p) {
				keep++
			}
		}
		if keep == 0 {
			return nil
		}
		if keep < len(pos) {
			from := len(h.slab)
			for _, p := range pos {
				if n.mayStart(h.text, p) {
					h.slab = append(h.slab, p)
				}
			}
			pos = h.slab[from:len(h.slab):len(h.slab)]
		}
	}
	switch n.op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return pos
	case syntax.OpNoMatch:
		return nil
	case syntax.OpLiteral:
		from := len(h.slab)
		for _, p := range pos {
			switch {
			case !n.fold:
				if strings.HasPrefix(h.text[p:], n.lit) {
					h.slab = append(h.slab, p+len(n.lit))
				}
			case n.asciiLit:
				if strings.HasPrefix(h.lower[p:], n.lit) {
					h.slab = append(h.slab, p+len(n.lit))
				}
			default:
				if q, ok := h.foldPrefix(p, n.lit); ok {
					h.slab = append(h.slab, q)
				}
			}
		}
		return h.slab[from:len(h.slab):len(h.slab)] // pos sorted, each the same length: sorted
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		from := len(h.slab)
		for _, p := range pos {
			if size, ok := n.char(h.text, p); ok {
				h.appendPos(from, p+size)
			}
		}
		return h.slab[from:len(h.slab):len(h.slab)]
	case syntax.OpCapture:
		return h.run(n.sub[0], pos)
	case syntax.OpConcat:
		for _, s := range n.sub {
			if pos = h.run(s, pos); len(pos) == 0 {
				return nil
			}
		}
		return pos
	case syntax.OpAlternate:
		var out []int
		for _, s := range n.sub {
			out = h.union(out, h.run(s, pos))
		}
		return out
	case syntax.OpQuest:
		return h.union(pos, h.run(n.sub[0], pos))
	case syntax.OpRepeat:
		if c := n.sub[0]; c.op == syntax.OpCharClass || c.op == syntax.OpAnyChar || c.op == syntax.OpAnyCharNotNL {
			return h.repeatChar(n, c, pos)
		}
		var out []int
		if n.min == 0 {
			out = pos
		}
		cur := pos
		for i := 1; n.max < 0 || i <= n.max; i++ {
			if cur = h.run(n.sub[0], cur); len(cur) == 0 {
				break
			}
			if i >= n.min {
				before := len(out)
				out = h.union(out, cur)
				if n.max < 0 && len(out) == before {
					break // nothing new: the loop has reached its fixed point
				}
			}
			if h.steps > maxHeadSteps {
				break
			}
		}
		return out
	}
	h.steps = maxHeadSteps + 1 // an operator this does not know: say maybe
	return nil
}

// repeatChar is run for a repeat of one character: for each start, the
// run of characters of the class, ends from min to max.
func (h *headSim) repeatChar(n, c *hnode, pos []int) []int {
	from := len(h.slab)
	for _, p := range pos {
		if n.min == 0 {
			h.slab = append(h.slab, p)
		}
		q := p
		for i := 1; n.max < 0 || i <= n.max; i++ {
			size, ok := c.char(h.text, q)
			if !ok {
				break
			}
			q += size
			if i >= n.min {
				h.slab = append(h.slab, q)
			}
		}
		h.steps += q - p
	}
	out := h.slab[from:len(h.slab):len(h.slab)]
	if !slices.IsSorted(out) {
		slices.Sort(out)
	}
	out = slices.Compact(out)
	h.slab = h.slab[:from+len(out)]
	return out[:len(out):len(out)]
}

// char reports whether the character node c matches at p, and its width.
func (c *hnode) char(text string, p int) (int, bool) {
	if p >= len(text) {
		return 0, false
	}
	b := text[p]
	r, size := rune(b), 1
	if b >= utf8.RuneSelf {
		r, size = utf8.DecodeRuneInString(text[p:])
	}
	switch {
	case c.op == syntax.OpAnyChar:
		return size, true
	case c.op == syntax.OpAnyCharNotNL:
		return size, r != '\n'
	case r < utf8.RuneSelf:
		return size, c.ascii[r>>6]&(1<<(r&63)) != 0
	}
	return size, classHas(c.ranges, r)
}

// appendPos appends p to the set being built from slab offset from,
// keeping it sorted and unique (a class step can reorder positions when
// runes of different widths follow them).
func (h *headSim) appendPos(from, p int) {
	i := len(h.slab)
	for i > from && h.slab[i-1] >= p {
		if h.slab[i-1] == p {
			return
		}
		i--
	}
	h.slab = append(h.slab, 0)
	copy(h.slab[i+1:], h.slab[i:])
	h.slab[i] = p
}

// foldPrefix: the text at p begins with lit compared case-insensitively (a
// superset: ASCII letters lowercased on both sides, a non-ASCII rune of
// lit matching any rune); q is the offset after it.
func (h *headSim) foldPrefix(p int, lit string) (q int, ok bool) {
	for _, r := range lit {
		if p >= len(h.text) {
			return 0, false
		}
		t, size := utf8.DecodeRuneInString(h.text[p:])
		if r < utf8.RuneSelf {
			// A non-ASCII text rune folding to an ASCII letter is U+212A
			// or U+017F, and such texts are not windowed.
			if t >= utf8.RuneSelf || h.lower[p] != asciiLowerByte(byte(r)) {
				return 0, false
			}
		}
		p += size
	}
	return p, true
}

func asciiLowerByte(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// union merges two sorted unique sets into a new one.
func (h *headSim) union(a, b []int) []int {
	if len(a) == 0 {
		return b
	}
	if len(b) == 0 {
		return a
	}
	from := len(h.slab)
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || (i < len(a) && a[i] < b[j]):
			h.slab = append(h.slab, a[i])
			i++
		case i == len(a) || b[j] < a[i]:
			h.slab = append(h.slab, b[j])
			j++
		default:
			h.slab = append(h.slab, a[i])
			i++
			j++
		}
	}
	return h.slab[from:len(h.slab):len(h.slab)]
}

// requiredLiterals returns lowercase strings one of which every match of
// the pattern holds (nil: none known): a pre-filter for the allowlists'
// path patterns, which are many, short, and mostly unanchored (Go's
// regexp then tries every position of every path). Lowercase on both
// sides is a superset for case-insensitive literals (strings.ToLower maps
// U+212A to k), except for U+017F, which folds to s and stays itself: a
// case-insensitive literal holding an s is not used.
// The error is syntax.Parse's, with regexp.Compile's flags.
func requiredLiterals(expr string) ([]string, error) {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil, err
	}
	lits, ok := required(re)
	if !ok {
		return nil, nil
	}
	for _, l := range lits {
		if l == "" {
			return nil, nil
		}
	}
	return lits, nil
}

func required(re *syntax.Regexp) ([]string, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		l := string(re.Rune)
		if !isASCII(l) || (re.Flags&syntax.FoldCase != 0 && strings.ContainsAny(l, "sS")) {
			return nil, false
		}
		return []string{strings.ToLower(l)}, true
	case syntax.OpCapture, syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return required(re.Sub[0])
		}
	case syntax.OpConcat:
		var best []string
		for _, s := range re.Sub {
			if l, ok := required(s); ok && shortest(l) > shortest(best) {
				best = l
			}
		}
		return best, best != nil
	case syntax.OpAlternate:
		var out []string
		for _, s := range re.Sub {
			l, ok := required(s)
			if !ok {
				return nil, false
			}
			out = append(out, l...)
		}
		return out, len(out) <= maxLangStrings
	}
	return nil, false
}

func shortest(l []string) int {
	if l == nil {
		return 0
	}
	m := len(l[0])
	for _, s := range l {
		m = min(m, len(s))
	}
	return m
}

func containsAny(s string, lits []string) bool {
	for _, l := range lits {
		if strings.Contains(s, l) {
			return true
		}
	}
	return false
}

// Package merge is the page-aware three-way merge driver for git
// (`git echoes merge-driver`): EchoesVault pages are merged frontmatter key
// by key, with the key lines read as internal/frontmatter reads them.
package merge

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/git-echoes/git-echoes/internal/frontmatter"
	"github.com/git-echoes/git-echoes/internal/pytext"
)

// Labels name the three versions in conflict markers, as git's %X/%Y
// labels do. With Diff3 set, conflicts also show the base version in a
// "|||||||" section (git's merge.conflictStyle=diff3).
type Labels struct {
	Ours, Base, Theirs string
	Diff3              bool
}

// MergePage merges three versions of an EchoesVault page for git's merge
// driver contract (`git echoes merge-driver %O %A %B %P`).
//
// When all three versions begin with frontmatter (an empty base counts as
// a page with no keys and no body), the frontmatter is merged key by key
// and the body line by line; otherwise the whole text is merged line by
// line as `git merge-file` does. A conflict is written as a standard
// conflict hunk, inside the frontmatter when a key conflicts, so the
// result fails page validation until a person resolves it. clean is false
// whenever a conflict hunk was written.
//
// The line endings of ours are kept: when ours uses only CRLF (or only LF),
// the other versions are read with the same convention and the result uses
// it too; mixed endings are merged byte for byte. A missing final newline
// is handled as git handles it.
func MergePage(base, ours, theirs []byte, labels Labels) (merged []byte, clean bool, err error) {
	for _, l := range []string{labels.Ours, labels.Base, labels.Theirs} {
		if strings.ContainsAny(l, "\r\n") {
			return nil, false, fmt.Errorf("merge page: conflict label %q contains a line break", l)
		}
	}
	opt := lineMergeOptions{ours: labels.Ours, base: labels.Base, theirs: labels.Theirs, diff3: labels.Diff3}

	eol := eolStyleOf(ours)
	b, o, t := string(base), string(ours), string(theirs)
	if eol != eolMixed {
		b = strings.ReplaceAll(b, "\r\n", "\n")
		o = strings.ReplaceAll(o, "\r\n", "\n")
		t = strings.ReplaceAll(t, "\r\n", "\n")
	}

	out, conflicts, paged := mergePageText(b, o, t, opt)
	if paged && conflicts == 0 && !keepsOneSidedLines(b, o, t, string(out)) {
		// Safety net: a page-aware clean merge must keep every line that
		// only one side added. If it ever would not, use git's semantics.
		paged = false
	}
	if !paged {
		out, conflicts = mergeLines(splitLines(b), splitLines(o), splitLines(t), opt)
	}
	if eol == eolCRLF {
		out = bytes.ReplaceAll(out, []byte("\n"), []byte("\r\n"))
	}
	return out, conflicts == 0, nil
}

type eolStyle int

const (
	eolMixed eolStyle = iota // mixed, or no line break at all
	eolLF
	eolCRLF
)

func eolStyleOf(text []byte) eolStyle {
	crlf := bytes.Count(text, []byte("\r\n"))
	lf := bytes.Count(text, []byte("\n")) - crlf
	switch {
	case crlf > 0 && lf == 0:
		return eolCRLF
	case lf > 0 && crlf == 0:
		return eolLF
	}
	return eolMixed
}

// page is a page cut at its frontmatter delimiters. Lines keep their
// terminators.
type page struct {
	prefix string   // whitespace before the opening delimiter (echoes-conformance §9 step 2 drops it)
	open   string   // the opening "---" line
	fm     []string // the lines between the delimiters
	close  string   // the closing "---" line (may lack its line break at EOF)
	body   []string // everything after the closing delimiter
}

// lineContent is a line without its "\n" or "\r\n".
func lineContent(l string) string {
	l = strings.TrimSuffix(l, "\n")
	return strings.TrimSuffix(l, "\r")
}

// splitPage cuts text at the frontmatter delimiters the way echoes-conformance §9 steps 2, 4
// and 5 find them: after leading whitespace, the first line must be "---",
// and the frontmatter ends at the next line that is exactly "---".
func splitPage(text string) (page, bool) {
	rest := strings.TrimLeftFunc(text, pytext.IsSpace)
	p := page{prefix: text[:len(text)-len(rest)]}
	lines := splitLines(rest)
	if len(lines) < 2 || lineContent(lines[0]) != "---" || !strings.HasSuffix(lines[0], "\n") {
		return page{}, false
	}
	p.open = lines[0]
	for i := 1; i < len(lines); i++ {
		if lineContent(lines[i]) == "---" {
			p.fm = lines[1:i]
			p.close = lines[i]
			p.body = lines[i+1:]
			return p, true
		}
	}
	return page{}, false
}

// fmBlock is one top-level key with its raw lines: the comments and blank
// lines before it (lead), then the key line and its continuation lines
// (own). The two parts are merged separately, so a comment added above a
// key does not collide with a change of its value.
type fmBlock struct {
	key  string
	lead []string
	own  []string
}

// parseFrontmatter cuts frontmatter lines into key blocks and the trailing
// lines after the last key. ok is false when a key is repeated, which echoes-conformance §9
// rejects anyway; such pages are merged line by line.
func parseFrontmatter(lines []string) (blocks []fmBlock, tail []string, ok bool) {
	seen := map[string]bool{}
	var pending []string
	for _, l := range lines {
		c := lineContent(l)
		key, _, isKey := frontmatter.KeyLine(c)
		switch {
		case frontmatter.Skippable(c):
			pending = append(pending, l)
		case !isKey:
			// An indented line, or an unindented line that is not a key
			// (for example "- go" under "stack:"), continues the current
			// key; before the first key it leads the first key.
			if len(blocks) == 0 {
				pending = append(pending, l)
				continue
			}
			cur := &blocks[len(blocks)-1]
			cur.own = append(cur.own, pending...)
			cur.own = append(cur.own, l)
			pending = nil
		default:
			if seen[key] {
				return nil, nil, false
			}
			seen[key] = true
			blocks = append(blocks, fmBlock{key: key, lead: pending, own: []string{l}})
			pending = nil
		}
	}
	return blocks, pending, true
}

// mergePageText is the page-aware merge of LF- or byte-normalized texts.
// paged is false when the texts are not all pages.
func mergePageText(b, o, t string, opt lineMergeOptions) (out []byte, conflicts int, paged bool) {
	po, okO := splitPage(o)
	pt, okT := splitPage(t)
	if !okO || !okT {
		return nil, 0, false
	}
	pb, okB := splitPage(b)
	if !okB {
		if pytext.Strip(b) != "" {
			return nil, 0, false
		}
		// Add/add: both sides created the page.
		pb = page{prefix: b, open: po.open, close: po.close}
	}
	bb, btail, ok1 := parseFrontmatter(pb.fm)
	ob, otail, ok2 := parseFrontmatter(po.fm)
	tb, ttail, ok3 := parseFrontmatter(pt.fm)
	if !ok1 || !ok2 || !ok3 {
		return nil, 0, false
	}

	var buf bytes.Buffer
	buf.WriteString(pickScalar(pb.prefix, po.prefix, pt.prefix))
	buf.WriteString(pickScalar(pb.open, po.open, pt.open))

	chunks, n := mergeBlocks(bb, ob, tb, opt)
	conflicts += n
	for _, c := range chunks {
		buf.Write(c)
	}
	tail, n := mergeChunk(btail, otail, ttail, true, true, true, opt)
	conflicts += n
	buf.Write(tail)

	body, n := mergeLines(pb.body, po.body, pt.body, opt)
	conflicts += n
	closeLine := pickScalar(pb.close, po.close, pt.close)
	if len(body) > 0 && !strings.HasSuffix(closeLine, "\n") {
		closeLine += "\n"
	}
	buf.WriteString(closeLine)
	buf.Write(body)
	return buf.Bytes(), conflicts, true
}

// pickScalar merges a value that carries no page content (whitespace
// before the frontmatter, the delimiter lines with their line breaks): a
// one-sided change wins, ours wins otherwise.
func pickScalar(b, o, t string) string {
	if o == b {
		return t
	}
	return o
}

// mergeChunk merges the lines of one key (or of the trailing lines) that
// may be absent from any version. A change on one side only is taken; the
// same change on both sides is taken once; otherwise the lines are merged
// line by line, which leaves conflict hunks where both sides changed the
// same lines.
func mergeChunk(b, o, t []string, inB, inO, inT bool, opt lineMergeOptions) ([]byte, int) {
	same := func(x []string, inX bool, y []string, inY bool) bool {
		return inX == inY && equalLines(x, y)
	}
	switch {
	case same(o, inO, t, inT), same(t, inT, b, inB):
		return []byte(strings.Join(o, "")), 0
	case same(o, inO, b, inB):
		return []byte(strings.Join(t, "")), 0
	}
	return mergeLines(b, o, t, opt)
}

// mergeBlocks merges frontmatter key blocks key by key. The result follows
// the key order of ours; keys that only theirs has are placed after their
// nearest predecessor in theirs that is kept (first when they lead theirs,
// last when no predecessor is kept).
func mergeBlocks(bb, ob, tb []fmBlock, opt lineMergeOptions) ([][]byte, int) {
	index := func(bs []fmBlock) map[string]fmBlock {
		m := make(map[string]fmBlock, len(bs))
		for _, b := range bs {
			m[b.key] = b
		}
		return m
	}
	bm, om, tm := index(bb), index(ob), index(tb)
	conflicts := 0
	mergeKey := func(b, o, t fmBlock, inB, inO, inT bool) []byte {
		lead, n1 := mergeChunk(b.lead, o.lead, t.lead, inB, inO, inT, opt)
		own, n2 := mergeChunk(b.own, o.own, t.own, inB, inO, inT, opt)
		conflicts += n1 + n2
		return append(lead, own...)
	}

	// The result is a list linked through next (-1 ends it), so that a
	// key is placed after its predecessor in O(1), not by a search and a
	// shift: a frontmatter of thousands of keys must not make the merge
	// quadratic (issue 11 item 12).
	var texts [][]byte
	var next []int
	head, tail := -1, -1
	at := map[string]int{} // key -> its entry, for the keys that are kept
	add := func(key string, text []byte) int {
		texts = append(texts, text)
		next = append(next, -1)
		at[key] = len(texts) - 1
		return len(texts) - 1
	}
	appendEntry := func(n int) {
		if tail == -1 {
			head = n
		} else {
			next[tail] = n
		}
		tail = n
	}
	for _, blk := range ob {
		b, inB := bm[blk.key]
		t, inT := tm[blk.key]
		if text := mergeKey(b, blk, t, inB, true, inT); len(text) > 0 {
			appendEntry(add(blk.key, text))
		}
	}
	// pred is the nearest key before the current one in theirs that is
	// kept; keys are unique in a version (parseFrontmatter), so it only
	// moves forward.
	pred := -1
	for ti, blk := range tb {
		if _, inO := om[blk.key]; inO {
			if _, kept := at[blk.key]; kept {
				pred = ti
			}
			continue
		}
		b, inB := bm[blk.key]
		text := mergeKey(b, fmBlock{}, blk, inB, false, true)
		if len(text) == 0 {
			continue
		}
		n := add(blk.key, text)
		switch {
		case pred >= 0:
			x := at[tb[pred].key]
			next[n], next[x] = next[x], n
			if tail == x {
				tail = n
			}
		case ti == 0:
			next[n] = head
			head = n
			if tail == -1 {
				tail = n
			}
		default:
			appendEntry(n)
		}
		pred = ti
	}
	chunks := make([][]byte, 0, len(texts))
	for n := head; n != -1; n = next[n] {
		chunks = append(chunks, texts[n])
	}
	return chunks, conflicts
}

// keepsOneSidedLines checks that every non-blank line that ours or theirs
// added (present in neither base nor the other side) is in out.
func keepsOneSidedLines(b, o, t, out string) bool {
	set := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, l := range strings.Split(pytext.UniversalNewlines(s), "\n") {
			if l = pytext.Strip(l); l != "" {
				m[l] = true
			}
		}
		return m
	}
	bs, os, ts, rs := set(b), set(o), set(t), set(out)
	for l := range os {
		if !bs[l] && !ts[l] && !rs[l] {
			return false
		}
	}
	for l := range ts {
		if !bs[l] && !os[l] && !rs[l] {
			return false
		}
	}
	return true
}

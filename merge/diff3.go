package merge

import (
	"bytes"
	"strings"
)

// This file is a port of git's three-way line merge (xdiff/xmerge.c) as
// `git merge-file` runs it: level XDL_MERGE_ZEALOUS_ALNUM with the default
// conflict style, XDL_MERGE_EAGER with the diff3 style, marker size 7.

const markerSize = 7

// hunk is an xdmerge_t. mode: 0 conflict, 1 take ours, 2 take theirs,
// 4 both sides made the same change (ours is kept).
type hunk struct {
	mode     int
	i0, chg0 int // base
	i1, chg1 int // ours
	i2, chg2 int // theirs
}

// lineMergeOptions are the labels and style of the conflict hunks.
type lineMergeOptions struct {
	ours, base, theirs string
	diff3              bool
}

// splitLines cuts s into lines that keep their "\n"; a last line without
// one is kept as it is. This is how xdiff cuts records.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// mergeLines merges the line lists three ways and returns the result and
// the number of conflict hunks written into it.
func mergeLines(base, ours, theirs []string, opt lineMergeOptions) ([]byte, int) {
	xscr1 := diffLines(base, ours)
	xscr2 := diffLines(base, theirs)
	if len(xscr1) == 0 {
		return []byte(strings.Join(theirs, "")), 0
	}
	if len(xscr2) == 0 {
		return []byte(strings.Join(ours, "")), 0
	}
	m := &merger{base: base, ours: ours, theirs: theirs, opt: opt}
	hunks := m.combine(xscr1, xscr2)
	if !opt.diff3 {
		// git keeps diff3-style conflicts whole (level EAGER).
		hunks = m.refineConflicts(hunks)
		hunks = m.simplifyNonConflicts(hunks)
	}
	return m.fill(hunks)
}

type merger struct {
	base, ours, theirs []string
	opt                lineMergeOptions
}

func equalLines(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// appendMerge is xdl_append_merge: a hunk that touches or overlaps the
// previous one is folded into it, and becomes a conflict when the two
// come from different sides.
func appendMerge(hs []hunk, h hunk) []hunk {
	if n := len(hs); n > 0 {
		m := &hs[n-1]
		if h.i1 <= m.i1+m.chg1 || h.i2 <= m.i2+m.chg2 {
			if h.mode != m.mode {
				m.mode = 0
			}
			m.chg0 = h.i0 + h.chg0 - m.i0
			m.chg1 = h.i1 + h.chg1 - m.i1
			m.chg2 = h.i2 + h.chg2 - m.i2
			return hs
		}
	}
	return append(hs, h)
}

// combine is the hunk pairing loop of xdl_do_merge.
func (m *merger) combine(s1, s2 []change) []hunk {
	var hs []hunk
	a, b := 0, 0
	for a < len(s1) && b < len(s2) {
		x1, x2 := s1[a], s2[b]
		if x1.i1+x1.chg1 < x2.i1 {
			hs = appendMerge(hs, hunk{mode: 1, i0: x1.i1, chg0: x1.chg1,
				i1: x1.i2, chg1: x1.chg2, i2: x2.i2 - x2.i1 + x1.i1, chg2: x1.chg1})
			a++
			continue
		}
		if x2.i1+x2.chg1 < x1.i1 {
			hs = appendMerge(hs, hunk{mode: 2, i0: x2.i1, chg0: x2.chg1,
				i1: x1.i2 - x1.i1 + x2.i1, chg1: x2.chg1, i2: x2.i2, chg2: x2.chg2})
			b++
			continue
		}
		if x1.i1 != x2.i1 || x1.chg1 != x2.chg1 || x1.chg2 != x2.chg2 ||
			!equalLines(m.ours[x1.i2:x1.i2+x1.chg2], m.theirs[x2.i2:x2.i2+x2.chg2]) {
			off := x1.i1 - x2.i1
			ffo := off + x1.chg1 - x2.chg1
			i0, i1, i2 := x1.i1, x1.i2, x2.i2
			if off > 0 {
				i0 -= off
				i1 -= off
			} else {
				i2 += off
			}
			chg0 := x1.i1 + x1.chg1 - i0
			chg1 := x1.i2 + x1.chg2 - i1
			chg2 := x2.i2 + x2.chg2 - i2
			if ffo < 0 {
				chg0 -= ffo
				chg1 -= ffo
			} else {
				chg2 += ffo
			}
			hs = appendMerge(hs, hunk{mode: 0, i0: i0, chg0: chg0, i1: i1, chg1: chg1, i2: i2, chg2: chg2})
		}
		e1 := x1.i1 + x1.chg1
		e2 := x2.i1 + x2.chg1
		if e1 >= e2 {
			b++
		}
		if e2 >= e1 {
			a++
		}
	}
	for ; a < len(s1); a++ {
		x1 := s1[a]
		hs = appendMerge(hs, hunk{mode: 1, i0: x1.i1, chg0: x1.chg1,
			i1: x1.i2, chg1: x1.chg2, i2: x1.i1 - len(m.base) + len(m.theirs), chg2: x1.chg1})
	}
	for ; b < len(s2); b++ {
		x2 := s2[b]
		hs = appendMerge(hs, hunk{mode: 2, i0: x2.i1, chg0: x2.chg1,
			i1: x2.i1 - len(m.base) + len(m.ours), chg1: x2.chg1, i2: x2.i2, chg2: x2.chg2})
	}
	return hs
}

// refineConflicts is xdl_refine_conflicts: a conflict is diffed between
// its two sides; identical sides resolve it, otherwise it is cut into the
// parts that really differ.
func (m *merger) refineConflicts(hs []hunk) []hunk {
	var out []hunk
	for _, h := range hs {
		if h.mode != 0 || h.chg1 == 0 || h.chg2 == 0 {
			out = append(out, h)
			continue
		}
		script := diffLines(m.ours[h.i1:h.i1+h.chg1], m.theirs[h.i2:h.i2+h.chg2])
		if len(script) == 0 {
			h.mode = 4
			out = append(out, h)
			continue
		}
		for k, c := range script {
			r := h
			if k > 0 {
				// Split-off parts keep the base range of the first one,
				// as in xdiff (it is only used by diff3 output).
				r.mode = 0
			}
			r.i1 = c.i1 + h.i1
			r.chg1 = c.chg1
			r.i2 = c.i2 + h.i2
			r.chg2 = c.chg2
			out = append(out, r)
		}
	}
	return out
}

func linesContainAlnum(lines []string) bool {
	for _, l := range lines {
		for i := 0; i < len(l); i++ {
			c := l[i]
			if c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
				return true
			}
		}
	}
	return false
}

// simplifyNonConflicts is xdl_simplify_non_conflicts with the ALNUM rule:
// two conflicts separated by at most three lines, or by lines without any
// letter or digit, become one.
func (m *merger) simplifyNonConflicts(hs []hunk) []hunk {
	if len(hs) == 0 {
		return hs
	}
	out := make([]hunk, 1, len(hs))
	out[0] = hs[0]
	for _, next := range hs[1:] {
		cur := &out[len(out)-1]
		begin := cur.i1 + cur.chg1
		end := next.i1
		if cur.mode != 0 || next.mode != 0 ||
			(end-begin > 3 && linesContainAlnum(m.ours[begin:end])) {
			out = append(out, next)
			continue
		}
		cur.chg1 = next.i1 + next.chg1 - cur.i1
		cur.chg2 = next.i2 + next.chg2 - cur.i2
	}
	return out
}

// isEOLCRLF is is_eol_crlf: 1 CRLF, 0 LF, -1 undecided.
func isEOLCRLF(lines []string, i int) int {
	has := func(l string) int {
		if len(l) > 1 && l[len(l)-2] == '\r' && l[len(l)-1] == '\n' {
			return 1
		}
		return 0
	}
	if i < len(lines)-1 {
		return has(lines[i])
	}
	if len(lines) == 0 {
		return -1
	}
	if l := lines[i]; l != "" && l[len(l)-1] == '\n' {
		return has(l)
	}
	if i == 0 {
		return -1
	}
	return has(lines[i-1])
}

// crNeeded is is_cr_needed: markers follow the line endings around them.
func (m *merger) crNeeded(h hunk) bool {
	at := func(i int) int {
		if i > 0 {
			return i - 1
		}
		return 0
	}
	n := isEOLCRLF(m.ours, at(h.i1))
	if n != 0 {
		n = isEOLCRLF(m.theirs, at(h.i2))
	}
	if n != 0 {
		n = isEOLCRLF(m.base, 0)
	}
	return n > 0
}

// copyLines writes lines; with addNL a missing final newline is added so
// that a following marker starts its own line.
func copyLines(buf *bytes.Buffer, lines []string, needsCR, addNL bool) {
	for _, l := range lines {
		buf.WriteString(l)
	}
	if addNL && len(lines) > 0 && !strings.HasSuffix(lines[len(lines)-1], "\n") {
		if needsCR {
			buf.WriteByte('\r')
		}
		buf.WriteByte('\n')
	}
}

func writeMarker(buf *bytes.Buffer, c byte, label string, needsCR bool) {
	buf.Write(bytes.Repeat([]byte{c}, markerSize))
	if label != "" {
		buf.WriteByte(' ')
		buf.WriteString(label)
	}
	if needsCR {
		buf.WriteByte('\r')
	}
	buf.WriteByte('\n')
}

// fill is xdl_fill_merge_buffer.
func (m *merger) fill(hs []hunk) ([]byte, int) {
	var buf bytes.Buffer
	conflicts := 0
	i := 0
	for _, h := range hs {
		switch {
		case h.mode == 0:
			conflicts++
			needsCR := m.crNeeded(h)
			copyLines(&buf, m.ours[i:h.i1], false, false)
			writeMarker(&buf, '<', m.opt.ours, needsCR)
			copyLines(&buf, m.ours[h.i1:h.i1+h.chg1], needsCR, true)
			if m.opt.diff3 {
				writeMarker(&buf, '|', m.opt.base, needsCR)
				copyLines(&buf, m.base[h.i0:h.i0+h.chg0], needsCR, true)
			}
			writeMarker(&buf, '=', "", needsCR)
			copyLines(&buf, m.theirs[h.i2:h.i2+h.chg2], needsCR, true)
			writeMarker(&buf, '>', m.opt.theirs, needsCR)
		case h.mode&3 != 0:
			copyLines(&buf, m.ours[i:h.i1], false, false)
			if h.mode&1 != 0 {
				copyLines(&buf, m.ours[h.i1:h.i1+h.chg1], m.crNeeded(h), h.mode&2 != 0)
			}
			if h.mode&2 != 0 {
				copyLines(&buf, m.theirs[h.i2:h.i2+h.chg2], false, false)
			}
		default:
			continue
		}
		i = h.i1 + h.chg1
	}
	copyLines(&buf, m.ours[i:], false, false)
	return buf.Bytes(), conflicts
}

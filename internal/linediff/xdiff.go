// Package linediff is git's xdiff line diff (Myers, no indent heuristic),
// shared by the merge driver (merge) and the freshness verdicts
// (gitvault/freshness), which map cited line ranges through each commit's
// diff as git blame does.
package linediff

import "math"

// This file is a line diff that reproduces the edit scripts of git's xdiff
// Myers implementation (xprepare.c, xdiffi.c: record classification,
// trimming of common ends, discarding of unmatched and "multimatch" lines,
// the bidirectional O(ND) middle-snake search and the group compaction),
// so that the merge driver agrees with `git merge-file` on which hunks
// overlap. That includes xdiff's cost-limiting heuristics (xdiffi.c
// xdl_split, as merge-file runs it: not XDF_NEED_MINIMAL), which only
// start above an edit cost of 256 lines. Small pages never reach them;
// without them, large inputs that differ a lot took time quadratic in
// their size, and got a more minimal edit script than git's, so other
// hunks and conflicts than `git merge-file` (issue 11 item 12).

// Change is one hunk of an edit script: a[I1:I1+Chg1] becomes b[I2:I2+Chg2].
type Change struct{ I1, I2, Chg1, Chg2 int }

// xdfile is one side of a diff.
type xdfile struct {
	ha           []int  // equivalence class of each record
	rchg         []bool // whether each record is changed
	dstart, dend int    // the range left after trimming common ends
	rindex       []int  // effective record -> record index
	hae          []int  // classes of the effective records
}

func (f *xdfile) changed(i int) bool { return i >= 0 && i < len(f.rchg) && f.rchg[i] }

// Lines returns git's (Myers, no indent heuristic) edit script from a
// to b, lines compared byte for byte including their terminators.
func Lines(a, b []string) []Change {
	if script, ok := oneHunk(a, b); ok {
		return script
	}
	return myers(a, b)
}

// oneHunk answers, without classifying a line, the scripts whose shape
// the common ends alone decide: once the leading and trailing lines both
// sides share are set aside (trimEnds), nothing left, lines only added
// or only removed, or one line replaced by one line. There the search
// has nothing to choose (it marks what is left changed), so the script
// is that one hunk, unless compaction would slide it: a group slides up
// when the line before it equals its last line and down when its first
// line equals the line after it (groupSlideUp, groupSlideDown), and
// those inputs go to the whole algorithm. The commonest change to a
// cited file is a one-line edit, and classifying every line of both
// sides for it was a fifth of the verdicts' line mapping on issue 18's
// cold benchmark.
func oneHunk(a, b []string) ([]Change, bool) {
	i, lim := 0, min(len(a), len(b))
	for i < lim && a[i] == b[i] {
		i++
	}
	j := 0
	for j < lim-i && a[len(a)-1-j] == b[len(b)-1-j] {
		j++
	}
	n1, n2 := len(a)-i-j, len(b)-i-j
	switch {
	case n1 == 0 && n2 == 0:
		return []Change{}, true
	case n1 == 0 || n2 == 0 || (n1 == 1 && n2 == 1):
		if slides(a, i, i+n1) || slides(b, i, i+n2) {
			return nil, false
		}
		return []Change{{I1: i, I2: i, Chg1: n1, Chg2: n2}}, true
	}
	return nil, false
}

// slides reports whether compaction could move the changed group
// recs[start:end] (none when empty).
func slides(recs []string, start, end int) bool {
	if start == end {
		return false
	}
	return (start > 0 && recs[start-1] == recs[end-1]) || (end < len(recs) && recs[start] == recs[end])
}

// myers is Lines without the shortcut of oneHunk.
func myers(a, b []string) []Change {
	classes := make(map[string]int, len(a)+len(b))
	var len1, len2 []int
	classify := func(recs []string, count *[]int) *xdfile {
		f := &xdfile{ha: make([]int, len(recs)), rchg: make([]bool, len(recs))}
		for i, r := range recs {
			id, ok := classes[r]
			if !ok {
				id = len(len1)
				classes[r] = id
				len1 = append(len1, 0)
				len2 = append(len2, 0)
			}
			(*count)[id]++
			f.ha[i] = id
		}
		return f
	}
	f1 := classify(a, &len1)
	f2 := classify(b, &len2)
	trimEnds(f1, f2)
	cleanupRecords(f1, f2, len1, len2)

	n1, n2 := len(f1.hae), len(f2.hae)
	ndiags := n1 + n2 + 3
	kv := &kvecs{
		fwd: make([]int, ndiags), bwd: make([]int, ndiags), off: n2 + 1,
		mxcost: max(bogosqrt(ndiags), maxCostMin),
	}
	// git merge-file does not ask for a minimal diff (XDF_NEED_MINIMAL).
	recsCmp(f1, 0, n1, f2, 0, n2, false, kv)

	compact(f1, f2)
	compact(f2, f1)
	return buildScript(f1, f2)
}

// trimEnds is xdl_trim_ends: common leading and trailing records are kept
// out of the search.
func trimEnds(f1, f2 *xdfile) {
	lim := min(len(f1.ha), len(f2.ha))
	i := 0
	for ; i < lim; i++ {
		if f1.ha[i] != f2.ha[i] {
			break
		}
	}
	f1.dstart, f2.dstart = i, i
	lim -= i
	j := 0
	for ; j < lim; j++ {
		if f1.ha[len(f1.ha)-1-j] != f2.ha[len(f2.ha)-1-j] {
			break
		}
	}
	f1.dend = len(f1.ha) - j - 1
	f2.dend = len(f2.ha) - j - 1
}

// bogosqrt is xdl_bogosqrt.
func bogosqrt(n int) int {
	i := 1
	for ; n > 0; n >>= 2 {
		i <<= 1
	}
	return i
}

const (
	maxEqLimit    = 1024 // XDL_MAX_EQLIMIT
	simscanWindow = 100  // XDL_SIMSCAN_WINDOW
	kpdisRun      = 4    // XDL_KPDIS_RUN
)

// cleanupRecords is xdl_cleanup_records: records without any match in the
// other file are changed outright, and records with many matches are
// dropped from the search when they sit inside runs of unmatched records.
func cleanupRecords(f1, f2 *xdfile, len1, len2 []int) {
	dis := func(f *xdfile, other []int) []byte {
		d := make([]byte, len(f.ha)+1)
		mlim := min(bogosqrt(len(f.ha)), maxEqLimit)
		for i := f.dstart; i <= f.dend; i++ {
			switch nm := other[f.ha[i]]; {
			case nm == 0:
				d[i] = 0
			case nm >= mlim:
				d[i] = 2
			default:
				d[i] = 1
			}
		}
		return d
	}
	dis1 := dis(f1, len2)
	dis2 := dis(f2, len1)
	keep := func(f *xdfile, d []byte) {
		f.rindex = make([]int, 0, f.dend+1-f.dstart)
		f.hae = make([]int, 0, f.dend+1-f.dstart)
		for i := f.dstart; i <= f.dend; i++ {
			if d[i] == 1 || (d[i] == 2 && !cleanMmatch(d, i, f.dstart, f.dend)) {
				f.rindex = append(f.rindex, i)
				f.hae = append(f.hae, f.ha[i])
			} else {
				f.rchg[i] = true
			}
		}
	}
	keep(f1, dis1)
	keep(f2, dis2)
}

// cleanMmatch is xdl_clean_mmatch.
func cleanMmatch(dis []byte, i, s, e int) bool {
	if i-s > simscanWindow {
		s = i - simscanWindow
	}
	if e-i > simscanWindow {
		e = i + simscanWindow
	}
	rdis0, rpdis0 := 0, 1
	for r := 1; i-r >= s; r++ {
		if dis[i-r] == 0 {
			rdis0++
		} else if dis[i-r] == 2 {
			rpdis0++
		} else {
			break
		}
	}
	if rdis0 == 0 {
		return false
	}
	rdis1, rpdis1 := 0, 1
	for r := 1; i+r <= e; r++ {
		if dis[i+r] == 0 {
			rdis1++
		} else if dis[i+r] == 2 {
			rpdis1++
		} else {
			break
		}
	}
	if rdis1 == 0 {
		return false
	}
	rdis1 += rdis0
	rpdis1 += rpdis0
	return rpdis1*kpdisRun < rpdis1+rdis1
}

// kvecs holds the forward and backward furthest-reaching vectors, indexed
// by diagonal (which may be negative) through off, and the search limits
// of xdalgoenv_t.
type kvecs struct {
	fwd, bwd []int
	off      int
	mxcost   int // edit cost after which split gives up on the optimum
}

const (
	maxCostMin  = 256 // XDL_MAX_COST_MIN
	heurMinCost = 256 // XDL_HEUR_MIN_COST
	snakeCnt    = 20  // XDL_SNAKE_CNT
	kHeur       = 4   // XDL_K_HEUR
)

// recsCmp is xdl_recs_cmp over the effective records. needMin asks for
// the optimal split of this box; without it split may settle for a good
// enough one (xdiffi.c's cost heuristics, which `git merge-file` uses).
func recsCmp(f1 *xdfile, off1, lim1 int, f2 *xdfile, off2, lim2 int, needMin bool, kv *kvecs) {
	for {
		ha1, ha2 := f1.hae, f2.hae
		for off1 < lim1 && off2 < lim2 && ha1[off1] == ha2[off2] {
			off1++
			off2++
		}
		for off1 < lim1 && off2 < lim2 && ha1[lim1-1] == ha2[lim2-1] {
			lim1--
			lim2--
		}
		switch {
		case off1 == lim1:
			for ; off2 < lim2; off2++ {
				f2.rchg[f2.rindex[off2]] = true
			}
			return
		case off2 == lim2:
			for ; off1 < lim1; off1++ {
				f1.rchg[f1.rindex[off1]] = true
			}
			return
		}
		sp := split(ha1, off1, lim1, ha2, off2, lim2, needMin, kv)
		recsCmp(f1, off1, sp.i1, f2, off2, sp.i2, sp.minLo, kv)
		// The second half is handled by the loop (tail call).
		off1, off2, needMin = sp.i1, sp.i2, sp.minHi
	}
}

// splitPoint is xdpsplit_t: where to cut the box, and whether each half
// must then be searched for its optimum.
type splitPoint struct {
	i1, i2       int
	minLo, minHi bool
}

// split is xdl_split: it returns the point where the forward and backward
// searches meet. Unless needMin is set, the search is cut short as in
// xdiff: past an edit cost of heurMinCost, a diagonal that has reached
// far along a snake of snakeCnt equal records is taken, and past mxcost
// the furthest-reaching diagonal is taken whatever it is. This bounds the
// work per box to O((N+M)·mxcost) instead of O((N+M)·D), which is what
// kept large, repetitive inputs from being quadratic (issue 11 item 12).
func split(ha1 []int, off1, lim1 int, ha2 []int, off2, lim2 int, needMin bool, kv *kvecs) splitPoint {
	dmin, dmax := off1-lim2, lim1-off2
	// kf and kb are the vectors cut to this box's diagonals, dmin-1 to
	// dmax+1, so that indexing them needs no closure; diagonal d is at o+d.
	kf := kv.fwd[kv.off+dmin-1 : kv.off+dmax+2]
	kb := kv.bwd[kv.off+dmin-1 : kv.off+dmax+2]
	o := 1 - dmin
	fmid, bmid := off1-off2, lim1-lim2
	odd := (fmid-bmid)&1 != 0
	fmin, fmax := fmid, fmid
	bmin, bmax := bmid, bmid
	kf[o+fmid] = off1
	kb[o+bmid] = lim1
	for ec := 1; ; ec++ {
		gotSnake := false
		if fmin > dmin {
			fmin--
			kf[o+fmin-1] = -1
		} else {
			fmin++
		}
		if fmax < dmax {
			fmax++
			kf[o+fmax+1] = -1
		} else {
			fmax--
		}
		for d := fmax; d >= fmin; d -= 2 {
			var i1 int
			if kf[o+d-1] >= kf[o+d+1] {
				i1 = kf[o+d-1] + 1
			} else {
				i1 = kf[o+d+1]
			}
			prev1 := i1
			i2 := i1 - d
			for i1 < lim1 && i2 < lim2 && ha1[i1] == ha2[i2] {
				i1++
				i2++
			}
			if i1-prev1 > snakeCnt {
				gotSnake = true
			}
			kf[o+d] = i1
			if odd && bmin <= d && d <= bmax && kb[o+d] <= i1 {
				return splitPoint{i1, i2, true, true}
			}
		}
		if bmin > dmin {
			bmin--
			kb[o+bmin-1] = math.MaxInt
		} else {
			bmin++
		}
		if bmax < dmax {
			bmax++
			kb[o+bmax+1] = math.MaxInt
		} else {
			bmax--
		}
		for d := bmax; d >= bmin; d -= 2 {
			var i1 int
			if kb[o+d-1] < kb[o+d+1] {
				i1 = kb[o+d-1]
			} else {
				i1 = kb[o+d+1] - 1
			}
			prev1 := i1
			i2 := i1 - d
			for i1 > off1 && i2 > off2 && ha1[i1-1] == ha2[i2-1] {
				i1--
				i2--
			}
			if prev1-i1 > snakeCnt {
				gotSnake = true
			}
			kb[o+d] = i1
			if !odd && fmin <= d && d <= fmax && i1 <= kf[o+d] {
				return splitPoint{i1, i2, true, true}
			}
		}
		if needMin {
			continue
		}

		// A diagonal is interesting when it got far from the corner
		// (i1+i2) without straying far from the middle diagonal, and
		// ends in a snake of at least snakeCnt equal records.
		if gotSnake && ec > heurMinCost {
			best, sp := 0, splitPoint{}
			for d := fmax; d >= fmin; d -= 2 {
				dd := abs(d - fmid)
				i1 := kf[o+d]
				i2 := i1 - d
				v := (i1 - off1) + (i2 - off2) - dd
				if v > kHeur*ec && v > best &&
					off1+snakeCnt <= i1 && i1 < lim1 && off2+snakeCnt <= i2 && i2 < lim2 {
					for k := 1; ha1[i1-k] == ha2[i2-k]; k++ {
						if k == snakeCnt {
							best, sp = v, splitPoint{i1, i2, true, false}
							break
						}
					}
				}
			}
			if best > 0 {
				return sp
			}
			for d := bmax; d >= bmin; d -= 2 {
				dd := abs(d - bmid)
				i1 := kb[o+d]
				i2 := i1 - d
				v := (lim1 - i1) + (lim2 - i2) - dd
				if v > kHeur*ec && v > best &&
					off1 < i1 && i1 <= lim1-snakeCnt && off2 < i2 && i2 <= lim2-snakeCnt {
					for k := 0; ha1[i1+k] == ha2[i2+k]; k++ {
						if k == snakeCnt-1 {
							best, sp = v, splitPoint{i1, i2, false, true}
							break
						}
					}
				}
			}
			if best > 0 {
				return sp
			}
		}

		// Enough is enough: take the furthest-reaching path by i1+i2.
		if ec >= kv.mxcost {
			fbest, fbest1 := -1, -1
			for d := fmax; d >= fmin; d -= 2 {
				i1 := min(kf[o+d], lim1)
				i2 := i1 - d
				if lim2 < i2 {
					i1, i2 = lim2+d, lim2
				}
				if fbest < i1+i2 {
					fbest, fbest1 = i1+i2, i1
				}
			}
			bbest, bbest1 := math.MaxInt, math.MaxInt
			for d := bmax; d >= bmin; d -= 2 {
				i1 := max(off1, kb[o+d])
				i2 := i1 - d
				if i2 < off2 {
					i1, i2 = off2+d, off2
				}
				if i1+i2 < bbest {
					bbest, bbest1 = i1+i2, i1
				}
			}
			if (lim1+lim2)-bbest < fbest-(off1+off2) {
				return splitPoint{fbest1, fbest - fbest1, true, false}
			}
			return splitPoint{bbest1, bbest - bbest1, false, true}
		}
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// group is a run of changed records [start, end) (xdlgroup).
type group struct{ start, end int }

func groupInit(f *xdfile) group {
	g := group{}
	for f.changed(g.end) {
		g.end++
	}
	return g
}

func groupNext(f *xdfile, g *group) bool {
	if g.end == len(f.rchg) {
		return false
	}
	g.start = g.end + 1
	for g.end = g.start; f.changed(g.end); g.end++ {
	}
	return true
}

func groupPrevious(f *xdfile, g *group) bool {
	if g.start == 0 {
		return false
	}
	g.end = g.start - 1
	for g.start = g.end; f.changed(g.start - 1); g.start-- {
	}
	return true
}

func groupSlideDown(f *xdfile, g *group) bool {
	if g.end < len(f.rchg) && f.ha[g.start] == f.ha[g.end] {
		f.rchg[g.start] = false
		f.rchg[g.end] = true
		g.start++
		g.end++
		for f.changed(g.end) {
			g.end++
		}
		return true
	}
	return false
}

func groupSlideUp(f *xdfile, g *group) bool {
	if g.start > 0 && f.ha[g.start-1] == f.ha[g.end-1] {
		g.start--
		g.end--
		f.rchg[g.start] = true
		f.rchg[g.end] = false
		for f.changed(g.start - 1) {
			g.start--
		}
		return true
	}
	return false
}

// compact is xdl_change_compact without the indent heuristic: each group
// of changes is slid as far down as it goes, then back up to line up with
// a change in the other file when that is possible.
func compact(f, fo *xdfile) {
	g := groupInit(f)
	gOther := groupInit(fo)
	for {
		if g.end != g.start {
			var earliestEnd, endMatchingOther int
			for {
				groupSize := g.end - g.start
				endMatchingOther = -1
				for groupSlideUp(f, &g) {
					groupPrevious(fo, &gOther)
				}
				earliestEnd = g.end
				if gOther.end > gOther.start {
					endMatchingOther = g.end
				}
				for groupSlideDown(f, &g) {
					groupNext(fo, &gOther)
					if gOther.end > gOther.start {
						endMatchingOther = g.end
					}
				}
				if groupSize == g.end-g.start {
					break
				}
			}
			if g.end != earliestEnd && endMatchingOther != -1 {
				for gOther.end == gOther.start {
					groupSlideUp(f, &g)
					groupPrevious(fo, &gOther)
				}
			}
		}
		if !groupNext(f, &g) {
			break
		}
		groupNext(fo, &gOther)
	}
}

// buildScript is xdl_build_script.
func buildScript(f1, f2 *xdfile) []Change {
	var rev []Change
	for i1, i2 := len(f1.rchg), len(f2.rchg); i1 >= 0 || i2 >= 0; i1, i2 = i1-1, i2-1 {
		if f1.changed(i1-1) || f2.changed(i2-1) {
			l1, l2 := i1, i2
			for f1.changed(i1 - 1) {
				i1--
			}
			for f2.changed(i2 - 1) {
				i2--
			}
			rev = append(rev, Change{I1: i1, I2: i2, Chg1: l1 - i1, Chg2: l2 - i2})
		}
	}
	out := make([]Change, len(rev))
	for i, c := range rev {
		out[len(rev)-1-i] = c
	}
	return out
}

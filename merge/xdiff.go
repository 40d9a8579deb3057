package merge

import "math"

// This file is a line diff that reproduces the edit scripts of git's xdiff
// Myers implementation (xprepare.c, xdiffi.c: record classification,
// trimming of common ends, discarding of unmatched and "multimatch" lines,
// the bidirectional O(ND) middle-snake search and the group compaction),
// so that the merge below agrees with `git merge-file` on which hunks
// overlap. xdiff's cost-limiting heuristics only start above an edit cost
// of 256 lines and are left out: pages are small, and without them the
// search is the plain O((N+M)D) algorithm.

// change is one hunk of an edit script: a[i1:i1+chg1] becomes b[i2:i2+chg2].
type change struct{ i1, i2, chg1, chg2 int }

// xdfile is one side of a diff.
type xdfile struct {
	ha           []int  // equivalence class of each record
	rchg         []bool // whether each record is changed
	dstart, dend int    // the range left after trimming common ends
	rindex       []int  // effective record -> record index
	hae          []int  // classes of the effective records
}

func (f *xdfile) changed(i int) bool { return i >= 0 && i < len(f.rchg) && f.rchg[i] }

// diffLines returns git's (Myers, no indent heuristic) edit script from a
// to b, lines compared byte for byte including their terminators.
func diffLines(a, b []string) []change {
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
	}
	recsCmp(f1, 0, n1, f2, 0, n2, kv)

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
// by diagonal (which may be negative) through off.
type kvecs struct {
	fwd, bwd []int
	off      int
}

// recsCmp is xdl_recs_cmp over the effective records.
func recsCmp(f1 *xdfile, off1, lim1 int, f2 *xdfile, off2, lim2 int, kv *kvecs) {
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
		s1, s2 := split(ha1, off1, lim1, ha2, off2, lim2, kv)
		recsCmp(f1, off1, s1, f2, off2, s2, kv)
		// The second half is handled by the loop (tail call).
		off1, off2 = s1, s2
	}
}

// split is xdl_split without the cost heuristics: it returns the point
// where the forward and backward searches meet.
func split(ha1 []int, off1, lim1 int, ha2 []int, off2, lim2 int, kv *kvecs) (int, int) {
	kf := func(d int) *int { return &kv.fwd[kv.off+d] }
	kb := func(d int) *int { return &kv.bwd[kv.off+d] }
	dmin, dmax := off1-lim2, lim1-off2
	fmid, bmid := off1-off2, lim1-lim2
	odd := (fmid-bmid)&1 != 0
	fmin, fmax := fmid, fmid
	bmin, bmax := bmid, bmid
	*kf(fmid) = off1
	*kb(bmid) = lim1
	for {
		if fmin > dmin {
			fmin--
			*kf(fmin - 1) = -1
		} else {
			fmin++
		}
		if fmax < dmax {
			fmax++
			*kf(fmax + 1) = -1
		} else {
			fmax--
		}
		for d := fmax; d >= fmin; d -= 2 {
			var i1 int
			if *kf(d - 1) >= *kf(d + 1) {
				i1 = *kf(d - 1) + 1
			} else {
				i1 = *kf(d + 1)
			}
			i2 := i1 - d
			for i1 < lim1 && i2 < lim2 && ha1[i1] == ha2[i2] {
				i1++
				i2++
			}
			*kf(d) = i1
			if odd && bmin <= d && d <= bmax && *kb(d) <= i1 {
				return i1, i2
			}
		}
		if bmin > dmin {
			bmin--
			*kb(bmin - 1) = math.MaxInt
		} else {
			bmin++
		}
		if bmax < dmax {
			bmax++
			*kb(bmax + 1) = math.MaxInt
		} else {
			bmax--
		}
		for d := bmax; d >= bmin; d -= 2 {
			var i1 int
			if *kb(d - 1) < *kb(d + 1) {
				i1 = *kb(d - 1)
			} else {
				i1 = *kb(d + 1) - 1
			}
			i2 := i1 - d
			for i1 > off1 && i2 > off2 && ha1[i1-1] == ha2[i2-1] {
				i1--
				i2--
			}
			*kb(d) = i1
			if !odd && fmin <= d && d <= fmax && i1 <= *kf(d) {
				return i1, i2
			}
		}
	}
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
func buildScript(f1, f2 *xdfile) []change {
	var rev []change
	for i1, i2 := len(f1.rchg), len(f2.rchg); i1 >= 0 || i2 >= 0; i1, i2 = i1-1, i2-1 {
		if f1.changed(i1-1) || f2.changed(i2-1) {
			l1, l2 := i1, i2
			for f1.changed(i1 - 1) {
				i1--
			}
			for f2.changed(i2 - 1) {
				i2--
			}
			rev = append(rev, change{i1: i1, i2: i2, chg1: l1 - i1, chg2: l2 - i2})
		}
	}
	out := make([]change, len(rev))
	for i, c := range rev {
		out[len(rev)-1-i] = c
	}
	return out
}

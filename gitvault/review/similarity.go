package review

import (
	"bytes"
	"sort"
	"strings"
)

// Rename detection and line counts for `git echoes diff` and `log`,
// following git's diffcore (diffcore-delta.c, diffcore-rename.c) so the
// referee `git diff -M --name-status` pairs the same files: exact renames
// first, then pairs whose similarity is at least 50%.

const (
	maxScore     = 60000 // git's MAX_SCORE
	minimumScore = 30000 // -M default: 50%
	spanHashBase = 107927
	// renameLimit is git's default diff.renameLimit: above limit^2
	// candidate pairs, only exact renames are detected.
	renameLimit = 1000
)

// spanCounts is diffcore-delta's hash_chars: byte counts per hash of
// chunks that end at a newline or after 64 bytes (CR of CRLF ignored in
// text).
func spanCounts(data []byte) map[uint32]uint64 {
	text := !isBinary(data)
	counts := map[uint32]uint64{}
	var accum1, accum2 uint32
	n := 0
	for i := 0; i < len(data); i++ {
		c := uint32(data[i])
		old1 := accum1
		if text && c == '\r' && i+1 < len(data) && data[i+1] == '\n' {
			continue
		}
		accum1 = (accum1 << 7) ^ (accum2 >> 25)
		accum2 = (accum2 << 7) ^ (old1 >> 25)
		accum1 += c
		n++
		if n < 64 && c != '\n' {
			continue
		}
		counts[(accum1+accum2*0x61)%spanHashBase] += uint64(n)
		n, accum1, accum2 = 0, 0, 0
	}
	if n > 0 {
		counts[(accum1+accum2*0x61)%spanHashBase] += uint64(n)
	}
	return counts
}

// isBinary is git's buffer_is_binary: a NUL in the first 8000 bytes.
func isBinary(data []byte) bool {
	return bytes.IndexByte(data[:min(len(data), 8000)], 0) >= 0
}

// renameFile is one side of a candidate rename.
type renameFile struct {
	path    string
	hash    string
	regular bool
	read    func() ([]byte, error)
	data    []byte
	counts  map[uint32]uint64
	loaded  bool
}

func (f *renameFile) load() error {
	if f.loaded {
		return nil
	}
	data, err := f.read()
	if err != nil {
		return err
	}
	f.data, f.loaded = data, true
	return nil
}

// similarity is estimate_similarity: the share of dst's material copied
// from src, in units of maxScore, or 0 when the sizes are too different.
func similarity(src, dst *renameFile) (int, error) {
	if !src.regular || !dst.regular {
		return 0, nil
	}
	if err := src.load(); err != nil {
		return 0, err
	}
	if err := dst.load(); err != nil {
		return 0, err
	}
	ss, ds := uint64(len(src.data)), uint64(len(dst.data))
	maxSize, baseSize := max(ss, ds), min(ss, ds)
	if baseSize*(maxScore-minimumScore) < (maxSize-baseSize)*maxScore {
		return 0, nil
	}
	if src.counts == nil {
		src.counts = spanCounts(src.data)
	}
	if dst.counts == nil {
		dst.counts = spanCounts(dst.data)
	}
	var copied uint64
	for h, sc := range src.counts {
		copied += min(sc, dst.counts[h])
	}
	if ds == 0 || maxSize == 0 {
		return 0, nil
	}
	return int(copied * maxScore / maxSize), nil
}

func basename(p string) string { return p[strings.LastIndexByte(p, '/')+1:] }

// renamePair is a detected rename: src index into removed, dst into added.
type renamePair struct {
	src, dst int
	score    int // maxScore for exact renames
}

// detectRenames pairs removed with added files as git diff -M does:
// exact content matches first (preferring the same basename), then the
// best inexact matches scoring at least 50%, each file used once.
func detectRenames(removed, added []*renameFile) ([]renamePair, error) {
	var pairs []renamePair
	srcUsed := make([]bool, len(removed))
	dstUsed := make([]bool, len(added))
	// Exact renames: for each added file, a removed file with the same blob.
	byHash := map[string][]int{}
	for i, f := range removed {
		byHash[f.hash] = append(byHash[f.hash], i)
	}
	for j, d := range added {
		cands := byHash[d.hash]
		best := -1
		for _, i := range cands {
			if srcUsed[i] || removed[i].regular != d.regular {
				continue
			}
			if best < 0 {
				best = i
			}
			if basename(removed[i].path) == basename(d.path) {
				best = i
				break
			}
		}
		if best >= 0 {
			srcUsed[best], dstUsed[j] = true, true
			pairs = append(pairs, renamePair{src: best, dst: j, score: maxScore})
		}
	}
	var srcs, dsts []int
	for i := range removed {
		if !srcUsed[i] {
			srcs = append(srcs, i)
		}
	}
	for j := range added {
		if !dstUsed[j] {
			dsts = append(dsts, j)
		}
	}
	if len(srcs) == 0 || len(dsts) == 0 || len(srcs)*len(dsts) > renameLimit*renameLimit {
		return pairs, nil
	}
	// Keep the best candidates per destination (git keeps 4), then take
	// pairs by descending score, ties to the same basename.
	type cand struct {
		src, dst, score int
		name            bool
	}
	var matrix []cand
	for _, j := range dsts {
		var top []cand
		for _, i := range srcs {
			s, err := similarity(removed[i], added[j])
			if err != nil {
				return nil, err
			}
			if s < minimumScore {
				continue
			}
			top = append(top, cand{i, j, s, basename(removed[i].path) == basename(added[j].path)})
		}
		sort.SliceStable(top, func(a, b int) bool { return top[a].score > top[b].score })
		if len(top) > 4 {
			top = top[:4]
		}
		matrix = append(matrix, top...)
	}
	sort.SliceStable(matrix, func(a, b int) bool {
		if matrix[a].score != matrix[b].score {
			return matrix[a].score > matrix[b].score
		}
		return matrix[a].name && !matrix[b].name
	})
	for _, c := range matrix {
		if srcUsed[c.src] || dstUsed[c.dst] {
			continue
		}
		srcUsed[c.src], dstUsed[c.dst] = true, true
		pairs = append(pairs, renamePair{src: c.src, dst: c.dst, score: c.score})
	}
	return pairs, nil
}

// lineCounts returns the lines added and removed between a and b, as git
// diff --numstat counts them on text: lines including their terminator,
// counted against a longest common subsequence (Myers).
func lineCounts(a, b []byte) (added, removed int) {
	la, lb := splitLinesKeep(a), splitLinesKeep(b)
	// Trim the common prefix and suffix first: most edits are local.
	p := 0
	for p < len(la) && p < len(lb) && la[p] == lb[p] {
		p++
	}
	la, lb = la[p:], lb[p:]
	s := 0
	for s < len(la) && s < len(lb) && la[len(la)-1-s] == lb[len(lb)-1-s] {
		s++
	}
	la, lb = la[:len(la)-s], lb[:len(lb)-s]
	lcs := lcsLength(la, lb)
	return len(lb) - lcs, len(la) - lcs
}

func splitLinesKeep(data []byte) []string {
	var out []string
	s := string(data)
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

// lcsLength is the length of a longest common subsequence of a and b, by
// Myers' O((N+M)D) greedy algorithm.
func lcsLength(a, b []string) int {
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		return 0
	}
	maxD := n + m
	off := maxD
	v := make([]int, 2*maxD+2)
	for d := 0; d <= maxD; d++ {
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[off+k] = x
			if x >= n && y >= m {
				return (n + m - d) / 2
			}
		}
	}
	return 0
}

package gitrepo

import (
	"encoding/binary"
	"errors"
	"math/bits"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

// Changed-path Bloom filters (git commit-graph write --changed-paths):
// for each commit of the commit-graph, a Bloom filter of the paths that
// differ between its first parent (the empty tree for a root) and it,
// each changed file with every directory above it (Git's
// Documentation/gitformat-commit-graph.txt, chunks "BIDX" and "BDAT";
// bloom.c, get_or_compute_bloom_filter and bloom_filter_contains).
//
// A filter answers "maybe" or "definitely not". "Maybe" is always
// checked by a tree comparison (ChangedFromFirstParent); "definitely not"
// is trusted only when the chunks are well formed, the hash version is
// one this reader computes exactly (1 or 2) and the commit's filter is
// non-empty and within the data chunk. Anything else is "maybe", which
// is the fallback when a repository has no filters at all.

const (
	cgChunkBloomIndex = 0x42494458 // "BIDX"
	cgChunkBloomData  = 0x42444154 // "BDAT"
	bloomHeaderSize   = 12         // BDAT: hash version, hash count, bits per entry
	bloomSeed0        = 0x293ae76f
	bloomSeed1        = 0x7e646e2c
	// bloomMaxHashes bounds the hash count read from a file: git writes
	// 7; a huge count would only cost time, never give a wrong answer.
	bloomMaxHashes = 64
)

// bloomFilters is the BIDX/BDAT pair of one commit-graph file.
type bloomFilters struct {
	index   []byte // n 4-byte offsets: the end of each commit's filter in data
	data    []byte // the filters, after the 12-byte header
	version uint32 // 1 or 2 (murmur3 as git v1 or v2 computes it)
	hashes  uint32 // k: bit positions per key
}

// parseBloom validates the chunks' shapes for a graph of n commits. It
// returns nil, nil when there are no filters (neither chunk).
func parseBloom(bidx, bdat []byte, haveIdx, haveData bool, n int) (*bloomFilters, error) {
	if !haveIdx && !haveData {
		return nil, nil
	}
	if !haveIdx || !haveData {
		return nil, errors.New("commit-graph: BIDX without BDAT or BDAT without BIDX")
	}
	if len(bidx) != 4*n {
		return nil, errors.New("commit-graph: BIDX size does not match the commit count")
	}
	if len(bdat) < bloomHeaderSize {
		return nil, errors.New("commit-graph: BDAT shorter than its header")
	}
	b := &bloomFilters{index: bidx, data: bdat[bloomHeaderSize:],
		version: binary.BigEndian.Uint32(bdat), hashes: binary.BigEndian.Uint32(bdat[4:])}
	if b.version != 1 && b.version != 2 {
		return nil, errors.New("commit-graph: unknown changed-path hash version")
	}
	if b.hashes == 0 || b.hashes > bloomMaxHashes {
		return nil, errors.New("commit-graph: changed-path hash count out of range")
	}
	return b, nil
}

// filter returns the filter of the commit at graph position pos, or false
// when it cannot be used: an offset past the data or decreasing (git
// ignores those too, bloom.c check_bloom_offset), or an empty filter (git
// writes at least one byte; zero bytes means "not computed").
func (b *bloomFilters) filter(pos int) ([]byte, bool) {
	if b == nil || pos < 0 || 4*pos+4 > len(b.index) {
		return nil, false
	}
	end := binary.BigEndian.Uint32(b.index[4*pos:])
	start := uint32(0)
	if pos > 0 {
		start = binary.BigEndian.Uint32(b.index[4*pos-4:])
	}
	if end < start || uint64(end) > uint64(len(b.data)) || end == start {
		return nil, false
	}
	return b.data[start:end], true
}

// mayContain reports whether the filter may hold the key (its two base
// hashes), as bloom_filter_contains tests it: bit (h0 + i*h1) mod the
// filter's bit count, for i below the hash count, byte by byte, the low
// bit first.
func (b *bloomFilters) mayContain(f []byte, k bloomKey) bool {
	mod := uint64(len(f)) * 8
	for i := uint32(0); i < b.hashes; i++ {
		h := uint64(k.h0+i*k.h1) % mod
		if f[h/8]&(1<<(h%8)) == 0 {
			return false
		}
	}
	return true
}

type bloomKey struct{ h0, h1 uint32 }

// murmur3 is the 32-bit seeded MurmurHash3 git uses for changed-path
// filters, as version 2 computes it (every byte read unsigned). Version
// 1 is git's earlier code, which read the last (len mod 4) bytes as plain
// char: where char is signed a byte of 0x80 or more was sign extended,
// elsewhere not, so a version 1 filter of a path with such a byte depends
// on the machine that wrote it. For every other path the two versions
// agree; BloomPath never trusts version 1 for such a path.
func murmur3(seed uint32, data []byte) uint32 {
	const (
		c1 = 0xcc9e2d51
		c2 = 0x1b873593
	)
	h := seed
	n4 := len(data) / 4
	for i := 0; i < n4; i++ {
		k := binary.LittleEndian.Uint32(data[4*i:])
		k *= c1
		k = bits.RotateLeft32(k, 15)
		k *= c2
		h ^= k
		h = bits.RotateLeft32(h, 13)*5 + 0xe6546b64
	}
	tail := data[4*n4:]
	byteAt := func(i int) uint32 { return uint32(tail[i]) }
	var k1 uint32
	switch len(tail) {
	case 3:
		k1 ^= byteAt(2) << 16
		fallthrough
	case 2:
		k1 ^= byteAt(1) << 8
		fallthrough
	case 1:
		k1 ^= byteAt(0)
		k1 *= c1
		k1 = bits.RotateLeft32(k1, 15)
		k1 *= c2
		h ^= k1
	}
	h ^= uint32(len(data))
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return h
}

// BloomPath is a path prepared for the changed-path filters: the keys of
// the path and of every directory above it (git adds all of them for a
// changed file, so a filter that lacks any of them lacks the path).
type BloomPath struct {
	Path string
	keys []bloomKey // nil: the filters cannot answer for this path
}

// BloomPath prepares path (slash-separated, repository-relative) for
// ChangedFromFirstParent. It is cheap to keep one per cited path.
func (t *TreeReader) BloomPath(path string) *BloomPath {
	p := &BloomPath{Path: path}
	b := t.graph().bloomFilters()
	if b == nil || path == "" || strings.HasPrefix(path, "/") || strings.HasSuffix(path, "/") {
		return p
	}
	if b.version == 1 {
		for i := 0; i < len(path); i++ {
			if path[i] >= 0x80 {
				return p // version 1 hashed such bytes as the writer's platform did: unknown
			}
		}
	}
	for q := path; ; {
		data := []byte(q)
		p.keys = append(p.keys, bloomKey{murmur3(bloomSeed0, data), murmur3(bloomSeed1, data)})
		i := strings.LastIndexByte(q, '/')
		if i < 0 {
			break
		}
		q = q[:i]
	}
	return p
}

func (g *commitGraph) bloomFilters() *bloomFilters {
	if g == nil {
		return nil
	}
	return g.bloom
}

// Generation returns the commit-graph's generation number of a commit
// (its topological level: a commit's is larger than each of its parents'),
// or false when the graph does not list the commit or has none. The graph
// holds every ancestor of a commit it lists, so a commit it does not list
// is no ancestor of one it does.
func (t *TreeReader) Generation(commit string) (uint32, bool) {
	if len(commit) != 40 {
		return 0, false
	}
	h := plumbing.NewHash(commit)
	return t.graph().generation(h[:])
}

// InCommitGraph reports whether the commit-graph lists the commit.
func (t *TreeReader) InCommitGraph(commit string) bool {
	if t.graph() == nil || len(commit) != 40 {
		return false
	}
	h := plumbing.NewHash(commit)
	_, ok := t.graph().pos(h[:])
	return ok
}

// HasChangedPathFilters reports whether the commit-graph carries usable
// changed-path Bloom filters.
func (t *TreeReader) HasChangedPathFilters() bool { return t.graph().bloomFilters() != nil }

// MaybeChanged reports whether the commit may change p against its first
// parent (against the empty tree for a root commit). It is false only
// when the commit's changed-path filter is usable and definitely lacks
// p; true says nothing (see ChangedFromFirstParent for the answer).
func (t *TreeReader) MaybeChanged(commit string, p *BloomPath) bool {
	f, ok := t.ChangedPathFilter(commit)
	return !ok || f.MaybeChanged(p)
}

// ChangedPathFilter is one commit's usable changed-path filter, kept by a
// walk that asks it about paths it learns of later (freshness follows a
// cited file through its renames).
type ChangedPathFilter struct {
	b *bloomFilters
	f []byte
}

// ChangedPathFilter returns the commit's filter; false when there is none
// to use (no filters, a commit the graph does not list, a filter git
// would not use either).
func (t *TreeReader) ChangedPathFilter(commit string) (ChangedPathFilter, bool) {
	b := t.graph().bloomFilters()
	if b == nil || len(commit) != 40 {
		return ChangedPathFilter{}, false
	}
	h := plumbing.NewHash(commit)
	pos, ok := t.graph().pos(h[:])
	if !ok {
		return ChangedPathFilter{}, false
	}
	f, ok := b.filter(pos)
	if !ok {
		return ChangedPathFilter{}, false
	}
	return ChangedPathFilter{b, f}, true
}

// MaybeChanged is TreeReader.MaybeChanged with the filter in hand: false
// only when the filter definitely lacks p (or a directory above it).
func (f ChangedPathFilter) MaybeChanged(p *BloomPath) bool {
	if f.b == nil || p == nil || p.keys == nil {
		return true
	}
	for _, k := range p.keys {
		if !f.b.mayContain(f.f, k) {
			return false
		}
	}
	return true
}

// ChangedFromFirstParent reports whether commit c has a different entry
// (id or mode, or presence) at p than its first parent has (than the
// empty tree, for a root): the question git log -- PATH asks of a
// commit's first parent. The filter is asked first; a "maybe" is
// answered by comparing the trees.
func (t *TreeReader) ChangedFromFirstParent(c *Commit, p *BloomPath) (bool, error) {
	if !t.MaybeChanged(c.Hash, p) {
		return false, nil
	}
	if len(c.Parents) == 0 {
		_, ok, err := t.Entry(c.Tree, p.Path)
		return ok, err
	}
	pc, err := t.CommitHeader(c.Parents[0])
	if err != nil {
		return false, err
	}
	same, err := t.SameEntry(pc.Tree, c.Tree, p.Path)
	return !same, err
}

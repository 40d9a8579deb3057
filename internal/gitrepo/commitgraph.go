package gitrepo

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"
)

// commitGraph reads a repository's commit-graph file
// (objects/info/commit-graph), which gives each commit's root tree,
// parents and committer date without inflating the commit. The format is
// Git's Documentation/gitformat-commit-graph.txt ("File Layout": header,
// chunk lookup, the OID Fanout, OID Lookup, Commit Data and Extra Edge
// List chunks, and a trailing checksum).
//
// Like objStore it is an accelerator: a file that is absent, split
// (commit-graphs/ chains, a base graph count above 0), of another version
// or hash, damaged (the checksum over the whole file is verified on open,
// every chunk's size and every parent position is checked) is not used,
// and a commit it does not list is read from the object store.
type commitGraph struct {
	n      int
	fanout []byte        // OIDF: 256 4-byte counts
	oids   []byte        // OIDL: n 20-byte ids, sorted
	data   []byte        // CDAT: n records of tree id, two parent positions, generation and date
	edges  []byte        // EDGE: 4-byte parent positions, optional
	bloom  *bloomFilters // BIDX and BDAT, optional (bloom.go)
}

// Chunk ids and the "no parent" and "more parents" markers
// (gitformat-commit-graph, "Chunk Data").
const (
	cgChunkFanout  = 0x4f494446 // "OIDF"
	cgChunkLookup  = 0x4f49444c // "OIDL"
	cgChunkData    = 0x43444154 // "CDAT"
	cgChunkEdges   = 0x45444745 // "EDGE"
	cgNoParent     = 0x70000000
	cgExtraParents = 0x80000000
	cgRecordSize   = 20 + 4 + 4 + 8
)

// readCommitGraph reads and parses the file at path, and returns what it
// read with the file's information, from the descriptor it was read
// through: the two are of one file even when git replaces the file
// meanwhile. A nil graph (no file, or one not used) comes with the
// information of the file that was read, nil when none was.
func readCommitGraph(path string) (*commitGraph, os.FileInfo) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil, nil
	}
	data, err := io.ReadAll(io.LimitReader(f, fi.Size()+1))
	if err != nil || int64(len(data)) != fi.Size() {
		return nil, nil // changed under us: not remembered, read again next time
	}
	g, err := parseCommitGraph(data)
	if err != nil {
		return nil, fi
	}
	return g, fi
}

// sharedGraph is a repository's commit-graph, parsed once and shared by
// its readers (read only: a parsed graph is never written to). Each
// reader of a cold stale read the 600 KB file and checked its SHA-1 for
// itself, six times a run (issue 18, cold). Git writes the file to a
// lock file and renames it over the old one, so a file that is still the
// one read (the same file, size and modification time) has the same
// content; anything else is read again, so that a long-lived process
// (the MCP server) sees a graph git rewrote.
type sharedGraph struct {
	mu sync.Mutex
	fi os.FileInfo // of the file g was read from; nil before a read
	g  *commitGraph
}

// commitGraph returns the repository's parsed commit-graph, or nil, at
// the cost of a stat when the file has not changed since it was read.
func (r *Repo) commitGraph() *commitGraph {
	path := filepath.Join(r.commonDir, "objects", "info", "commit-graph")
	s := &r.graph
	s.mu.Lock()
	defer s.mu.Unlock()
	now, err := os.Stat(path)
	if err != nil {
		s.fi, s.g = nil, nil
		return nil
	}
	if s.fi != nil && os.SameFile(s.fi, now) && s.fi.Size() == now.Size() && s.fi.ModTime().Equal(now.ModTime()) {
		return s.g
	}
	s.g, s.fi = readCommitGraph(path)
	return s.g
}

// parseCommitGraph validates a commit-graph file and indexes its chunks.
func parseCommitGraph(b []byte) (*commitGraph, error) {
	// Header: "CGPH", version 1, hash version 1 (SHA-1), chunk count,
	// base graph count. Trailer: the SHA-1 of everything before it.
	if len(b) < 8+12+20 || string(b[:4]) != "CGPH" || b[4] != 1 || b[5] != 1 {
		return nil, errors.New("commit-graph: not a version 1 SHA-1 file")
	}
	if b[7] != 0 {
		return nil, errors.New("commit-graph: split graphs are not read")
	}
	body := b[:len(b)-20]
	if sum := sha1.Sum(body); !bytes.Equal(sum[:], b[len(b)-20:]) {
		return nil, errors.New("commit-graph: checksum mismatch")
	}
	chunks := int(b[6])
	if 8+(chunks+1)*12 > len(body) {
		return nil, errors.New("commit-graph: truncated chunk table")
	}
	g := &commitGraph{}
	var bidx, bdat []byte
	seen := map[uint32]bool{}
	for i := 0; i < chunks; i++ {
		e := b[8+i*12:]
		id := binary.BigEndian.Uint32(e)
		start := binary.BigEndian.Uint64(e[4:])
		end := binary.BigEndian.Uint64(e[16:]) // the next entry's offset ends this chunk
		if id == 0 || seen[id] || start < uint64(8+(chunks+1)*12) || end < start || end > uint64(len(body)) {
			return nil, errors.New("commit-graph: bad chunk table")
		}
		seen[id] = true
		c := body[start:end]
		switch id {
		case cgChunkFanout:
			g.fanout = c
		case cgChunkLookup:
			g.oids = c
		case cgChunkData:
			g.data = c
		case cgChunkEdges:
			g.edges = c
		case cgChunkBloomIndex:
			bidx = c
		case cgChunkBloomData:
			bdat = c
		}
	}
	if binary.BigEndian.Uint32(b[8+chunks*12:]) != 0 {
		return nil, errors.New("commit-graph: chunk table not terminated")
	}
	if len(g.fanout) != 256*4 {
		return nil, errors.New("commit-graph: bad fan-out chunk")
	}
	prev := uint32(0)
	for i := 0; i < 256; i++ {
		v := binary.BigEndian.Uint32(g.fanout[4*i:])
		if v < prev {
			return nil, errors.New("commit-graph: fan-out not monotonic")
		}
		prev = v
	}
	g.n = int(prev)
	if g.n > len(g.oids)/20 || len(g.oids) != g.n*20 || len(g.data) != g.n*cgRecordSize || len(g.edges)%4 != 0 {
		return nil, errors.New("commit-graph: chunk sizes do not match the commit count")
	}
	// Filters that do not parse are not used; the graph still is.
	if bl, err := parseBloom(bidx, bdat, seen[cgChunkBloomIndex], seen[cgChunkBloomData], g.n); err == nil {
		g.bloom = bl
	}
	return g, nil
}

// pos returns the position of a commit in the graph, or false.
func (g *commitGraph) pos(id []byte) (int, bool) {
	lo := 0
	if id[0] > 0 {
		lo = int(binary.BigEndian.Uint32(g.fanout[4*(int(id[0])-1):]))
	}
	hi := int(binary.BigEndian.Uint32(g.fanout[4*int(id[0]):]))
	if lo > hi || hi > g.n {
		return 0, false
	}
	i := lo + sort.Search(hi-lo, func(k int) bool { return bytes.Compare(g.oids[(lo+k)*20:(lo+k)*20+20], id) >= 0 })
	if i >= hi || !bytes.Equal(g.oids[i*20:i*20+20], id) {
		return 0, false
	}
	return i, true
}

// lookup returns a commit's tree, parents and committer date. ok is false
// when the commit is not in the graph, the record is inconsistent, or the
// date is 0 (git stores 0 for a date it could not parse; the object store
// is asked then, so the date is the one go-git reads).
func (g *commitGraph) lookup(id []byte) (tree string, parents []string, when time.Time, ok bool) {
	if g == nil || len(id) != 20 {
		return "", nil, time.Time{}, false
	}
	i, found := g.pos(id)
	if !found {
		return "", nil, time.Time{}, false
	}
	r := g.data[i*cgRecordSize : (i+1)*cgRecordSize]
	parent := func(p uint32) (string, bool) {
		if int64(p) >= int64(g.n) {
			return "", false
		}
		return hex.EncodeToString(g.oids[int(p)*20 : int(p)*20+20]), true
	}
	p1, p2 := binary.BigEndian.Uint32(r[20:]), binary.BigEndian.Uint32(r[24:])
	switch {
	case p1 == cgNoParent:
		if p2 != cgNoParent {
			return "", nil, time.Time{}, false
		}
	default:
		h, ok := parent(p1)
		if !ok {
			return "", nil, time.Time{}, false
		}
		parents = append(parents, h)
		switch {
		case p2 == cgNoParent:
		case p2&cgExtraParents != 0:
			// The second and further parents are a run of the EDGE
			// chunk, its last entry marked by the high bit.
			for k := int(p2 &^ cgExtraParents); ; k++ {
				if k >= len(g.edges)/4 || len(parents) > g.n {
					return "", nil, time.Time{}, false
				}
				e := binary.BigEndian.Uint32(g.edges[4*k:])
				h, ok := parent(e &^ cgExtraParents)
				if !ok {
					return "", nil, time.Time{}, false
				}
				parents = append(parents, h)
				if e&cgExtraParents != 0 {
					break
				}
			}
		default:
			h, ok := parent(p2)
			if !ok {
				return "", nil, time.Time{}, false
			}
			parents = append(parents, h)
		}
	}
	// The date: the low 2 bits of the first word and the second word (34
	// bits of seconds); the rest of the first word is the generation.
	sec := int64(binary.BigEndian.Uint32(r[28:])&3)<<32 | int64(binary.BigEndian.Uint32(r[32:]))
	if sec == 0 {
		return "", nil, time.Time{}, false
	}
	return hex.EncodeToString(r[:20]), parents, time.Unix(sec, 0), true
}

// generation returns a commit's generation number (version 1, its
// topological level: 1 for a root, else one more than its parents'
// largest) from the Commit Data chunk: the upper 30 bits of the word
// before the date (gitformat-commit-graph, "Commit Data (ID: {'C', 'D',
// 'A', 'T' })"). ok is false when the commit is not in the graph or the
// graph was written without generation numbers (0, GENERATION_NUMBER_ZERO
// in git's commit-graph.h).
func (g *commitGraph) generation(id []byte) (uint32, bool) {
	if g == nil || len(id) != 20 {
		return 0, false
	}
	i, found := g.pos(id)
	if !found {
		return 0, false
	}
	gen := binary.BigEndian.Uint32(g.data[i*cgRecordSize+28:]) >> 2
	return gen, gen != 0
}

// CommitCountHint is the number of commits the commit-graph file says it
// lists, 0 without a file of the version the reader reads: the last
// count of its fan-out, read without the file's checksum or the rest of
// it (about 1 KB instead of the whole file). A hint for sizing memory
// ahead of a walk (freshness's heap prefault), never for an answer: a
// damaged file gives a wrong number, which only sizes that memory.
func (r *Repo) CommitCountHint() int {
	f, err := os.Open(filepath.Join(r.commonDir, "objects", "info", "commit-graph"))
	if err != nil {
		return 0
	}
	defer f.Close()
	var head [8]byte
	if _, err := f.ReadAt(head[:], 0); err != nil || string(head[:4]) != "CGPH" || head[4] != 1 || head[5] != 1 || head[7] != 0 {
		return 0
	}
	table := make([]byte, 12*int(head[6]))
	if _, err := f.ReadAt(table, 8); err != nil {
		return 0
	}
	for i := 0; i+12 <= len(table); i += 12 {
		if binary.BigEndian.Uint32(table[i:]) != cgChunkFanout {
			continue
		}
		var last [4]byte
		off := binary.BigEndian.Uint64(table[i+4:])
		if off > 1<<40 {
			return 0
		}
		if _, err := f.ReadAt(last[:], int64(off)+255*4); err != nil {
			return 0
		}
		return int(binary.BigEndian.Uint32(last[:]))
	}
	return 0
}

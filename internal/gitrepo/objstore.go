package gitrepo

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/klauspost/compress/zlib"
)

// objStore is a read-only reader of a repository's own object directory
// (pack files with a version 2 index, and loose objects) for history
// walks, where go-git's reader spent most of its time hashing every object
// it rebuilt from a delta (its cache is keyed by object id) and copying
// through buffers. Rebuilt objects are cached here by their place in the
// pack, Git's own delta base cache (core.deltaBaseCacheLimit), so a delta
// chain is applied once per walk.
//
// It is an accelerator, never the authority: whatever it cannot read (an
// object in an alternate object directory, a version 1 index, a damaged
// pack) it reports as not found, and the caller asks go-git, which then
// gives the answer or the error it always gave.
//
// Formats: Git's Documentation/gitformat-pack.txt ("pack-*.pack files
// have the following format", "Deltified representation", "Version 2 pack
// -*.idx files support packs larger than 4 GiB") and, for loose objects,
// Documentation/user-manual.txt ("Object storage format").
type objStore struct {
	dir   string // the objects directory
	packs []*packFile
	cache objCache
	zr    io.ReadCloser // a reusable zlib reader (zlib.Resetter)
	inf   inflater      // tried first on a stream inside one window (inflate.go)
	br    bytes.Reader  // the reader zr reads a window through
	// deltas are the buffers the deltas of one chain are inflated into,
	// reused from chain to chain: a delta is read once, applied and
	// dropped, so allocating each one was most of a walk's garbage.
	deltas [][]byte

	// Pack bytes are read in aligned windows kept in memory (git's
	// core.packedGitWindowSize, read instead of mapped), most recent
	// last, so the many small objects of a walk cost no system call each.
	windows map[winKey][]byte
	winFIFO []winKey
}

type winKey struct {
	pack int
	n    int64 // offset / windowSize
}

// windowSize is a variable so that a test can make streams cross window
// boundaries often; maxWindows windows are kept (4 MiB).
var windowSize int64 = 256 << 10

const maxWindows = 16

// window returns the bytes of pack pi from off to the end of off's
// window (at least one byte, or an error).
func (s *objStore) window(pi int, off int64) ([]byte, error) {
	p := s.packs[pi]
	if off < 0 || off >= p.size {
		return nil, io.ErrUnexpectedEOF
	}
	if p.mapped != nil {
		return p.mapped[off:], nil
	}
	k := winKey{pi, off / windowSize}
	w, ok := s.windows[k]
	if !ok {
		start := k.n * windowSize
		if s.windows == nil {
			s.windows = map[winKey][]byte{}
		}
		// The oldest window's memory is reused: nothing holds a window
		// across a call of window (an inflate reads one at a time, and
		// headers are copied out), and fresh memory is what a short
		// process pays for most (a page fault per page).
		var buf []byte
		if len(s.winFIFO) >= maxWindows {
			buf = s.windows[s.winFIFO[0]][:0]
			delete(s.windows, s.winFIFO[0])
			s.winFIFO = s.winFIFO[1:]
		}
		n := min(windowSize, p.size-start)
		if int64(cap(buf)) >= n {
			w = buf[:n]
		} else {
			w = make([]byte, n)
		}
		if _, err := p.f.ReadAt(w, start); err != nil {
			delete(s.windows, k)
			return nil, err
		}
		s.windows[k] = w
		s.winFIFO = append(s.winFIFO, k)
	}
	return w[off-k.n*windowSize:], nil
}

// packReader reads a pack from an offset through the windows.
type packReader struct {
	s   *objStore
	pi  int
	off int64
	buf []byte
}

func (r *packReader) fill() error {
	if len(r.buf) == 0 {
		b, err := r.s.window(r.pi, r.off)
		if err != nil {
			return err
		}
		r.buf = b
	}
	return nil
}

func (r *packReader) Read(b []byte) (int, error) {
	if err := r.fill(); err != nil {
		return 0, err
	}
	n := copy(b, r.buf)
	r.buf, r.off = r.buf[n:], r.off+int64(n)
	return n, nil
}

func (r *packReader) ReadByte() (byte, error) {
	if err := r.fill(); err != nil {
		return 0, err
	}
	c := r.buf[0]
	r.buf, r.off = r.buf[1:], r.off+1
	return c, nil
}

// bytesAt reads n bytes of pack pi at off (fewer at the end of the pack).
func (s *objStore) bytesAt(pi int, off int64, b []byte) int {
	// A header or a base offset lies within one window almost always:
	// copied from it directly, without the reader that escapes through
	// io.ReadFull (its allocation and copy were a twentieth of a cold
	// stale's diffs, issue 18).
	if w, err := s.window(pi, off); err == nil && len(w) >= len(b) {
		return copy(b, w)
	}
	r := packReader{s: s, pi: pi, off: off}
	n, _ := io.ReadFull(&r, b)
	return n
}

// Object type numbers in a pack (gitformat-pack, "Object types").
const (
	objCommit   = 1
	objTree     = 2
	objBlob     = 3
	objTag      = 4
	objOfsDelta = 6
	objRefDelta = 7
)

// maxDeltaChain bounds a delta chain: git's pack-objects refuses a
// --depth above 4095, so a longer chain (or a REF_DELTA cycle) is damage.
const maxDeltaChain = 10000

// maxObjectSize bounds what one object may claim to inflate to, so a
// damaged header cannot make us allocate without bound. Larger objects are
// left to go-git, which streams them.
const maxObjectSize = 512 << 20

var errNotHere = errors.New("object not readable by the fast reader")

func openObjStore(objectsDir string) *objStore {
	s := &objStore{dir: objectsDir, cache: newObjCache(4 << 20)}
	names, _ := filepath.Glob(filepath.Join(objectsDir, "pack", "pack-*.idx"))
	sort.Strings(names)
	for _, idx := range names {
		p, err := openPack(idx)
		if err == nil {
			s.packs = append(s.packs, p)
		}
	}
	return s
}

func (s *objStore) Close() error {
	var first error
	for _, p := range s.packs {
		if p.mapped != nil {
			if err := unmapPack(p.mapped); err != nil && first == nil {
				first = err
			}
			p.mapped = nil
		}
		if p.idxMapped {
			if err := unmapPack(p.idx); err != nil && first == nil {
				first = err
			}
			p.idx, p.idxMapped = nil, false
		}
		if err := p.f.Close(); err != nil && first == nil {
			first = err
		}
	}
	s.packs = nil
	return first
}

// packFile is one pack and its index, held in memory.
type packFile struct {
	f      *os.File
	size   int64
	idx    []byte
	n      int
	mapped []byte // the whole pack, where it could be mapped (mmap_unix.go)
	// idxMapped: idx is a read-only mapping of the index file (readIdx).
	idxMapped bool
}

// openPack reads a version 2 index (gitformat-pack, "Version 2 pack-*.idx
// files"): magic "\377tOc", version 2, a 256-entry fan-out table, the
// sorted object names, their CRC32s, 4-byte offsets (high bit: an index
// into the 8-byte offset table), 8-byte offsets, and two checksums.
func openPack(idxPath string) (*packFile, error) {
	idx, idxMapped, err := readIdx(idxPath)
	if err != nil {
		return nil, err
	}
	p, err := openPackWith(idxPath, idx)
	if err != nil && idxMapped {
		unmapPack(idx)
	}
	if p != nil {
		p.idxMapped = idxMapped
	}
	return p, err
}

// readIdx maps a pack index read-only where it can (a short process that
// reads a 1.5 MB index anew for each reader paid a page fault per page of
// the copy), else reads it.
func readIdx(idxPath string) (idx []byte, mapped bool, err error) {
	f, err := os.Open(idxPath)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, false, err
	}
	if m, ok := mapPack(f, st.Size()); ok {
		return m, true, nil // the mapping outlives the descriptor
	}
	idx, err = os.ReadFile(idxPath)
	return idx, false, err
}

func openPackWith(idxPath string, idx []byte) (*packFile, error) {
	n, err := checkIdx(idx)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(strings.TrimSuffix(idxPath, ".idx") + ".pack")
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	// The pack must be the index's: "PACK", version 2 or 3, the same
	// object count (gitformat-pack, "pack-*.pack files have the following
	// format"), and its trailing checksum as the index records it. (A pack
	// is named for that checksum, so a repack cannot put other bytes under
	// the same name.)
	var hdr [12]byte
	var sum [20]byte
	if st.Size() < 32 {
		f.Close()
		return nil, errors.New("pack too short")
	}
	_, err1 := f.ReadAt(hdr[:], 0)
	_, err2 := f.ReadAt(sum[:], st.Size()-20)
	v := binary.BigEndian.Uint32(hdr[4:])
	if err1 != nil || err2 != nil || string(hdr[:4]) != "PACK" || (v != 2 && v != 3) ||
		binary.BigEndian.Uint32(hdr[8:]) != uint32(n) || !bytes.Equal(sum[:], idx[len(idx)-40:len(idx)-20]) {
		f.Close()
		return nil, errors.New("pack does not match its index")
	}
	p := &packFile{f: f, size: st.Size(), idx: idx, n: n}
	if m, ok := mapPack(f, p.size); ok {
		p.mapped = m
	}
	return p, nil
}

// checkIdx validates the layout of a version 2 index and returns its
// object count.
func checkIdx(idx []byte) (int, error) {
	if len(idx) < 8+256*4 || !bytes.Equal(idx[:8], []byte("\377tOc\x00\x00\x00\x02")) {
		return 0, errors.New("not a version 2 pack index")
	}
	prev := uint32(0)
	for i := 0; i < 256; i++ {
		v := binary.BigEndian.Uint32(idx[8+4*i:])
		if v < prev {
			return 0, errors.New("pack index: fan-out not monotonic")
		}
		prev = v
	}
	// In 64 bits: where int has 32, a count past 2^31 would be negative
	// and the size it needs would wrap.
	n := int64(prev)
	need := 8 + 256*4 + n*(20+4+4) + 2*20
	if n > 1<<31 || int64(len(idx)) < need || (int64(len(idx))-need)%8 != 0 {
		return 0, errors.New("pack index: truncated")
	}
	return int(n), nil
}

// find returns the pack offset of an object, or false.
func (p *packFile) find(id []byte) (int64, bool) {
	const fan = 8
	lo := 0
	if id[0] > 0 {
		lo = int(binary.BigEndian.Uint32(p.idx[fan+4*(int(id[0])-1):]))
	}
	hi := int(binary.BigEndian.Uint32(p.idx[fan+4*int(id[0]):]))
	names := p.idx[fan+256*4:]
	if hi > p.n || lo > hi {
		return 0, false
	}
	// The search compares the first 8 bytes of the names as one number
	// (bytes.Compare per probe was a twentieth of a log --follow on
	// go-git's history, issue 19 part 3), the rest only on a tie.
	key := binary.BigEndian.Uint64(id)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		v := binary.BigEndian.Uint64(names[m*20:])
		if v < key || (v == key && bytes.Compare(names[m*20+8:m*20+20], id[8:]) < 0) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	i := lo
	end := int(binary.BigEndian.Uint32(p.idx[fan+4*int(id[0]):]))
	if i >= end || !bytes.Equal(names[i*20:i*20+20], id) {
		return 0, false
	}
	offs := fan + 256*4 + p.n*24
	o := binary.BigEndian.Uint32(p.idx[offs+4*i:])
	if o&0x80000000 == 0 {
		return int64(o), true
	}
	big := offs + p.n*4 + 8*int(o&0x7fffffff)
	if big+8 > len(p.idx)-40 {
		return 0, false
	}
	v := binary.BigEndian.Uint64(p.idx[big:])
	if v > 1<<62 {
		return 0, false
	}
	return int64(v), true
}

// read returns an object's type ("commit", "tree", "blob", "tag") and
// bytes. The bytes may be shared with the cache: callers must not modify
// them. It fails with errNotHere for anything it cannot read, and the
// caller asks go-git.
func (s *objStore) read(id []byte) (string, []byte, error) {
	if len(id) != 20 {
		return "", nil, errNotHere
	}
	for pi, p := range s.packs {
		if off, ok := p.find(id); ok {
			typ, data, err := s.packed(pi, off)
			if err != nil {
				return "", nil, errNotHere
			}
			return typeName(typ), data, nil
		}
	}
	return s.loose(id)
}

// commitPrefix returns up to n leading bytes of a commit stored whole
// (not as a delta) in a pack, inflating no more than those: a history
// walk without a commit-graph needs only the header lines, and most of a
// commit's bytes (a signature, the message) come after them. ok is false
// for anything else (a delta, a loose object, another type), which the
// caller reads whole. The stream's checksum is not reached, so it is not
// verified: the caller parses the prefix only when it holds whole lines.
func (s *objStore) commitPrefix(id []byte, n int) (data []byte, ok bool) {
	if len(id) != 20 {
		return nil, false
	}
	pi, off, found := s.locate(id)
	if !found {
		return nil, false
	}
	t, size, hdr, err := s.header(pi, off)
	if err != nil || t != objCommit {
		return nil, false
	}
	want := min(int64(n), size)
	w, err := s.window(pi, off+int64(hdr))
	if err != nil {
		return nil, false
	}
	data = make([]byte, want)
	if n, err := s.inf.inflateHeader(w, data); err == nil {
		return data[:n], true
	}
	s.br.Reset(w)
	if data, err = s.inflatePrefix(&s.br, want); err == nil {
		return data, true
	}
	if data, err = s.inflatePrefix(&packReader{s: s, pi: pi, off: off + int64(hdr)}, want); err == nil {
		return data, true
	}
	return nil, false
}

func (s *objStore) inflatePrefix(r io.Reader, n int64) ([]byte, error) {
	var err error
	if s.zr == nil {
		s.zr, err = zlib.NewReader(r)
	} else {
		err = s.zr.(zlib.Resetter).Reset(r, nil)
	}
	if err != nil {
		return nil, err
	}
	data := make([]byte, n)
	if _, err := io.ReadFull(s.zr, data); err != nil {
		return nil, err
	}
	return data, nil
}

func typeName(t int) string {
	switch t {
	case objCommit:
		return "commit"
	case objTree:
		return "tree"
	case objBlob:
		return "blob"
	case objTag:
		return "tag"
	}
	return ""
}

type cacheKey struct {
	pack int
	off  int64
}

// packed rebuilds the object at off in pack pi: it follows the delta
// chain down to a cached object or a whole one, then applies the deltas
// back up, caching each result.
func (s *objStore) packed(pi int, off int64) (int, []byte, error) {
	type step struct {
		key   cacheKey
		delta []byte
	}
	var chain []step
	var typ int
	var data []byte
	for {
		key := cacheKey{pi, off}
		var hit bool
		if len(chain) == 0 {
			typ, data, hit = s.cache.getSpent(key) // asked for itself
		} else {
			typ, data, hit = s.cache.get(key) // a base of the chain above it
		}
		if hit {
			break
		}
		if len(chain) > maxDeltaChain {
			return 0, nil, errors.New("delta chain too long")
		}
		t, size, hdr, err := s.header(pi, off)
		if err != nil {
			return 0, nil, err
		}
		switch t {
		case objCommit, objTree, objBlob, objTag:
			if data, err = s.inflate(pi, off+int64(hdr), size, nil); err != nil {
				return 0, nil, err
			}
			typ = t
			// A whole commit or blob asked for itself is read once by a
			// walk (the caller keeps what it parsed): caching it would
			// only push out the trees that are delta bases.
			if len(chain) > 0 || t == objTree || t == objTag {
				s.cache.put(key, t, data)
			}
		case objOfsDelta:
			base, n, err := s.ofsBase(pi, off, off+int64(hdr))
			if err != nil {
				return 0, nil, err
			}
			delta, err := s.inflate(pi, off+int64(hdr)+int64(n), size, s.deltaBuf(len(chain)))
			if err != nil {
				return 0, nil, err
			}
			chain = append(chain, step{key, delta})
			off = base
			continue
		case objRefDelta:
			var ref [20]byte
			if s.bytesAt(pi, off+int64(hdr), ref[:]) != 20 {
				return 0, nil, io.ErrUnexpectedEOF
			}
			delta, err := s.inflate(pi, off+int64(hdr)+20, size, s.deltaBuf(len(chain)))
			if err != nil {
				return 0, nil, err
			}
			chain = append(chain, step{key, delta})
			bpi, boff, ok := s.locate(ref[:])
			if !ok {
				return 0, nil, errNotHere // the base is elsewhere (a thin pack's, an alternate's)
			}
			pi, off = bpi, boff
			continue
		default:
			return 0, nil, fmt.Errorf("pack object type %d", t)
		}
		break
	}
	for i, st := range chain {
		// Keep the grown buffers for the next chain (the deltas are
		// applied below and then dead).
		if cap(st.delta) > cap(s.deltas[i]) && cap(st.delta) <= maxDeltaBuf {
			s.deltas[i] = st.delta[:0]
		}
	}
	for i := len(chain) - 1; i >= 0; i-- {
		out, err := applyDelta(data, chain[i].delta)
		if err != nil {
			return 0, nil, err
		}
		data = out
		s.cache.put(chain[i].key, typ, data)
	}
	return typ, data, nil
}

// maxDeltaBuf bounds a kept delta buffer: a larger delta is allocated
// for itself and dropped.
const maxDeltaBuf = 1 << 20

// deltaBuf returns the scratch buffer for the i-th delta of a chain.
func (s *objStore) deltaBuf(i int) []byte {
	for len(s.deltas) <= i {
		s.deltas = append(s.deltas, nil)
	}
	return s.deltas[i]
}

func (s *objStore) locate(id []byte) (int, int64, bool) {
	for pi, p := range s.packs {
		if off, ok := p.find(id); ok {
			return pi, off, true
		}
	}
	return 0, 0, false
}

// header reads an object header at off (gitformat-pack, "Object entries
// in the pack data"): type in bits 4-6 of the first byte, size in its low
// 4 bits and 7 more bits per continuation byte.
func (s *objStore) header(pi int, off int64) (typ int, size int64, n int, err error) {
	if off < 12 || off >= s.packs[pi].size-20 {
		return 0, 0, 0, errors.New("pack offset out of range")
	}
	var b [16]byte
	m := s.bytesAt(pi, off, b[:])
	if m == 0 {
		return 0, 0, 0, io.ErrUnexpectedEOF
	}
	typ = int(b[0]>>4) & 7
	size = int64(b[0] & 15)
	shift := uint(4)
	n = 1
	for c := b[0]; c&0x80 != 0; n++ {
		if n >= m || shift > 56 {
			return 0, 0, 0, errors.New("bad object header")
		}
		c = b[n]
		size |= int64(c&0x7f) << shift
		shift += 7
	}
	if size > maxObjectSize {
		return 0, 0, 0, errNotHere
	}
	return typ, size, n, nil
}

// ofsBase decodes an OFS_DELTA's base offset (gitformat-pack,
// "Deltified representation": a big-endian base-128 number where each
// continuation adds one, subtracted from the delta's own offset).
func (s *objStore) ofsBase(pi int, off, at int64) (int64, int, error) {
	var b [10]byte
	m := s.bytesAt(pi, at, b[:])
	base, n, err := decodeOfs(b[:m])
	if err != nil {
		return 0, 0, err
	}
	if base <= 0 || base >= off {
		return 0, 0, errors.New("bad delta base offset")
	}
	return off - base, n, nil
}

// decodeOfs decodes the offset encoding of an OFS_DELTA; it returns the
// distance back to the base and the bytes used.
func decodeOfs(b []byte) (int64, int, error) {
	if len(b) == 0 {
		return 0, 0, errors.New("truncated delta offset")
	}
	c := b[0]
	v := int64(c & 0x7f)
	n := 1
	for c&0x80 != 0 {
		if n >= len(b) || v > 1<<55 {
			return 0, 0, errors.New("bad delta offset")
		}
		c = b[n]
		n++
		v = ((v + 1) << 7) | int64(c&0x7f)
	}
	return v, n, nil
}

// inflate reads a zlib stream at off that must inflate to exactly size
// bytes, into dst when it has the room (a scratch buffer), else into new
// memory.
//
// The stream is read straight from the pack window it starts in, through a
// bytes.Reader: klauspost/compress's inflater has a loop specialised for
// that type, where any other reader (compress/flate's only way) costs an
// interface call per byte; on go-git's own history (one root tree delta
// and one commit inflated per commit walked) inflation was half of a log
// --follow and this halves it. A stream that runs past the end of its
// window is read again through packReader, which crosses windows.
//
// A stream inside its window is first decoded by inflater (inflate.go)
// straight into the result, which builds smaller tables and copies nothing
// through a window of its own (issue 19, part 3: with it a log --follow
// on go-git's history spends a third less in inflation); anything it
// refuses goes the way above.
func (s *objStore) inflate(pi int, off, size int64, dst []byte) ([]byte, error) {
	w, err := s.window(pi, off)
	if err != nil {
		return nil, err
	}
	var data []byte
	if int64(cap(dst)) >= size {
		data = dst[:size]
	} else {
		data = make([]byte, size)
	}
	if s.inf.inflate(w, data, true) == nil {
		return data, nil
	}
	// Anything the in-memory inflater did not decode (a stream running
	// past the window, damage) is read as before, into the same memory.
	dst = data
	s.br.Reset(w)
	data, err = s.inflateFrom(&s.br, size, dst)
	if err == nil || int64(len(w)) == s.packs[pi].size-off {
		return data, err // done, or the window already reached the end of the pack
	}
	if s.br.Len() > 0 {
		return nil, err // the stream is damaged inside the window
	}
	return s.inflateFrom(&packReader{s: s, pi: pi, off: off}, size, dst)
}

func (s *objStore) inflateFrom(r io.Reader, size int64, dst []byte) ([]byte, error) {
	var err error
	if s.zr == nil {
		s.zr, err = zlib.NewReader(r)
	} else {
		err = s.zr.(zlib.Resetter).Reset(r, nil)
	}
	if err != nil {
		return nil, err
	}
	var data []byte
	if int64(cap(dst)) >= size {
		data = dst[:size]
	} else {
		data = make([]byte, size)
	}
	if _, err := io.ReadFull(s.zr, data); err != nil {
		return nil, err
	}
	// The stream must end here (its checksum verified): one more byte is
	// damage.
	var one [1]byte
	if n, err := s.zr.Read(one[:]); n != 0 || (err != io.EOF && err != nil) {
		if err == nil {
			err = errors.New("object longer than its header says")
		}
		return nil, err
	}
	return data, nil
}

// loose reads objects/xx/yyyy...: a zlib stream of "<type> <size>\0"
// followed by the content.
func (s *objStore) loose(id []byte) (string, []byte, error) {
	h := hex.EncodeToString(id)
	f, err := os.Open(filepath.Join(s.dir, h[:2], h[2:]))
	if err != nil {
		return "", nil, errNotHere
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.Size() > maxObjectSize {
		return "", nil, errNotHere
	}
	raw, err := io.ReadAll(f)
	if err != nil {
		return "", nil, errNotHere
	}
	zr, err := zlib.NewReader(bytes.NewReader(raw))
	if err != nil {
		return "", nil, errNotHere
	}
	defer zr.Close()
	var hdr [32]byte
	n, _ := io.ReadFull(zr, hdr[:])
	typ, size, rest, ok := parseLooseHeader(hdr[:n])
	if !ok || size > maxObjectSize {
		return "", nil, errNotHere
	}
	data := make([]byte, size)
	k := copy(data, rest)
	if int64(k) < size {
		if _, err := io.ReadFull(zr, data[k:]); err != nil {
			return "", nil, errNotHere
		}
	} else if int64(len(rest)) > size {
		return "", nil, errNotHere
	}
	return typ, data, nil
}

// parseLooseHeader splits "<type> <size>\0<rest>".
func parseLooseHeader(b []byte) (typ string, size int64, rest []byte, ok bool) {
	sp := bytes.IndexByte(b, ' ')
	nul := bytes.IndexByte(b, 0)
	if sp <= 0 || nul < sp {
		return "", 0, nil, false
	}
	typ = string(b[:sp])
	if typ != "commit" && typ != "tree" && typ != "blob" && typ != "tag" {
		return "", 0, nil, false
	}
	num := string(b[sp+1 : nul])
	if num == "" || (len(num) > 1 && num[0] == '0') {
		return "", 0, nil, false
	}
	v, err := strconv.ParseInt(num, 10, 64)
	if err != nil || v < 0 {
		return "", 0, nil, false
	}
	return typ, v, b[nul+1:], true
}

// applyDelta applies a Git delta (gitformat-pack, "Deltified
// representation": the base size and result size as little-endian base-128
// numbers, then copy instructions, high bit set, with optional offset and
// size bytes, and insert instructions of 1 to 127 literal bytes; a size of
// 0 in a copy means 0x10000, and instruction 0 is reserved).
func applyDelta(base, delta []byte) ([]byte, error) {
	srcSize, delta, ok := deltaSize(delta)
	if !ok || srcSize != uint64(len(base)) {
		return nil, errors.New("delta: base size mismatch")
	}
	dstSize, delta, ok := deltaSize(delta)
	if !ok || dstSize > maxObjectSize {
		return nil, errors.New("delta: bad result size")
	}
	out := make([]byte, 0, dstSize)
	for len(delta) > 0 {
		cmd := delta[0]
		delta = delta[1:]
		switch {
		case cmd&0x80 != 0:
			var off, n uint64
			for i := uint(0); i < 4; i++ {
				if cmd&(1<<i) != 0 {
					if len(delta) == 0 {
						return nil, errors.New("delta: truncated copy")
					}
					off |= uint64(delta[0]) << (8 * i)
					delta = delta[1:]
				}
			}
			for i := uint(0); i < 3; i++ {
				if cmd&(0x10<<i) != 0 {
					if len(delta) == 0 {
						return nil, errors.New("delta: truncated copy")
					}
					n |= uint64(delta[0]) << (8 * i)
					delta = delta[1:]
				}
			}
			if n == 0 {
				n = 0x10000
			}
			if off+n > uint64(len(base)) || uint64(len(out))+n > dstSize {
				return nil, errors.New("delta: copy out of range")
			}
			out = append(out, base[off:off+n]...)
		case cmd != 0:
			n := int(cmd)
			if n > len(delta) || uint64(len(out)+n) > dstSize {
				return nil, errors.New("delta: insert out of range")
			}
			out = append(out, delta[:n]...)
			delta = delta[n:]
		default:
			return nil, errors.New("delta: reserved instruction 0")
		}
	}
	if uint64(len(out)) != dstSize {
		return nil, errors.New("delta: result size mismatch")
	}
	return out, nil
}

func deltaSize(b []byte) (uint64, []byte, bool) {
	var v uint64
	for i, shift := 0, uint(0); i < len(b); i, shift = i+1, shift+7 {
		if shift > 63 {
			return 0, nil, false
		}
		v |= uint64(b[i]&0x7f) << shift
		if b[i]&0x80 == 0 {
			return v, b[i+1:], true
		}
	}
	return 0, nil, false
}

// objCache is a least-recently-used cache of rebuilt pack objects bounded
// in bytes, like git's delta base cache (core.deltaBaseCacheLimit,
// default 96 MiB). Ours holds 4 MiB by default (TreeReader.SetDeltaCacheBytes
// raises it for a walk over many directories): a walk needs the objects of the
// delta chains it is inside (a few MiB for a 1,000-page vault), and the
// bound sets how much fresh memory the process touches (measured with
// perf stat on scripts/bench.sh's log: 96 MiB 66 ms, 16 MiB 50 ms and
// 11,800 page faults, 8 MiB 43 ms and 7,600, 4 MiB 40 ms and 5,800, where
// git log --follow took 50 ms). Much larger trees (about 400 KiB for
// 10,000 pages) then rebuild a chain two or three times instead of once.
type objCache struct {
	limit, used int
	spentUsed   int                // bytes of the spent entries
	m           map[cacheKey]int32 // key -> index in slots
	// slots hold the entries, linked most recent first (head) to least
	// (tail) by index, with the freed ones on a list of their own: an
	// entry costs no allocation of its own and no interface conversion
	// (container/list's two allocations per entry and its map were a
	// twentieth of the chain's diffs in a cold stale).
	slots      []cacheSlot
	head, tail int32 // -1 when empty
	free       int32 // first freed slot, -1 when none
}

type cacheSlot struct {
	key        cacheKey
	typ        int
	data       []byte
	prev, next int32 // toward head, toward tail; -1 at the ends
	spent      bool  // asked for itself again (getSpent); in the tail run
}

// spentShare: the spent entries are held to this fraction of the bound.
const spentShare = 16

func newObjCache(limit int) objCache {
	return objCache{limit: limit, m: map[cacheKey]int32{}, head: -1, tail: -1, free: -1}
}

// get returns the cached object at k, now the most recently used.
func (c *objCache) get(k cacheKey) (typ int, data []byte, ok bool) {
	i, ok := c.m[k]
	if !ok {
		return 0, nil, false
	}
	if i != c.head {
		c.unlink(i)
		c.pushFront(i)
	}
	e := &c.slots[i]
	if e.spent {
		e.spent = false
		c.spentUsed -= len(e.data)
	}
	return e.typ, e.data, true
}

// getSpent returns the cached object at k, now spent: an object asked
// for itself a second time has most likely been rebuilt as a base on the
// way to another, and a walk that asked for that other first (a history
// walked newest first over a fast-import pack's forward chains, each
// version a delta on the one before) wants it this once and then the
// bases still below it. A spent entry goes to the back, where it is
// dropped first, and the spent ones together are held to a fraction of
// the bound: moved to the front, they pushed those bases out, and kept
// to the whole bound they were most of the memory a cold stale touched.
// A spent entry asked for as a base (get) is live again.
func (c *objCache) getSpent(k cacheKey) (typ int, data []byte, ok bool) {
	i, ok := c.m[k]
	if !ok {
		return 0, nil, false
	}
	e := &c.slots[i]
	typ, data = e.typ, e.data
	if !e.spent {
		e.spent = true
		c.spentUsed += len(e.data)
	}
	if i != c.tail {
		c.unlink(i)
		c.pushBack(i)
	}
	for c.spentUsed > c.limit/spentShare && c.tail >= 0 && c.slots[c.tail].spent {
		c.evict(c.tail)
	}
	return typ, data, true
}

// put caches data at k unless it is larger than a quarter of the bound,
// then drops the least recently used entries past the bound.
func (c *objCache) put(k cacheKey, typ int, data []byte) {
	if len(data) > c.limit/4 {
		return
	}
	if _, ok := c.m[k]; ok {
		return
	}
	i := c.free
	if i >= 0 {
		c.free = c.slots[i].next
	} else {
		i = int32(len(c.slots))
		c.slots = append(c.slots, cacheSlot{})
	}
	c.slots[i] = cacheSlot{key: k, typ: typ, data: data}
	c.pushFront(i)
	c.m[k] = i
	c.used += len(data)
	for c.used > c.limit && c.tail >= 0 {
		c.evict(c.tail)
	}
}

// evict drops entry i.
func (c *objCache) evict(i int32) {
	e := &c.slots[i]
	c.unlink(i)
	delete(c.m, e.key)
	c.used -= len(e.data)
	if e.spent {
		c.spentUsed -= len(e.data)
	}
	*e = cacheSlot{next: c.free} // drop the bytes for the collector
	c.free = i
}

func (c *objCache) unlink(i int32) {
	e := &c.slots[i]
	if e.prev >= 0 {
		c.slots[e.prev].next = e.next
	} else {
		c.head = e.next
	}
	if e.next >= 0 {
		c.slots[e.next].prev = e.prev
	} else {
		c.tail = e.prev
	}
}

func (c *objCache) pushFront(i int32) {
	e := &c.slots[i]
	e.prev, e.next = -1, c.head
	if c.head >= 0 {
		c.slots[c.head].prev = i
	}
	c.head = i
	if c.tail < 0 {
		c.tail = i
	}
}

func (c *objCache) pushBack(i int32) {
	e := &c.slots[i]
	e.prev, e.next = c.tail, -1
	if c.tail >= 0 {
		c.slots[c.tail].next = i
	}
	c.tail = i
	if c.head < 0 {
		c.head = i
	}
}

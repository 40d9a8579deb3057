package gitrepo

import (
	"encoding/binary"
	"errors"
	"hash/adler32"
	"math/bits"
	"sync"
)

// inflate decodes a zlib stream held whole in memory (RFC 1950 and
// the deflate format of RFC 1951) straight into dst, for the small
// objects of a history walk (issue 19, part 3). On go-git's history a log
// --follow inflates one commit and one tree delta per commit walked, each
// its own stream of a few hundred bytes, and the general inflater spent
// most of that time building its 512-entry tables three times per stream
// and filling a 32 KiB window it then copied out. Here the tables are as
// small as zlib's (7 bits for the code-length and distance codes), the
// output is the window (distances point into dst), and a prefix read
// stops at len(dst).
//
// With whole set, the stream must end exactly at len(dst) and its Adler-32
// checksum must match; otherwise decoding stops after len(dst) bytes and
// the rest of the stream is not read (nor checked). Any error (including
// src ending early, an incomplete or over-subscribed code, a preset
// dictionary) means only "not decoded here": the caller then reads the
// stream with klauspost/compress's inflater, which gives the answer or the
// error it always gave.
func (d *inflater) inflate(src, dst []byte, whole bool) error {
	if len(src) < 2 {
		return errInflate
	}
	// The tables are kept from stream to stream (each is rebuilt before
	// use); the rest starts afresh.
	d.src, d.pos, d.bb, d.nb, d.dst, d.n, d.whole = src, 2, 0, 0, dst, 0, whole
	d.header, d.line, d.end = false, 0, -1
	return d.start()
}

// inflateHeader decodes the start of a commit into dst, at most len(dst)
// bytes, and ends after the committer line, the last one
// parseCommitHeader reads: on go-git's history that is 229 bytes of a
// 512-byte prefix on average. It returns how many bytes were decoded: the
// header through the committer line, or all of dst when that line does
// not end inside it (the caller then reads the whole commit).
func (d *inflater) inflateHeader(src, dst []byte) (int, error) {
	if len(src) < 2 {
		return 0, errInflate
	}
	d.src, d.pos, d.bb, d.nb, d.dst, d.n, d.whole = src, 2, 0, 0, dst, 0, false
	d.header, d.line, d.end = true, 0, -1
	if err := d.start(); err != nil {
		return 0, err
	}
	return d.n, nil
}

// start checks the zlib header and decodes the stream d was set up for.
func (d *inflater) start() error {
	src, dst, whole := d.src, d.dst, d.whole
	cmf, flg := src[0], src[1]
	if cmf&0x0f != 8 || cmf>>4 > 7 || flg&0x20 != 0 || (uint(cmf)<<8|uint(flg))%31 != 0 {
		return errInflate
	}
	if err := d.run(); err != nil {
		return err
	}
	// A stream that ends before dst is full is not the object its size
	// promised, on a prefix read too (FuzzInflate found a prefix read of
	// an empty final stored block reported as decoded, dst left zero).
	if d.n != len(dst) && d.end != d.n {
		return errInflate
	}
	if !whole {
		return nil
	}
	// The checksum follows the last block on a byte boundary.
	p := d.pos - int(d.nb/8)
	if p+4 > len(src) || binary.BigEndian.Uint32(src[p:]) != adler32.Checksum(dst) {
		return errInflate
	}
	return nil
}

var errInflate = errors.New("inflate: not decoded by the in-memory inflater")

type inflater struct {
	src []byte
	pos int    // next byte of src to load into bb
	bb  uint64 // bit buffer, least significant bit first
	nb  uint   // valid bits in bb
	dst []byte
	n   int // bytes written to dst
	// whole: running out of room in dst is an error (a whole read), else
	// the end (a prefix).
	whole bool
	// header: a commit's header lines are wanted (see inflateHeader); the
	// read ends after the first line that starts "committer ". line is
	// where the line being written starts; end, once found, is where the
	// read ended.
	header    bool
	line, end int

	lit, dist, codes huffTable
}

// refill loads whole bytes into the bit buffer until it holds at least 56
// bits or src is exhausted.
func (d *inflater) refill() {
	if d.pos+8 <= len(d.src) {
		d.bb |= binary.LittleEndian.Uint64(d.src[d.pos:]) << d.nb
		d.pos += int(63-d.nb) >> 3
		d.nb |= 56
		return
	}
	for d.nb <= 56 && d.pos < len(d.src) {
		d.bb |= uint64(d.src[d.pos]) << d.nb
		d.pos++
		d.nb += 8
	}
}

// bits returns the next n (<= 32) bits, consumed.
func (d *inflater) bits(n uint) (uint32, bool) {
	if d.nb < n {
		d.refill()
		if d.nb < n {
			return 0, false
		}
	}
	v := uint32(d.bb & (1<<n - 1))
	d.bb >>= n
	d.nb -= n
	return v, true
}

func (d *inflater) run() error {
	for {
		if !d.whole && (d.n == len(d.dst) || d.end >= 0) {
			return nil
		}
		hdr, ok := d.bits(3)
		if !ok {
			return errInflate
		}
		var err error
		switch hdr >> 1 {
		case 0:
			err = d.stored()
		case 1:
			fixedOnce.Do(initFixed)
			err = d.codesBlock(&fixedLit, &fixedDist)
		case 2:
			if err = d.dynamic(); err == nil {
				err = d.codesBlock(&d.lit, &d.dist)
			}
		default:
			return errInflate
		}
		if err == errPrefixDone {
			return nil
		}
		if err != nil {
			return err
		}
		if hdr&1 != 0 {
			return nil
		}
	}
}

var errPrefixDone = errors.New("prefix decoded")

func (d *inflater) stored() error {
	// Drop the bits up to the byte boundary, then go back to reading
	// bytes: the buffer holds only whole bytes past that boundary.
	d.bb >>= d.nb & 7
	d.nb -= d.nb & 7
	d.pos -= int(d.nb / 8)
	d.bb, d.nb = 0, 0
	if d.pos+4 > len(d.src) {
		return errInflate
	}
	ln := int(binary.LittleEndian.Uint16(d.src[d.pos:]))
	nln := int(binary.LittleEndian.Uint16(d.src[d.pos+2:]))
	d.pos += 4
	if ln != ^nln&0xffff || d.pos+ln > len(d.src) {
		return errInflate
	}
	room := len(d.dst) - d.n
	if ln > room {
		if d.whole {
			return errInflate
		}
		copy(d.dst[d.n:], d.src[d.pos:d.pos+room])
		d.headerIn(d.n, len(d.dst))
		return errPrefixDone
	}
	copy(d.dst[d.n:], d.src[d.pos:d.pos+ln])
	d.pos += ln
	if d.headerIn(d.n, d.n+ln) {
		return errPrefixDone
	}
	return nil
}

// headerIn sets d.n to to, or, on a header read, to the end of the
// committer line when dst[from:to] ends it, and reports the latter.
func (d *inflater) headerIn(from, to int) bool {
	if d.header {
		for i := from; i < to; i++ {
			if d.dst[i] == '\n' && d.lineEnds(d.dst, i) {
				d.n = i + 1
				return true
			}
		}
	}
	d.n = to
	return false
}

// codeOrder is the order of the code-length code lengths (RFC 1951 3.2.7).
var codeOrder = [19]uint8{16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15}

func (d *inflater) dynamic() error {
	h, ok := d.bits(14)
	if !ok {
		return errInflate
	}
	nlit, ndist, ncode := int(h&31)+257, int(h>>5&31)+1, int(h>>10)+4
	if nlit > 286 || ndist > 30 {
		return errInflate
	}
	var lens [286 + 30]uint8
	for i := 0; i < ncode; i++ {
		v, ok := d.bits(3)
		if !ok {
			return errInflate
		}
		lens[codeOrder[i]] = uint8(v)
	}
	if !d.codes.build(lens[:19], 7, false) {
		return errInflate
	}
	clear(lens[:19])
	for i := 0; i < nlit+ndist; {
		sym, ok := d.decode(&d.codes)
		if !ok {
			return errInflate
		}
		var rep int
		var val uint8
		switch {
		case sym < 16:
			lens[i] = uint8(sym)
			i++
			continue
		case sym == 16:
			if i == 0 {
				return errInflate
			}
			v, ok := d.bits(2)
			if !ok {
				return errInflate
			}
			rep, val = 3+int(v), lens[i-1]
		case sym == 17:
			v, ok := d.bits(3)
			if !ok {
				return errInflate
			}
			rep = 3 + int(v)
		default:
			v, ok := d.bits(7)
			if !ok {
				return errInflate
			}
			rep = 11 + int(v)
		}
		if i+rep > nlit+ndist {
			return errInflate
		}
		for ; rep > 0; rep-- {
			lens[i] = val
			i++
		}
	}
	if lens[256] == 0 {
		return errInflate // no end-of-block code
	}
	if !d.lit.build(lens[:nlit], 9, false) || !d.dist.build(lens[nlit:nlit+ndist], 7, true) {
		return errInflate
	}
	return nil
}

// Length and distance bases and extra bits (RFC 1951 3.2.5).
var (
	lenBase  = [29]uint16{3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258}
	lenExtra = [29]uint8{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0}
	distBase = [30]uint16{1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577}
	distExtr = [30]uint8{0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13}
)

// codesBlock decodes symbols until the end of the block. The table
// lookups of decode are repeated here, so that a symbol costs no call: one
// refill gives the 48 bits a length, its extra bits, a distance and its
// extra bits can take.
func (d *inflater) codesBlock(lit, dist *huffTable) error {
	dst, n := d.dst, d.n
	defer func() { d.n = n }()
	lmask, dmask := uint64(1)<<lit.root-1, uint64(1)<<dist.root-1
	for {
		if d.nb < 48 {
			d.refill()
		}
		var sym int
		if e := lit.table[d.bb&lmask]; e != 0 && uint(e&15) <= d.nb {
			d.bb >>= e & 15
			d.nb -= uint(e & 15)
			sym = int(e >> 4)
		} else {
			s, ok := d.decode(lit)
			if !ok {
				return errInflate
			}
			sym = s
		}
		if sym < 256 {
			if n == len(dst) {
				return d.full()
			}
			dst[n] = byte(sym)
			n++
			if sym == '\n' && d.header && d.lineEnds(dst, n-1) {
				return errPrefixDone
			}
			if n == len(dst) && !d.whole {
				return errPrefixDone
			}
			continue
		}
		if sym == 256 {
			return nil
		}
		sym -= 257
		if sym >= 29 {
			return errInflate
		}
		e, ok := d.bits(uint(lenExtra[sym]))
		if !ok {
			return errInflate
		}
		length := int(lenBase[sym]) + int(e)
		var ds int
		if e := dist.table[d.bb&dmask]; e != 0 && uint(e&15) <= d.nb {
			d.bb >>= e & 15
			d.nb -= uint(e & 15)
			ds = int(e >> 4)
		} else if ds, ok = d.decode(dist); !ok {
			return errInflate
		}
		if ds >= 30 {
			return errInflate
		}
		e, ok = d.bits(uint(distExtr[ds]))
		if !ok {
			return errInflate
		}
		dd := int(distBase[ds]) + int(e)
		if dd > n {
			return errInflate
		}
		stop := false
		if length > len(dst)-n {
			if d.whole {
				return errInflate
			}
			length, stop = len(dst)-n, true
		}
		from := n - dd
		if dd >= length {
			copy(dst[n:n+length], dst[from:from+length])
		} else {
			for i := 0; i < length; i++ {
				dst[n+i] = dst[from+i]
			}
		}
		if d.header {
			for i := n; i < n+length; i++ {
				if dst[i] == '\n' && d.lineEnds(dst, i) {
					n = i + 1
					return errPrefixDone
				}
			}
		}
		n += length
		if stop || (n == len(dst) && !d.whole) {
			return errPrefixDone
		}
	}
}

// lineEnds is told of the newline at dst[i] in a header read: it reports
// whether the line it ends is the committer line, and then records where
// the read ends.
func (d *inflater) lineEnds(dst []byte, i int) bool {
	const key = "committer "
	if i-d.line >= len(key) && string(dst[d.line:d.line+len(key)]) == key {
		d.end = i + 1
		return true
	}
	d.line = i + 1
	return false
}

// full is reached when a literal does not fit: an error for a whole read,
// the end for a prefix.
func (d *inflater) full() error {
	if d.whole {
		return errInflate
	}
	return errPrefixDone
}

// huffTable decodes one canonical Huffman code: codes of up to root bits
// through a table indexed by the next root bits (an entry is symbol<<4 |
// length, 0 for a longer code), longer ones by counting (the canonical
// decode of zlib's contrib/puff).
type huffTable struct {
	root  uint
	table [512]uint16
	count [16]uint16
	sym   [288]uint16
}

// build makes the table for the code lengths lens. It refuses an
// over-subscribed code and an incomplete one, except where zlib accepts
// one: a single code of one bit, and (allowEmpty, for distances) no codes.
func (h *huffTable) build(lens []uint8, root uint, allowEmpty bool) bool {
	h.root = root
	// Four histograms, summed: one counter incremented for each of the
	// 286 lengths in turn (mostly the same few) waited on its own last
	// store every time, a third of building a table.
	var c0, c1, c2, c3 [16]uint16
	i := 0
	for ; i+4 <= len(lens); i += 4 {
		c0[lens[i]&15]++
		c1[lens[i+1]&15]++
		c2[lens[i+2]&15]++
		c3[lens[i+3]&15]++
	}
	for ; i < len(lens); i++ {
		c0[lens[i]&15]++
	}
	var count [16]uint16
	for l := range count {
		count[l] = c0[l] + c1[l] + c2[l] + c3[l]
	}
	count[0] = 0
	h.count = count
	left := 1
	for l := 1; l < 16; l++ {
		left <<= 1
		left -= int(count[l])
		if left < 0 {
			return false
		}
	}
	if left > 0 {
		total := 0
		for l := 1; l < 16; l++ {
			total += int(count[l])
		}
		switch {
		case total == 0 && allowEmpty:
			clear(h.table[:1<<root])
			return true
		case total == 1 && count[1] == 1:
		default:
			return false
		}
	}
	// The symbols in canonical order: by length, then by value.
	var offs [16]uint16
	for l := 1; l < 15; l++ {
		offs[l+1] = offs[l] + count[l]
	}
	for s, l := range lens {
		if l != 0 {
			h.sym[offs[l]] = uint16(s)
			offs[l]++
		}
	}
	// The table grows one bit at a time: doubled, it holds every shorter
	// code at each index its bits end in, and the codes of the new length
	// take the free slots, one entry each. Slots no code of at most root
	// bits reaches keep 0 (decoded the slow way, or invalid). A per-code
	// stride fill wrote the same 2^root entries one by one, and was a
	// third of reading a commit's header (BenchmarkCommitPrefixes).
	t := h.table[:1<<root]
	t[0] = 0
	size, code, k := 1, uint32(0), 0
	for l := uint(1); l <= root; l++ {
		copy(t[size:2*size], t[:size])
		size *= 2
		for n := count[l]; n > 0; n-- {
			t[bits.Reverse32(code)>>(32-l)&uint32(len(t)-1)] = h.sym[k]<<4 | uint16(l)
			k++
			code++
		}
		code <<= 1
	}
	return true
}

// decode reads one symbol.
func (d *inflater) decode(h *huffTable) (int, bool) {
	if d.nb < 15 {
		d.refill()
	}
	if e := h.table[d.bb&(1<<h.root-1)]; e != 0 {
		l := uint(e & 15)
		if l > d.nb {
			return 0, false
		}
		d.bb >>= l
		d.nb -= l
		return int(e >> 4), true
	}
	// A code longer than root bits: the canonical decode, bit by bit
	// (the first bit read is the code's most significant).
	code, first, index := 0, 0, 0
	for l := uint(1); l < 16; l++ {
		if l > d.nb {
			return 0, false
		}
		code |= int(d.bb>>(l-1)) & 1
		cnt := int(h.count[l])
		if code-cnt < first {
			d.bb >>= l
			d.nb -= l
			return int(h.sym[index+code-first]), true
		}
		index += cnt
		first += cnt
		first <<= 1
		code <<= 1
	}
	return 0, false
}

// The fixed codes (RFC 1951 3.2.6), built once. The distance code has 32
// five-bit codes, of which 30 and 31 are refused when decoded; the
// literal/length code's 286 and 287 likewise.
var (
	fixedOnce           sync.Once
	fixedLit, fixedDist huffTable
)

func initFixed() {
	var l [288]uint8
	for i := range l {
		switch {
		case i < 144:
			l[i] = 8
		case i < 256:
			l[i] = 9
		case i < 280:
			l[i] = 7
		default:
			l[i] = 8
		}
	}
	fixedLit.build(l[:], 9, false)
	var dl [32]uint8
	for i := range dl {
		dl[i] = 5
	}
	fixedDist.build(dl[:], 7, false)
}

package gitrepo

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/go-git/go-git/v5/plumbing"
)

// indexEntry is one entry of the index file.
type indexEntry struct {
	path         string
	mode         uint32
	hash         plumbing.Hash
	stage        int
	intentToAdd  bool
	skipWorktree bool
}

// Index entry flag bits (read-cache.c / cache.h).
const (
	ceExtended     = 0x4000
	ceNameMask     = 0x0fff
	ceStageShift   = 12
	ceIntentToAdd  = 0x2000 // in the extended flags word
	ceSkipWorktree = 0x4000 // in the extended flags word
)

// readIndex reads a SHA-1 index file of version 2, 3 or 4. A missing file
// is an empty index (a fresh repository). It is our own reader rather than
// go-git's decoder because that decoder rejects index.skipHash indexes (an
// all-zero trailer) and quietly returns an incomplete list for split
// indexes. Extensions that change which entries exist (split index "link",
// sparse index "sdir") or that git itself would refuse (unknown lower-case
// ones) fail closed with ErrUnsupported.
func readIndex(path string) ([]indexEntry, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("read index: %w", err)
	}
	entries, err := parseIndex(data)
	if err != nil {
		return nil, fmt.Errorf("index %s: %w", path, err)
	}
	return entries, nil
}

var errCorruptIndex = errors.New("corrupt index file")

func parseIndex(data []byte) ([]indexEntry, error) {
	const hashLen = sha1.Size
	if len(data) < 12+hashLen || !bytes.Equal(data[:4], []byte("DIRC")) {
		return nil, fmt.Errorf("%w: bad signature or size", errCorruptIndex)
	}
	body, trailer := data[:len(data)-hashLen], data[len(data)-hashLen:]
	// index.skipHash writes an all-zero trailer; git then skips the check.
	if !bytes.Equal(trailer, make([]byte, hashLen)) {
		sum := sha1.Sum(body)
		if !bytes.Equal(sum[:], trailer) {
			return nil, fmt.Errorf("%w: checksum mismatch", errCorruptIndex)
		}
	}
	version := binary.BigEndian.Uint32(data[4:8])
	if version < 2 || version > 4 {
		return nil, fmt.Errorf("%w: index version %d", ErrUnsupported, version)
	}
	count := binary.BigEndian.Uint32(data[8:12])
	pos := 12
	entries := make([]indexEntry, 0, min(int(count), len(body)/62))
	prev := ""
	for i := uint32(0); i < count; i++ {
		start := pos
		if pos+62 > len(body) {
			return nil, fmt.Errorf("%w: truncated entry %d", errCorruptIndex, i)
		}
		var e indexEntry
		e.mode = binary.BigEndian.Uint32(body[pos+24 : pos+28])
		copy(e.hash[:], body[pos+40:pos+60])
		flags := binary.BigEndian.Uint16(body[pos+60 : pos+62])
		e.stage = int(flags>>ceStageShift) & 3
		pos += 62
		if flags&ceExtended != 0 {
			if version < 3 || pos+2 > len(body) {
				return nil, fmt.Errorf("%w: extended flags in entry %d", errCorruptIndex, i)
			}
			ext := binary.BigEndian.Uint16(body[pos : pos+2])
			e.intentToAdd = ext&ceIntentToAdd != 0
			e.skipWorktree = ext&ceSkipWorktree != 0
			pos += 2
		}
		if version == 4 {
			// Prefix compression: drop n bytes from the end of the
			// previous name, then append a NUL-terminated suffix.
			n, used := decodeVarint(body[pos:])
			if used == 0 || n > uint64(len(prev)) {
				return nil, fmt.Errorf("%w: bad name prefix in entry %d", errCorruptIndex, i)
			}
			pos += used
			end := bytes.IndexByte(body[pos:], 0)
			if end < 0 {
				return nil, fmt.Errorf("%w: unterminated name in entry %d", errCorruptIndex, i)
			}
			e.path = prev[:len(prev)-int(n)] + string(body[pos:pos+end])
			pos += end + 1
		} else {
			nameLen := int(flags & ceNameMask)
			end := bytes.IndexByte(body[pos:], 0)
			if end < 0 || (nameLen < ceNameMask && end != nameLen) {
				return nil, fmt.Errorf("%w: bad name length in entry %d", errCorruptIndex, i)
			}
			e.path = string(body[pos : pos+end])
			// Entries are NUL-padded to a multiple of 8 bytes.
			pos = start + ((pos - start + end + 8) &^ 7)
			if pos > len(body) {
				return nil, fmt.Errorf("%w: truncated entry %d", errCorruptIndex, i)
			}
		}
		prev = e.path
		entries = append(entries, e)
	}
	for pos < len(body) {
		if pos+8 > len(body) {
			return nil, fmt.Errorf("%w: truncated extension header", errCorruptIndex)
		}
		sig := body[pos : pos+4]
		size := int(binary.BigEndian.Uint32(body[pos+4 : pos+8]))
		pos += 8
		if size < 0 || pos+size > len(body) {
			return nil, fmt.Errorf("%w: truncated extension %q", errCorruptIndex, sig)
		}
		switch {
		case string(sig) == "link":
			return nil, fmt.Errorf("%w: split index (core.splitIndex); run `git update-index --no-split-index`", ErrUnsupported)
		case string(sig) == "sdir":
			return nil, fmt.Errorf("%w: sparse index (index.sparse); run `git sparse-checkout init --no-sparse-index`", ErrUnsupported)
		case sig[0] < 'A' || sig[0] > 'Z':
			// Lower-case extensions are mandatory: git refuses what it
			// does not understand, and so do we.
			return nil, fmt.Errorf("%w: index extension %q", ErrUnsupported, sig)
		}
		// Upper-case extensions (TREE, REUC, UNTR, FSMN, EOIE, IEOT) are
		// optional caches that do not change the entry list.
		pos += size
	}
	return entries, nil
}

// decodeVarint ports git's decode_varint (the offset encoding of index v4).
// used is 0 when the buffer ends inside the number or it overflows.
func decodeVarint(b []byte) (val uint64, used int) {
	if len(b) == 0 {
		return 0, 0
	}
	c := b[0]
	val = uint64(c & 127)
	used = 1
	for c&128 != 0 {
		if used >= len(b) || val+1 > (^uint64(0))>>7 {
			return 0, 0
		}
		val++
		c = b[used]
		used++
		val = (val << 7) + uint64(c&127)
	}
	return val, used
}

// sha1Sum is the index checksum function, shared with the tests that
// rewrite indexes.
func sha1Sum(b []byte) [sha1.Size]byte { return sha1.Sum(b) }

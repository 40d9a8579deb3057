package gitrepo

import "testing"

// FuzzBloomChunks parses arbitrary BIDX and BDAT chunks for a graph of
// as many commits as the index has entries, and asks every commit's
// filter for a path: never a panic, and a usable filter always lies
// inside the data chunk.
func FuzzBloomChunks(f *testing.F) {
	f.Add(bidx(1, 3), bdat(1, 7, 10, []byte{0x12, 0x34, 0x56}))
	f.Add(bidx(2, 1), bdat(2, 7, 10, []byte{0xff, 0xff}))
	f.Add(bidx(0xffffffff), bdat(2, 64, 10, nil))
	f.Add([]byte{}, []byte{0, 0, 0, 1})
	f.Fuzz(func(t *testing.T, idx, dat []byte) {
		n := len(idx) / 4
		b, err := parseBloom(idx, dat, true, true, n)
		if err != nil {
			return
		}
		k := bloomKey{murmur3(bloomSeed0, []byte("src/a.go")), murmur3(bloomSeed1, []byte("src/a.go"))}
		for pos := -1; pos <= n && pos < 256; pos++ {
			fl, ok := b.filter(pos)
			if !ok {
				continue
			}
			if len(fl) == 0 || len(fl) > len(dat)-bloomHeaderSize {
				t.Fatalf("filter %d of %d bytes from %d bytes of data", pos, len(fl), len(dat))
			}
			b.mayContain(fl, k)
		}
	})
}

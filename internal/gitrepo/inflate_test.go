package gitrepo

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"math/rand"
	"testing"
)

// TestInflateAgreesWithZlib checks the in-memory inflater (inflate.go)
// against the standard library's compressor on data of every kind it
// meets in a pack (text, random bytes, long runs, empty), at every
// level (stored, fixed and dynamic blocks, several blocks), whole and as
// prefixes of every length; and that a damaged stream is never decoded
// into wrong bytes without an error on a whole read.
func TestInflateAgreesWithZlib(t *testing.T) {
	rnd := rand.New(rand.NewSource(1))
	var inputs [][]byte
	inputs = append(inputs, nil, []byte("x"), bytes.Repeat([]byte("a"), 70000))
	for _, n := range []int{10, 300, 789, 3000, 40000, 200000} {
		var text bytes.Buffer
		for text.Len() < n {
			fmt.Fprintf(&text, "tree %040x\nparent %040x\nauthor A U Thor <a@example.com> %d +0000\n", rnd.Int63(), rnd.Int63(), rnd.Intn(1e9))
		}
		inputs = append(inputs, text.Bytes()[:n])
		raw := make([]byte, n)
		rnd.Read(raw)
		inputs = append(inputs, raw)
		mixed := append([]byte{}, text.Bytes()[:n/2]...)
		inputs = append(inputs, append(mixed, raw[:n/2]...))
	}
	var d inflater
	for i, in := range inputs {
		for _, level := range []int{zlib.NoCompression, zlib.BestSpeed, 6, zlib.BestCompression, zlib.HuffmanOnly} {
			var z bytes.Buffer
			w, _ := zlib.NewWriterLevel(&z, level)
			w.Write(in)
			w.Close()
			src := append(z.Bytes(), "trailing bytes of the pack"...)
			out := make([]byte, len(in))
			if err := d.inflate(src, out, true); err != nil || !bytes.Equal(out, in) {
				t.Fatalf("input %d level %d: whole read: %v, equal %v", i, level, err, bytes.Equal(out, in))
			}
			if len(in) > 0 && d.inflate(src, make([]byte, len(in)-1), true) == nil {
				t.Fatalf("input %d level %d: a whole read one byte short succeeded", i, level)
			}
			if d.inflate(src, make([]byte, len(in)+1), true) == nil {
				t.Fatalf("input %d level %d: a whole read one byte long succeeded", i, level)
			}
			for _, n := range []int{0, 1, 2, 100, 511, 512, 513, len(in) / 2, len(in)} {
				if n > len(in) {
					continue
				}
				p := make([]byte, n)
				if err := d.inflate(src, p, false); err != nil || !bytes.Equal(p, in[:n]) {
					t.Fatalf("input %d level %d: prefix %d: %v", i, level, n, err)
				}
			}
			// Damage: every byte flipped in turn (sampled for long
			// streams) must give the right bytes or an error.
			step := 1 + len(z.Bytes())/200
			for k := 0; k < len(z.Bytes()); k += step {
				bad := bytes.Clone(src)
				bad[k] ^= 0x55
				got := make([]byte, len(in))
				if err := d.inflate(bad, got, true); err == nil && !bytes.Equal(got, in) {
					t.Fatalf("input %d level %d: byte %d damaged decoded to other bytes without an error", i, level, k)
				}
				// Truncated: never a success past the end of src.
				if err := d.inflate(src[:k], got, true); err == nil && !bytes.Equal(got, in) {
					t.Fatalf("input %d level %d: truncated at %d decoded to other bytes", i, level, k)
				}
			}
		}
	}
}

// BenchmarkHuffTableBuild: a literal/length table (the fixed code's
// lengths, 288 of them), as a dynamic block builds one per block.
func BenchmarkHuffTableBuild(b *testing.B) {
	var lens [288]uint8
	for i := range lens {
		switch {
		case i < 144:
			lens[i] = 8
		case i < 256:
			lens[i] = 9
		case i < 280:
			lens[i] = 7
		default:
			lens[i] = 8
		}
	}
	var h huffTable
	for b.Loop() {
		if !h.build(lens[:], 9, false) {
			b.Fatal("refused")
		}
	}
}

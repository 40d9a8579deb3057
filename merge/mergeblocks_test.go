package merge

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// mergeBlocksQuadratic is mergeBlocks as it was before the key order was
// kept in a linked list (issue 11 item 12): a search of the result for the
// predecessor and a shift for each key only theirs has. It is the
// reference the faster version must agree with.
func mergeBlocksQuadratic(bb, ob, tb []fmBlock, opt lineMergeOptions) ([][]byte, int) {
	index := func(bs []fmBlock) map[string]fmBlock {
		m := make(map[string]fmBlock, len(bs))
		for _, b := range bs {
			m[b.key] = b
		}
		return m
	}
	bm, om, tm := index(bb), index(ob), index(tb)
	conflicts := 0
	mergeKey := func(b, o, t fmBlock, inB, inO, inT bool) []byte {
		lead, n1 := mergeChunk(b.lead, o.lead, t.lead, inB, inO, inT, opt)
		own, n2 := mergeChunk(b.own, o.own, t.own, inB, inO, inT, opt)
		conflicts += n1 + n2
		return append(lead, own...)
	}

	type entry struct {
		key  string
		text []byte
	}
	var out []entry
	for _, blk := range ob {
		b, inB := bm[blk.key]
		t, inT := tm[blk.key]
		if text := mergeKey(b, blk, t, inB, true, inT); len(text) > 0 {
			out = append(out, entry{blk.key, text})
		}
	}
	for ti, blk := range tb {
		if _, inO := om[blk.key]; inO {
			continue
		}
		b, inB := bm[blk.key]
		text := mergeKey(b, fmBlock{}, blk, inB, false, true)
		if len(text) == 0 {
			continue
		}
		pos := len(out)
		if ti == 0 {
			pos = 0
		}
	search:
		for p := ti - 1; p >= 0; p-- {
			for i, e := range out {
				if e.key == tb[p].key {
					pos = i + 1
					break search
				}
			}
		}
		out = append(out, entry{})
		copy(out[pos+1:], out[pos:])
		out[pos] = entry{blk.key, text}
	}
	chunks := make([][]byte, len(out))
	for i, e := range out {
		chunks[i] = e.text
	}
	return chunks, conflicts
}

// randomBlocks is a frontmatter over a few keys in a random order, each
// present or not, with values from a small set so that versions often
// agree, and keys are dropped when one side deletes an unchanged key.
func randomBlocks(r *rand.Rand) []fmBlock {
	keys := []string{"a", "b", "c", "d", "e", "f", "g"}
	r.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	var out []fmBlock
	for _, k := range keys[:r.IntN(len(keys)+1)] {
		blk := fmBlock{key: k, own: []string{fmt.Sprintf("%s: %d\n", k, r.IntN(2))}}
		if r.IntN(4) == 0 {
			blk.lead = []string{"# note\n"}
		}
		out = append(out, blk)
	}
	return out
}

func TestMergeBlocksKeepsTheKeyOrderOfTheQuadraticVersion(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	opt := lineMergeOptions{ours: "ours", base: "base", theirs: "theirs"}
	for i := range 20000 {
		bb, ob, tb := randomBlocks(r), randomBlocks(r), randomBlocks(r)
		got, gn := mergeBlocks(bb, ob, tb, opt)
		want, wn := mergeBlocksQuadratic(bb, ob, tb, opt)
		if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) || gn != wn {
			t.Fatalf("case %d: base %v ours %v theirs %v\n got %q (%d conflicts)\nwant %q (%d conflicts)",
				i, bb, ob, tb, got, gn, want, wn)
		}
	}
}

// BenchmarkMergePageManyKeys merges a page whose frontmatter has 20,000
// keys, to which theirs adds 20,000 more between them.
func BenchmarkMergePageManyKeys(b *testing.B) {
	var base, ours, theirs []byte
	base = append(base, "---\n"...)
	theirs = append(theirs, "---\n"...)
	for i := range 20000 {
		base = fmt.Appendf(base, "k%d: v\n", i)
		theirs = fmt.Appendf(theirs, "k%d: v\nt%d: v\n", i, i)
	}
	base = append(base, "---\nbody\n"...)
	theirs = append(theirs, "---\nbody\n"...)
	ours = append(ours, base...)
	ours = append(ours[:len(ours)-len("body\n")], "body, edited\n"...)
	for b.Loop() {
		if _, clean, err := MergePage(base, ours, theirs, Labels{}); err != nil || !clean {
			b.Fatalf("clean=%v err=%v", clean, err)
		}
	}
}

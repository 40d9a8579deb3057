package secretscan

// keywordSet is an Aho-Corasick automaton over the rules' lowercased
// keywords: one pass over a text says which keywords it holds, as
// gitleaks' pre-filter does (detect.go: the trie over the config's
// keywords, matched on strings.ToLower of the fragment), so a rule's regex
// runs only on texts that hold one of its keywords.
//
// The automaton is a dense table over the byte classes that occur in the
// keywords (every other byte is class 0, which leads back to the root), so
// a step is two array reads.
type keywordSet struct {
	class    [256]uint8
	nclass   int
	next     []int32 // state*nclass + class -> state
	out      [][]int // keyword indexes ending at a state (failure chain merged)
	keywords []string
}

func newKeywordSet(keywords []string) *keywordSet {
	k := &keywordSet{keywords: keywords, nclass: 1}
	for _, w := range keywords {
		for i := 0; i < len(w); i++ {
			if k.class[w[i]] == 0 {
				k.class[w[i]] = uint8(k.nclass)
				k.nclass++
			}
		}
	}
	// Build the trie (goto function), state 0 the root.
	trie := [][]int32{make([]int32, k.nclass)}
	k.out = [][]int{nil}
	for idx, w := range keywords {
		s := int32(0)
		for i := 0; i < len(w); i++ {
			c := k.class[w[i]]
			if trie[s][c] == 0 {
				trie = append(trie, make([]int32, k.nclass))
				k.out = append(k.out, nil)
				trie[s][c] = int32(len(trie) - 1)
			}
			s = trie[s][c]
		}
		k.out[s] = append(k.out[s], idx)
	}
	// Breadth-first: failure links, turned into a full transition table.
	fail := make([]int32, len(trie))
	queue := make([]int32, 0, len(trie))
	for c := 1; c < k.nclass; c++ {
		if s := trie[0][c]; s != 0 {
			queue = append(queue, s)
		}
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		k.out[s] = append(k.out[s], k.out[fail[s]]...)
		for c := 1; c < k.nclass; c++ {
			t := trie[s][c]
			if t == 0 {
				trie[s][c] = trie[fail[s]][c]
				continue
			}
			fail[t] = trie[fail[s]][c]
			queue = append(queue, t)
		}
	}
	k.next = make([]int32, len(trie)*k.nclass)
	for s, row := range trie {
		copy(k.next[s*k.nclass:], row)
	}
	return k
}

// hits appends to hits every keyword occurrence in lower, in text order
// (by end offset).
func (k *keywordSet) hits(lower string, hits []hit) []hit {
	s := int32(0)
	n := int32(k.nclass)
	for i := 0; i < len(lower); i++ {
		s = k.next[s*n+int32(k.class[lower[i]])]
		for _, idx := range k.out[s] {
			hits = append(hits, hit{word: idx, end: i + 1})
		}
	}
	return hits
}

// match marks in found (indexed like keywords) every keyword that lower
// holds, and reports whether any did.
func (k *keywordSet) match(lower string, found []bool) bool {
	any := false
	s := int32(0)
	n := int32(k.nclass)
	for i := 0; i < len(lower); i++ {
		s = k.next[s*n+int32(k.class[lower[i]])]
		for _, idx := range k.out[s] {
			found[idx] = true
			any = true
		}
	}
	return any
}

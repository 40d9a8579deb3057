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
	states := 1
	for _, w := range keywords {
		states += len(w)
		for i := 0; i < len(w); i++ {
			if k.class[w[i]] == 0 {
				k.class[w[i]] = uint8(k.nclass)
				k.nclass++
			}
		}
	}
	// The trie (goto function) is built in place in the one table the
	// automaton keeps, state 0 the root: at most one state per keyword
	// byte, so the table is allocated once (a slice per state and a copy
	// into the table were most of a gate run's set-up, issue 19).
	n := k.nclass
	next := make([]int32, states*n)
	k.out = make([][]int, 1, states)
	used := 1
	for idx, w := range keywords {
		s := 0
		for i := 0; i < len(w); i++ {
			c := int(k.class[w[i]])
			if next[s*n+c] == 0 {
				next[s*n+c] = int32(used)
				k.out = append(k.out, nil)
				used++
			}
			s = int(next[s*n+c])
		}
		k.out[s] = append(k.out[s], idx)
	}
	next = next[:used*n]
	// Breadth-first: failure links, turned into a full transition table.
	// A state's row is completed before any deeper state reads it.
	fail := make([]int32, used)
	queue := make([]int32, 0, used)
	for c := 1; c < n; c++ {
		if s := next[c]; s != 0 {
			queue = append(queue, s)
		}
	}
	for len(queue) > 0 {
		s := int(queue[0])
		queue = queue[1:]
		f := int(fail[s])
		if len(k.out[f]) > 0 {
			k.out[s] = append(k.out[s], k.out[f]...)
		}
		for c := 1; c < n; c++ {
			t := next[s*n+c]
			if t == 0 {
				next[s*n+c] = next[f*n+c]
				continue
			}
			fail[t] = next[f*n+c]
			queue = append(queue, t)
		}
	}
	k.next = next
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

package vaultgen

import (
	"math/rand/v2"
	"strings"
)

// MergeVersions returns three versions (base, ours, theirs) of a large
// Markdown document of lines lines, for measuring the merge driver against
// `git merge-file` on identical input (issue 11 item 12). The text is
// deliberately repetitive: a handful of line shapes (blank lines, list
// items, table rules, code fences, a recurring heading) make up all of it,
// so a line diff finds equal-looking candidates everywhere and few unique
// anchors. Ours and theirs each carry scattered edits drawn from the same
// shapes (replaced, inserted and deleted lines), dense in some stretches
// and sparse in others, so that the merge has both clean hunks and
// conflicts. The same seed gives the same bytes.
func MergeVersions(seed uint64, lines int) (base, ours, theirs []byte) {
	r := rand.New(rand.NewPCG(seed, 12))
	b := make([]string, lines)
	for i := range b {
		b[i] = markdownLine(r)
	}
	o := editMarkdown(r, b)
	t := editMarkdown(r, b)
	join := func(ls []string) []byte { return []byte(strings.Join(ls, "")) }
	return join(b), join(o), join(t)
}

var markdownShapes = []string{
	"\n", "\n", "\n", "- item\n", "- item\n", "| --- | --- |\n", "| a | b |\n",
	"```\n", "}\n", "- [ ] todo\n", "## Notes\n", "Some text that repeats.\n",
}

func markdownLine(r *rand.Rand) string { return markdownShapes[r.IntN(len(markdownShapes))] }

// editMarkdown copies base with scattered edits: each stretch of 500
// lines is edited about every 3, 8 or 40 lines.
func editMarkdown(r *rand.Rand, base []string) []string {
	out := make([]string, 0, len(base)+len(base)/4)
	every := 8
	for i, l := range base {
		if i%500 == 0 {
			every = []int{3, 8, 40}[r.IntN(3)]
		}
		if r.IntN(every) != 0 {
			out = append(out, l)
			continue
		}
		switch r.IntN(3) {
		case 0: // replace
			out = append(out, markdownLine(r))
		case 1: // insert after
			out = append(out, l, markdownLine(r))
		default: // delete
		}
	}
	return out
}

package vaultgen

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// MergeVersions returns three versions (base, ours, theirs) of a large
// Markdown document of about lines lines, for measuring the merge driver
// against `git merge-file` on identical input (issue 11 item 12). The text
// is deliberately repetitive — blank lines, list items, table rules, code
// fences recur thousands of times — because that is where a line diff has
// the most equal-looking candidates to choose from. Ours and theirs each
// carry scattered edits (replaced, inserted and deleted lines), dense in
// some stretches and sparse in others; some land close to the other side's, so the merge has both
// clean hunks and conflicts. The same seed gives the same bytes.
func MergeVersions(seed uint64, lines int) (base, ours, theirs []byte) {
	r := rand.New(rand.NewPCG(seed, 12))
	b := markdownLines(r, lines)
	o := editMarkdown(r, b)
	t := editMarkdown(r, b)
	join := func(ls []string) []byte { return []byte(strings.Join(ls, "")) }
	return join(b), join(o), join(t)
}

// markdownLines writes sections of a few recurring shapes until n lines.
func markdownLines(r *rand.Rand, n int) []string {
	var out []string
	for s := 0; len(out) < n; s++ {
		out = append(out, fmt.Sprintf("## Section %d\n", r.IntN(4)), "\n")
		switch s % 4 {
		case 0:
			for range 3 + r.IntN(6) {
				out = append(out, "- item\n")
			}
		case 1:
			out = append(out, "| key | value |\n", "| --- | --- |\n")
			for range 2 + r.IntN(5) {
				out = append(out, fmt.Sprintf("| k%d | v |\n", r.IntN(8)))
			}
		case 2:
			out = append(out, "```go\n", "}\n", "\n", "return nil\n", "}\n", "```\n")
		default:
			out = append(out, "Some text that repeats.\n", "\n", "- [ ] todo\n", "- [x] done\n")
		}
		out = append(out, "\n")
	}
	return out[:n]
}

// editMarkdown copies base with scattered edits: each stretch of 500
// lines is edited about every 4, 40 or 400 lines, so that some stretches
// differ a lot (past xdiff's edit-cost limits) and others little.
func editMarkdown(r *rand.Rand, base []string) []string {
	out := make([]string, 0, len(base)+len(base)/4)
	every := 40
	for i, l := range base {
		if i%500 == 0 {
			every = []int{4, 40, 400}[r.IntN(3)]
		}
		if r.IntN(every) != 0 {
			out = append(out, l)
			continue
		}
		switch r.IntN(4) {
		case 0: // replace
			out = append(out, fmt.Sprintf("- changed %d\n", r.IntN(1000)))
		case 1: // insert a repetitive line before
			out = append(out, "\n", l)
		case 2: // insert a new line after
			out = append(out, l, fmt.Sprintf("- added %d\n", r.IntN(1000)))
		default: // delete
		}
	}
	return out
}

package freshness

import (
	"github.com/git-echoes/git-echoes/internal/gitrepo"
	"github.com/git-echoes/git-echoes/internal/linediff"
)

// similarityMin is the share of lines an edited rename keeps for the
// citation to follow it (git's default rename threshold is 50%; git
// measures it in bytes of content, this in lines, which only differs on
// the margin).
const similarityMin = 0.5

// follower carries one citation forward along a line of descent, one
// commit at a time: its path (through renames), its entry, and for a
// line citation where each cited line is now, mapped through each
// commit's diff as git blame --reverse maps it (an edit above the lines
// shifts them, an edit of one of them loses it).
type follower struct {
	k      *checker
	path   string
	item   gitrepo.TreeItem
	gone   bool
	goneIn string

	lines   bool
	pos     []int // current 0-based line of each cited line; -1 once lost
	touched []CommitRef
}

func (f *follower) startLines(start, end int) error {
	have, err := f.k.blobLines(f.item.Hash)
	if err != nil {
		return err
	}
	for l := start; l <= end; l++ {
		if l-1 < len(have) {
			f.pos = append(f.pos, l-1)
		} else {
			f.pos = append(f.pos, -1) // past the end at the anchor: never there
		}
	}
	return nil
}

// survivors returns the cited lines' range now (1-based) and whether every
// one of them survived.
func (f *follower) survivors() (start, end int, all bool) {
	all = true
	start, end = -1, -1
	for _, p := range f.pos {
		if p < 0 {
			all = false
			continue
		}
		if start < 0 || p+1 < start {
			start = p + 1
		}
		if p+1 > end {
			end = p + 1
		}
	}
	return start, end, all && len(f.pos) > 0
}

// step moves the citation from commit parent to its child c.
func (f *follower) step(parent, c *gitrepo.Commit) error {
	k := f.k
	it, ok, err := k.entry(c.Tree, f.path)
	if err != nil {
		return err
	}
	if ok && it.Hash == f.item.Hash && it.Mode == f.item.Mode {
		return nil
	}
	if !ok {
		// Renamed? An exact copy of the content under a new name first,
		// else the most similar file added by this commit.
		next, nextItem, err := f.renameTarget(parent.Tree, c.Tree)
		if err != nil {
			return err
		}
		if next == "" {
			f.gone, f.goneIn = true, c.Hash
			return nil
		}
		f.path, it = next, nextItem
		if it.Hash == f.item.Hash {
			f.item = it
			return nil
		}
	}
	if f.lines && isFile(f.item.Mode) && isFile(it.Mode) {
		if err := f.mapLines(c, f.item.Hash, it.Hash); err != nil {
			return err
		}
	} else if f.lines {
		for i := range f.pos {
			f.pos[i] = -1
		}
		f.touched = append(f.touched, CommitRef{Hash: c.Hash, Date: c.CommitDate})
	}
	f.item = it
	return nil
}

// mapLines maps the cited lines through the diff from blob a to blob b
// and records the commit when it touched one of them.
func (f *follower) mapLines(c *gitrepo.Commit, a, b string) error {
	before, err := f.k.blobLines(a)
	if err != nil {
		return err
	}
	after, err := f.k.blobLines(b)
	if err != nil {
		return err
	}
	script := blameScript(before, after)
	ref := CommitRef{Hash: c.Hash, Date: c.CommitDate}
	hit := false
	lostIn := make([]int, len(script)) // cited lines each hunk replaced or deleted
	for i, p := range f.pos {
		if p < 0 {
			continue
		}
		shift := 0
		lost := -1
		for j, h := range script {
			if p >= h.I1+h.Chg1 {
				shift += h.Chg2 - h.Chg1
				continue
			}
			if p >= h.I1 { // inside the hunk's old side
				lost = j
			}
			break
		}
		if lost >= 0 {
			f.pos[i] = -1
			lostIn[lost]++
		} else {
			f.pos[i] = p + shift
		}
	}
	for j, n := range lostIn {
		if n > 0 {
			ref.Removed += n
			ref.Added += script[j].Chg2
			hit = true
		}
	}
	// Lines inserted between the first and last surviving cited line
	// change the cited passage too (they are counted, though every cited
	// line survives them).
	lo, hi := -1, -1
	for _, p := range f.pos {
		if p >= 0 {
			if lo < 0 || p < lo {
				lo = p
			}
			if p > hi {
				hi = p
			}
		}
	}
	if lo >= 0 {
		for j, h := range script {
			if lostIn[j] == 0 && h.Chg1 == 0 && h.Chg2 > 0 && h.I2 > lo && h.I2 <= hi {
				ref.Added += h.Chg2
				hit = true
			}
		}
	}
	if hit {
		f.touched = append([]CommitRef{ref}, f.touched...)
	}
	return nil
}

// blameScript is the edit script from before to after as git blame
// --reverse computes it: blame diffs the later file against the earlier
// one (blame.c pass_blame_to_parent, with the child as the "parent" in
// reverse mode), and where two scripts cost the same (a moved block: the
// block or the lines it jumped over) the direction decides which lines
// git takes as kept. The script is that diff with its sides swapped.
// git applies diff.indentHeuristic (on by default) there; this does not,
// so it agrees with git blame -c diff.indentHeuristic=false, and can
// differ from git's default only where a changed block could slide.
func blameScript(before, after []string) []linediff.Change {
	rev := linediff.Lines(after, before)
	out := make([]linediff.Change, len(rev))
	for i, h := range rev {
		out[i] = linediff.Change{I1: h.I2, Chg1: h.Chg2, I2: h.I1, Chg2: h.Chg1}
	}
	return out
}

// renameTarget finds where f.path went in the commit from ptree to tree:
// an added file with the same content, else the added file most similar
// to it (at least similarityMin of its lines), preferring the same base
// name on ties; "" when it was deleted.
func (f *follower) renameTarget(ptree, tree string) (string, gitrepo.TreeItem, error) {
	k := f.k
	_, added, err := k.tr.Changed(ptree, tree, "")
	if err != nil {
		return "", gitrepo.TreeItem{}, err
	}
	var fresh []gitrepo.Entry
	for _, a := range added {
		if _, had, err := k.tr.Entry(ptree, a.Path); err != nil {
			return "", gitrepo.TreeItem{}, err
		} else if !had {
			fresh = append(fresh, a)
		}
	}
	for _, a := range fresh {
		if a.Hash == f.item.Hash && a.Mode == f.item.Mode {
			return a.Path, gitrepo.TreeItem{Name: a.Path, Mode: a.Mode, Hash: a.Hash}, nil
		}
	}
	if !isFile(f.item.Mode) || len(fresh) > 100 {
		return "", gitrepo.TreeItem{}, nil
	}
	old, err := k.blobLines(f.item.Hash)
	if err != nil || len(old) == 0 {
		return "", gitrepo.TreeItem{}, err
	}
	best, bestScore := -1, 0.0
	for i, a := range fresh {
		if !isFile(a.Mode) {
			continue
		}
		now, err := k.blobLines(a.Hash)
		if err != nil {
			return "", gitrepo.TreeItem{}, err
		}
		common := len(old)
		for _, h := range linediff.Lines(old, now) {
			common -= h.Chg1
		}
		score := 2 * float64(common) / float64(len(old)+len(now))
		if score > bestScore || (score == bestScore && best >= 0 && baseName(a.Path) == baseName(f.path) && baseName(fresh[best].Path) != baseName(f.path)) {
			best, bestScore = i, score
		}
	}
	if best < 0 || bestScore < similarityMin {
		return "", gitrepo.TreeItem{}, nil
	}
	a := fresh[best]
	return a.Path, gitrepo.TreeItem{Name: a.Path, Mode: a.Mode, Hash: a.Hash}, nil
}

func baseName(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '/' {
			return p[i+1:]
		}
	}
	return p
}

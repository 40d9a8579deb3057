package review

import (
	"github.com/git-echoes/git-echoes/gitvault"
	"strings"
)

// RevRange is what `git echoes diff` compares, parsed from its arguments
// by ParseRevRange.
type RevRange struct {
	// A and B are the revisions as given ("" in a range form means HEAD,
	// as in git). B is unused when WorkTree is set.
	A, B string
	// MergeBase compares the merge base of A and B with B (A...B).
	MergeBase bool
	// WorkTree compares A with the work tree (--worktree).
	WorkTree bool
	// Upstream is the default: the merge base of HEAD and its upstream
	// against HEAD (or the work tree with --worktree).
	Upstream bool
}

// ParseRevRange reads the revision arguments of `git echoes diff` as git
// reads them:
//
//	(none)      merge base of HEAD and @{upstream} .. HEAD
//	A           A .. HEAD (with --worktree: A .. the work tree)
//	A B         A .. B
//	A..B        A .. B   (an empty side is HEAD)
//	A...B       merge-base(A, B) .. B   (an empty side is HEAD)
//
// worktree selects the work tree as the second side; it cannot be combined
// with a second revision. The revisions themselves are resolved later.
func ParseRevRange(args []string, worktree bool) (RevRange, error) {
	for _, a := range args {
		if a == "" {
			return RevRange{}, gitvault.Errorf("An empty revision was given.")
		}
		if strings.HasPrefix(a, "-") {
			return RevRange{}, gitvault.Errorf("Unknown option or bad revision: %s", a)
		}
		if strings.ContainsAny(a, "\x00\n\r") {
			return RevRange{}, gitvault.Errorf("A revision cannot contain control characters.")
		}
	}
	switch len(args) {
	case 0:
		return RevRange{Upstream: true, WorkTree: worktree}, nil
	case 1:
		a := args[0]
		if i := strings.Index(a, "..."); i >= 0 {
			l, r := a[:i], a[i+3:]
			if strings.Contains(l, "..") || strings.Contains(r, "..") {
				return RevRange{}, gitvault.Errorf("Bad revision range: %s", a)
			}
			if worktree {
				return RevRange{}, gitvault.Errorf("--worktree compares one revision with the work tree; it cannot be combined with a range (%s).", a)
			}
			return RevRange{A: orHEAD(l), B: orHEAD(r), MergeBase: true}, nil
		}
		if i := strings.Index(a, ".."); i >= 0 {
			l, r := a[:i], a[i+2:]
			if strings.Contains(r, "..") || (l == "" && r == "") {
				return RevRange{}, gitvault.Errorf("Bad revision range: %s", a)
			}
			if worktree {
				return RevRange{}, gitvault.Errorf("--worktree compares one revision with the work tree; it cannot be combined with a range (%s).", a)
			}
			return RevRange{A: orHEAD(l), B: orHEAD(r)}, nil
		}
		if worktree {
			return RevRange{A: a, WorkTree: true}, nil
		}
		return RevRange{A: a, B: "HEAD"}, nil
	case 2:
		for _, a := range args {
			if strings.Contains(a, "..") {
				return RevRange{}, gitvault.Errorf("Bad revision: %s (a range takes one argument)", a)
			}
		}
		if worktree {
			return RevRange{}, gitvault.Errorf("--worktree compares one revision with the work tree; give at most one revision.")
		}
		return RevRange{A: args[0], B: args[1]}, nil
	}
	return RevRange{}, gitvault.Errorf("Too many revisions: give at most two.")
}

func orHEAD(s string) string {
	if s == "" {
		return "HEAD"
	}
	return s
}

package review

// What a long-lived reader (the viewer of `git echoes serve`) asks before it
// offers the review commands' views: whether there is a history to show,
// and what `git echoes diff` compares by default.

import "github.com/git-echoes/git-echoes/gitvault"

// HasCommits reports whether the workspace is in a Git repository whose
// HEAD names a commit (false outside Git, in a repository without
// commits, or when the repository cannot be read). It reads only.
func HasCommits(e *gitvault.Engine) bool {
	if !e.WS.InGit {
		return false
	}
	repo, err := openRepo(e)
	if err != nil {
		return false
	}
	_, err = repo.ResolveCommit("HEAD")
	return err == nil
}

// DefaultDiffRange is what `git echoes diff` compares without arguments
// when HEAD has an upstream (the merge base of HEAD and its upstream,
// against HEAD); otherwise, HEAD~1 against HEAD when HEAD has a parent.
// ok is false when neither exists (no commits, or only one): there is
// nothing to compare by default.
func DefaultDiffRange(e *gitvault.Engine) (rr RevRange, upstream bool, ok bool) {
	repo, err := openRepo(e)
	if err != nil {
		return RevRange{}, false, false
	}
	if up, err := repo.Upstream(); err == nil {
		if _, err := repo.ResolveCommit(up); err == nil {
			return RevRange{Upstream: true}, true, true
		}
	}
	if _, err := repo.ResolveCommit("HEAD~1"); err == nil {
		return RevRange{A: "HEAD~1", B: "HEAD"}, false, true
	}
	return RevRange{}, false, false
}

// CheckRevision reports, as the review commands word it, a revision that
// does not name a commit of the workspace's repository.
func CheckRevision(e *gitvault.Engine, rev string) error {
	repo, err := openRepo(e)
	if err != nil {
		return err
	}
	_, err = resolveRev(repo, rev)
	return err
}

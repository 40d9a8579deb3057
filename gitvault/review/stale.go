package review

import (
	"errors"

	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/gitvault/freshness"
	"github.com/git-echoes/git-echoes/internal/gitrepo"
	"github.com/git-echoes/git-echoes/internal/pyjson"
)

// Memory the change left stale (issue 18, "Review and the CI gate"): the
// review lists the pages the change did not update whose cited code it
// changed, by the rule check --rev A..B gates on (freshness.Since). It is
// computed on request (git echoes diff), so the other readers of a
// DiffResult keep their output.

// AddStale computes res.Stale over the merge base of the two sides to the
// To commit. Against the work tree there are no commits to name, and two
// sides without a common ancestor have no change to review: StaleNote
// says so and nothing is listed.
func AddStale(e *gitvault.Engine, res *DiffResult) error {
	res.StaleDone = true
	if res.To.Commit == "" {
		res.StaleNote = "not computed against the work tree: commit the change, then review the range"
		return nil
	}
	repo, err := openRepo(e)
	if err != nil {
		return err
	}
	bases, err := repo.MergeBases(res.From.Commit, res.To.Commit)
	if errors.Is(err, gitrepo.ErrShallow) {
		return gitvault.Wrapf(err, "Cannot find the merge base of %s and %s: this shallow clone lacks the history (fetch it, e.g. actions/checkout with fetch-depth: 0).", res.From.Label, res.To.Label)
	}
	if err != nil {
		return gitvault.Wrapf(err, "Cannot find the merge base of %s and %s: %s", res.From.Label, res.To.Label, err.Error())
	}
	if len(bases) == 0 {
		res.StaleNote = "not computed: the two sides have no common ancestor"
		return nil
	}
	res.StaleBase = bases[0]
	stale, err := freshness.Since(repo, bases[0], res.To.Commit, freshness.SinceOptions{PagesDir: gitvault.VaultPrefix + "pages"})
	if err != nil {
		return gitvault.Wrapf(err, "Cannot compute which pages the change left stale: %s", err.Error())
	}
	res.Stale = stale
	return nil
}

// staleJSON is {"base", "note", "citations": [{"page", "cite", "path",
// "from", "verdict", "message", "count", "commits"}]}.
func (r *DiffResult) staleJSON() pyjson.Value {
	cites := make([]pyjson.Value, len(r.Stale))
	for i, s := range r.Stale {
		commits := make([]pyjson.Value, len(s.Commits))
		for j, c := range s.Commits {
			commits[j] = pyjson.ObjectValue(pyjson.NewObj().Set("commit", pyjson.Str(c.Hash)).Set("short", pyjson.Str(c.Short)).
				Set("subject", pyjson.Str(c.Subject)).Set("author", pyjson.Str(c.Author)).
				Set("date", pyjson.Str(c.Date.UTC().Format("2006-01-02T15:04:05Z"))))
		}
		o := pyjson.NewObj().Set("page", pyjson.Str(s.Page)).Set("cite", pyjson.Str(s.Citation.String())).
			Set("path", pyjson.Str(s.Path)).Set("from", pyjson.Str(s.From)).Set("verdict", pyjson.Str(string(s.Verdict))).
			Set("message", pyjson.Str(s.Message())).Set("count", pyjson.Int(int64(s.Count))).Set("commits", pyjson.Arr(commits...))
		cites[i] = pyjson.ObjectValue(o)
	}
	return pyjson.ObjectValue(pyjson.NewObj().Set("base", strOrNull(r.StaleBase)).Set("note", strOrNull(r.StaleNote)).
		Set("citations", pyjson.Arr(cites...)))
}

// staleChange is what the change did to a stale citation, for a table.
func staleChange(s freshness.Stale) string {
	if s.Verdict == freshness.Missing {
		return "deleted"
	}
	return "modified"
}

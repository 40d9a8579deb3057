package gate

import (
	"strconv"
	"strings"

	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/gitvault/freshness"
	"github.com/git-echoes/git-echoes/internal/gitrepo"
	"github.com/git-echoes/git-echoes/internal/pyjson"
)

// The gate's freshness rules (issue 18, "Citations" and "Review and the CI
// gate"). Both are warnings: a page with a bad sources: entry is still a
// valid page for the protocol (additional frontmatter fields are allowed
// and ignored by the index, echoes-conformance §9 step 6), and a page
// that cites changed code may still be true; the reviewer decides, and
// --strict makes the decision a gate.
const (
	// ruleSourceInvalid: a sources: entry that is not a citation (absolute,
	// leaving the repository, empty, not a string, or a list over
	// freshness.MaxSources entries). The citations parser is freshness's.
	ruleSourceInvalid = "source-invalid"
	// ruleMemoryStale: check --rev BASE..HEAD: a page the range did not
	// update cites code the range changed (freshness.Since defines it).
	ruleMemoryStale = "memory-stale"
)

// sourceFindings reports the sources: entries of one page that are not
// citations, at their line.
func sourceFindings(p, text string) []Finding {
	_, bad := freshness.Sources(text)
	out := make([]Finding, 0, len(bad))
	for _, b := range bad {
		msg := "sources: entry " + pyjson.ReprString(b.Entry) + " is not a citation (" + b.Reason +
			"); the page stays valid, but the entry is ignored: write a repository path, path:LINE or path:START-END"
		if b.Entry == "" && strings.HasPrefix(b.Reason, "more than") {
			msg = "sources: list has " + b.Reason + "; the page stays valid, but the list is ignored: cite at most " +
				strconv.Itoa(freshness.MaxSources) + " places"
		}
		out = append(out, Finding{Path: p, Line: b.Line, Rule: ruleSourceInvalid, Message: msg})
	}
	return out
}

// splitRange reads check --rev's argument: A..B or A...B (an empty side is
// HEAD, as in git) is a range, anything else one revision. Both range
// forms gate B and count the commits from the merge base of A and B: a
// pull request's change whichever way it is written.
func splitRange(rev string) (a, b string, isRange bool, err error) {
	sep := "..."
	i := strings.Index(rev, sep)
	if i < 0 {
		sep = ".."
		i = strings.Index(rev, sep)
	}
	if i < 0 {
		return "", rev, false, nil
	}
	a, b = rev[:i], rev[i+len(sep):]
	if strings.Contains(a, "..") || strings.Contains(b, "..") || (a == "" && b == "") ||
		strings.HasSuffix(a, ".") || strings.HasPrefix(b, ".") {
		return "", "", false, gitvault.Errorf("Bad revision range: %s", pyjson.ReprString(rev))
	}
	if a == "" {
		a = "HEAD"
	}
	if b == "" {
		b = "HEAD"
	}
	return a, b, true, nil
}

// rangeBase resolves A and B and their merge base (the first, as git diff
// A...B takes it).
func rangeBase(repo *gitrepo.Repo, a, b string) (base, head string, err error) {
	ah, err := repo.ResolveCommit(a)
	if err != nil {
		return "", "", gitvault.Wrapf(err, "Cannot read revision %s: %s", pyjson.ReprString(a), err.Error())
	}
	if head, err = repo.ResolveCommit(b); err != nil {
		return "", "", gitvault.Wrapf(err, "Cannot read revision %s: %s", pyjson.ReprString(b), err.Error())
	}
	bases, err := repo.MergeBases(ah, head)
	if err != nil {
		return "", "", gitvault.Wrapf(err, "Cannot find the merge base of %s and %s: %s (a shallow clone needs the history: fetch-depth: 0)", a, b, err.Error())
	}
	if len(bases) == 0 {
		return "", "", gitvault.Errorf("%s and %s have no common ancestor: there is no change to review", a, b)
	}
	return bases[0], head, nil
}

// staleFindings is rule memory-stale over base..head.
func staleFindings(repo *gitrepo.Repo, base, head string, snap *gitvault.Snapshot) ([]Finding, error) {
	stale, err := freshness.Since(repo, base, head, freshness.SinceOptions{PagesDir: gitvault.VaultPrefix + "pages"})
	if err != nil {
		return nil, gitvault.Wrapf(err, "Cannot compute which pages the change left stale: %s", err.Error())
	}
	out := make([]Finding, 0, len(stale))
	for _, s := range stale {
		out = append(out, Finding{Path: s.Page, Line: citeLine(snap, s), Rule: ruleMemoryStale, Message: s.Message()})
	}
	return out, nil
}

// citeLine is the line of the page that writes the citation: for a
// sources: entry the first frontmatter line naming it, for a body
// citation the first body line naming its path; 0 when none does (a link
// written relative to the page). It places the annotation.
func citeLine(snap *gitvault.Snapshot, s freshness.Stale) int {
	f, ok := snap.File(s.Page)
	if !ok {
		return 0
	}
	data, err := f.Read()
	if err != nil {
		return 0
	}
	lines := strings.Split(string(data), "\n")
	// The frontmatter: from the first non-blank line "---" to the next.
	open, closing := -1, -1
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if open < 0 {
			if t == "" {
				continue
			}
			if t != "---" {
				break
			}
			open = i
			continue
		}
		if t == "---" {
			closing = i
			break
		}
	}
	from, to := 0, len(lines)
	if s.From == "body" && closing >= 0 {
		from = closing + 1
	} else if s.From != "body" && closing >= 0 {
		from, to = open+1, closing
	}
	for i := from; i < to; i++ {
		if strings.Contains(lines[i], s.Citation.Path) {
			return i + 1
		}
	}
	return 0
}

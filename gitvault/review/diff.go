package review

import (
	"errors"
	"github.com/git-echoes/git-echoes/gitvault"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/git-echoes/git-echoes/gitvault/freshness"
	"github.com/git-echoes/git-echoes/gitvault/memory"
	"github.com/git-echoes/git-echoes/internal/fsx"
	"github.com/git-echoes/git-echoes/internal/gitrepo"
	"github.com/git-echoes/git-echoes/internal/pytext"
)

// The review engine: what changed in memory between two snapshots
// (issue 9). It reads commits from the object store and, with --worktree,
// the files on disk; it never writes and takes no lock.

// reviewPrefixes are the trees the review compares: the EchoesVault and
// the ECC memory vault of the project. Its project scope is repo-local
// operator context, kept out of Git by its own .gitignore; its team scope
// is meant to be inspected and committed (ecc-seed §surfaces).
var reviewPrefixes = []string{"EchoesVault", ".ecc/memory"}

const (
	teamMemoryPrefix    = ".ecc/memory/team/"
	projectMemoryPrefix = ".ecc/memory/project/"
	pagesPrefix         = gitvault.VaultPrefix + "pages/"
	dailyPrefix         = gitvault.VaultPrefix + "daily/"
)

// reviewFile is one file of a review side.
type reviewFile struct {
	path    string
	hash    string
	regular bool
	read    func() ([]byte, error)
}

// reviewSide is one snapshot of the reviewed trees.
type reviewSide struct {
	end   DiffEnd
	files map[string]reviewFile
}

// DiffEnd names one side of a diff.
type DiffEnd struct {
	Rev    string // the revision as requested ("" for the work tree)
	Commit string // its commit id ("" for the work tree)
	Label  string // what to print: the revision, "merge-base(A, B)" or "work tree"
}

// FileChange is one changed path, as git diff --name-status -M reports it:
// status A, D, M, T or R (with the similarity in percent).
type FileChange struct {
	Status     string
	Path       string
	OldPath    string // for R
	Similarity int    // for R
}

// PageMeta is what a page's frontmatter says on one side.
type PageMeta struct {
	Type, Stack, Status, Summary string
	Invalid                      string // why the page does not parse; the other fields are then empty
}

// PageChange is one page added, removed, renamed or updated.
type PageChange struct {
	Change        string // added, removed, renamed, updated
	Name, OldName string // page file names (OldName for renames)
	Path, OldPath string
	Similarity    int       // percent, for renames
	Before, After *PageMeta // nil on the side where the page does not exist
	LinesAdded    int
	LinesRemoved  int
	Binary        bool
}

// Deprecated reports a page that became deprecated (or was added deprecated).
func (p *PageChange) Deprecated() bool {
	return p.After != nil && p.After.Status == "deprecated" && (p.Before == nil || p.Before.Status != "deprecated")
}

// AddedDailyEntry is a daily entry added between the two sides.
type AddedDailyEntry struct {
	Path       string
	Time       string // the heading's timestamp, or the file name's UTC stamp
	Kind       string
	Agent      string
	FirstLines []string
}

// TeamMemory is an ECC team memory added or changed between the two sides.
type TeamMemory struct {
	Change        string // added, updated, renamed
	Path          string
	ID, Title     string
	Kind, Status  string
	SourceHarness string
	Targets, Tags []string
	Links         []string
	Invalid       string // set when the document does not parse as a memory
}

// DiffResult is the outcome of Diff.
type DiffResult struct {
	From, To DiffEnd
	// Files lists every changed path under EchoesVault/ and .ecc/memory/,
	// sorted by path (the new path for renames).
	Files []FileChange
	Pages []PageChange
	Daily []AddedDailyEntry
	Team  []TeamMemory
	// ProjectMemories are project-scope memory files the To side commits
	// (added or changed); they are personal and must not be committed.
	ProjectMemories []string
	// RenameLimited is set when too many candidates made git's rename
	// limit skip inexact rename detection.
	RenameLimited bool
	// Stale lists the citations of pages the change did not update whose
	// cited code it changed (rule memory-stale, freshness.Since), once
	// AddStale computed them over StaleBase..To (StaleBase the merge base
	// of the two sides); StaleNote says why they were not (the work tree
	// side, no common history).
	Stale     []freshness.Stale
	StaleDone bool
	StaleBase string
	StaleNote string
}

// openRepo opens the workspace's repository for a review command.
func openRepo(e *gitvault.Engine) (*gitrepo.Repo, error) {
	if !e.WS.InGit {
		return nil, gitvault.Errorf("Not inside a Git work tree: %s", e.WS.Root)
	}
	repo, err := gitrepo.Open(e.WS.Root)
	if err != nil {
		return nil, gitvault.Wrapf(err, "Cannot read the Git repository: %s", err.Error())
	}
	return repo, nil
}

// resolveRev resolves a revision for a review command, naming what is
// wrong (unknown revision, missing history of a shallow clone).
func resolveRev(repo *gitrepo.Repo, rev string) (string, error) {
	h, err := repo.ResolveCommit(rev)
	if err != nil {
		if sh, _ := repo.Shallow(); len(sh) > 0 {
			return "", gitvault.Wrapf(err, "Unknown revision %s (this is a shallow clone: the history may not have been fetched; fetch it, e.g. actions/checkout with fetch-depth: 0).", rev)
		}
		return "", gitvault.Wrapf(err, "Unknown revision: %s", rev)
	}
	return h, nil
}

// Diff compares two snapshots of the workspace's memory (issue 9). It is
// read-only: it reads commits from the object store and, for the work
// tree, the files on disk.
func Diff(e *gitvault.Engine, rr RevRange) (*DiffResult, error) {
	repo, err := openRepo(e)
	if err != nil {
		return nil, err
	}
	from, to, err := diffEnds(e, repo, rr)
	if err != nil {
		return nil, err
	}
	if !rr.WorkTree {
		a, b, err := changedSides(repo, from, to)
		if err != nil {
			return nil, err
		}
		return diffSides(a, b, repo, false)
	}
	a, err := commitSide(repo, from)
	if err != nil {
		return nil, err
	}
	b, err := workTreeSide(e, repo)
	if err != nil {
		return nil, err
	}
	return diffSides(a, b, repo, true)
}

// diffEnds resolves the two ends of a range.
func diffEnds(e *gitvault.Engine, repo *gitrepo.Repo, rr RevRange) (from, to DiffEnd, err error) {
	to = DiffEnd{Label: "work tree"}
	if rr.Upstream {
		up, err := repo.Upstream()
		if err != nil {
			return from, to, gitvault.Wrapf(err, "No upstream to compare with (%s); give a revision, e.g. git echoes diff origin/main, or set one with git branch --set-upstream-to.", err.Error())
		}
		head, err := resolveRev(repo, "HEAD")
		if err != nil {
			return from, to, err
		}
		uh, err := resolveRev(repo, up)
		if err != nil {
			return from, to, err
		}
		base, err := mergeBase(repo, uh, head, up, "HEAD")
		if err != nil {
			return from, to, err
		}
		short := strings.TrimPrefix(strings.TrimPrefix(up, "refs/remotes/"), "refs/heads/")
		from = DiffEnd{Rev: short, Commit: base, Label: "merge-base(" + short + ", HEAD)"}
		if !rr.WorkTree {
			to = DiffEnd{Rev: "HEAD", Commit: head, Label: "HEAD"}
		}
		return from, to, nil
	}
	ah, err := resolveRev(repo, rr.A)
	if err != nil {
		return from, to, err
	}
	from = DiffEnd{Rev: rr.A, Commit: ah, Label: rr.A}
	if rr.WorkTree {
		return from, to, nil
	}
	bh, err := resolveRev(repo, rr.B)
	if err != nil {
		return from, to, err
	}
	to = DiffEnd{Rev: rr.B, Commit: bh, Label: rr.B}
	if rr.MergeBase {
		base, err := mergeBase(repo, ah, bh, rr.A, rr.B)
		if err != nil {
			return from, to, err
		}
		from = DiffEnd{Rev: rr.A, Commit: base, Label: "merge-base(" + rr.A + ", " + rr.B + ")"}
	}
	return from, to, nil
}

// mergeBase picks the merge base as git diff A...B does: the first of
// several (git warns and uses the first too).
func mergeBase(repo *gitrepo.Repo, a, b, an, bn string) (string, error) {
	bases, err := repo.MergeBases(a, b)
	if errors.Is(err, gitrepo.ErrShallow) {
		return "", gitvault.Wrapf(err, "Cannot find the merge base of %s and %s: this shallow clone lacks the history (fetch it, e.g. actions/checkout with fetch-depth: 0).", an, bn)
	}
	if err != nil {
		return "", gitvault.Wrapf(err, "Cannot find the merge base of %s and %s: %s", an, bn, err.Error())
	}
	if len(bases) == 0 {
		return "", gitvault.Errorf("%s and %s have no common ancestor; give two revisions (A B) to compare them directly.", an, bn)
	}
	return bases[0], nil
}

// commitSide lists the reviewed trees of a commit.
func commitSide(repo *gitrepo.Repo, end DiffEnd) (*reviewSide, error) {
	c, err := repo.CommitInfo(end.Commit)
	if err != nil {
		return nil, gitvault.Wrapf(err, "Cannot read revision %s: %s", end.Label, err.Error())
	}
	s := &reviewSide{end: end, files: map[string]reviewFile{}}
	for _, p := range reviewPrefixes {
		entries, err := repo.TreeFilesAt(c.Tree, p)
		if err != nil {
			return nil, gitvault.Wrapf(err, "Cannot read revision %s: %s", end.Label, err.Error())
		}
		for _, en := range entries {
			if !strings.HasPrefix(en.Path, p+"/") {
				continue
			}
			s.files[en.Path] = reviewFile{path: en.Path, hash: en.Hash + en.Mode.String(), regular: gitvault.IsBlobMode(en.Mode), read: en.Read}
		}
	}
	return s, nil
}

// changedSides lists, for two commits, only the files that differ: the
// trees are compared top-down by id, so unchanged directories cost
// nothing, and a changed directory costs one merge of its two listings.
// Files equal on both sides play no part in a diff or in rename
// detection, as in git diff -M.
func changedSides(repo *gitrepo.Repo, from, to DiffEnd) (*reviewSide, *reviewSide, error) {
	tr := repo.NewTreeReader()
	defer tr.Close()
	ca, err := tr.Commit(from.Commit)
	if err != nil {
		return nil, nil, gitvault.Wrapf(err, "Cannot read revision %s: %s", from.Label, err.Error())
	}
	cb, err := tr.Commit(to.Commit)
	if err != nil {
		return nil, nil, gitvault.Wrapf(err, "Cannot read revision %s: %s", to.Label, err.Error())
	}
	a := &reviewSide{end: from, files: map[string]reviewFile{}}
	b := &reviewSide{end: to, files: map[string]reviewFile{}}
	for _, p := range reviewPrefixes {
		removed, added, err := tr.Changed(ca.Tree, cb.Tree, p)
		if err != nil {
			return nil, nil, gitvault.Wrapf(err, "Cannot compare %s and %s: %s", from.Label, to.Label, err.Error())
		}
		for _, side := range []struct {
			s  *reviewSide
			es []gitrepo.Entry
		}{{a, removed}, {b, added}} {
			for _, en := range side.es {
				data, err := en.Read()
				if err != nil && gitvault.IsBlobMode(en.Mode) {
					return nil, nil, gitvault.Wrapf(err, "Cannot read %s: %s", en.Path, err.Error())
				}
				content := data
				side.s.files[en.Path] = reviewFile{path: en.Path, hash: en.Hash + en.Mode.String(), regular: gitvault.IsBlobMode(en.Mode),
					read: func() ([]byte, error) { return content, nil }}
			}
		}
	}
	return a, b, nil
}

// workTreeSide reads the reviewed trees from disk, without following
// symbolic links; a file's identity is its blob id, as git computes it.
func workTreeSide(e *gitvault.Engine, repo *gitrepo.Repo) (*reviewSide, error) {
	s := &reviewSide{end: DiffEnd{Label: "work tree"}, files: map[string]reviewFile{}}
	tracked, err := repo.IndexPaths()
	if err != nil {
		return nil, err
	}
	for _, p := range reviewPrefixes {
		root := filepath.Join(e.WS.Root, filepath.FromSlash(p))
		if !fsx.IsDirNoFollow(root) {
			continue
		}
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				return nil
			}
			rel := filepath.ToSlash(e.WS.Rel(path))
			if rel == "EchoesVault/index.md" {
				return nil // local-only and generated (echoes-conformance §20.2)
			}
			if ign, err := repo.Ignored(rel, false); err == nil && ign && !tracked[rel] {
				return nil // what git diff would not show either
			}
			var data []byte
			mode := "0100644"
			regular := d.Type().IsRegular()
			if d.Type()&fs.ModeSymlink != 0 {
				mode = "0120000"
				target, err := fsx.Readlink(path)
				if err != nil {
					return err
				}
				data = []byte(filepath.ToSlash(target))
			} else if !regular {
				return nil
			} else {
				if data, err = fsx.ReadFile(path); err != nil {
					return err
				}
				if fi, err := d.Info(); err == nil && fi.Mode()&0o100 != 0 {
					mode = "0100755"
				}
			}
			content := data
			s.files[rel] = reviewFile{path: rel, hash: gitrepo.HashBlob(data) + mode, regular: regular,
				read: func() ([]byte, error) { return content, nil }}
			return nil
		})
		if err != nil {
			return nil, gitvault.Wrapf(err, "Cannot read the work tree: %s", gitvault.OSDetail(err))
		}
	}
	return s, nil
}

// diffSides compares two sides.
func diffSides(a, b *reviewSide, repo *gitrepo.Repo, worktree bool) (*DiffResult, error) {
	res := &DiffResult{From: a.end, To: b.end}
	var removed, added []*renameFile
	for p, fa := range a.files {
		fb, ok := b.files[p]
		switch {
		case !ok:
			removed = append(removed, &renameFile{path: p, hash: fa.hash, regular: fa.regular, read: fa.read})
		case fb.hash != fa.hash:
			status := "M"
			if fa.regular != fb.regular {
				status = "T"
			}
			res.Files = append(res.Files, FileChange{Status: status, Path: p})
		}
	}
	for p, fb := range b.files {
		if _, ok := a.files[p]; !ok {
			added = append(added, &renameFile{path: p, hash: fb.hash, regular: fb.regular, read: fb.read})
		}
	}
	sort.Slice(removed, func(i, j int) bool { return removed[i].path < removed[j].path })
	sort.Slice(added, func(i, j int) bool { return added[i].path < added[j].path })
	res.RenameLimited = len(removed)*len(added) > renameLimit*renameLimit
	pairs, err := detectRenames(removed, added)
	if err != nil {
		return nil, gitvault.Wrapf(err, "Cannot read a file: %s", err.Error())
	}
	srcUsed := map[int]bool{}
	dstUsed := map[int]bool{}
	for _, pr := range pairs {
		srcUsed[pr.src], dstUsed[pr.dst] = true, true
		res.Files = append(res.Files, FileChange{Status: "R", Path: added[pr.dst].path, OldPath: removed[pr.src].path,
			Similarity: pr.score * 100 / maxScore})
	}
	for i, f := range removed {
		if !srcUsed[i] {
			res.Files = append(res.Files, FileChange{Status: "D", Path: f.path})
		}
	}
	for j, f := range added {
		if !dstUsed[j] {
			res.Files = append(res.Files, FileChange{Status: "A", Path: f.path})
		}
	}
	sort.Slice(res.Files, func(i, j int) bool { return res.Files[i].Path < res.Files[j].Path })
	var tracked map[string]bool
	if worktree {
		var err error
		if tracked, err = repo.IndexPaths(); err != nil {
			return nil, err
		}
	}
	for _, fc := range res.Files {
		if err := res.classify(fc, a, b, tracked); err != nil {
			return nil, err
		}
	}
	return res, nil
}

func isPagePath(p string) bool {
	rest, ok := strings.CutPrefix(p, pagesPrefix)
	return ok && !strings.Contains(rest, "/") && gitvault.IsPageFileName(rest)
}

func readSide(s *reviewSide, p string) ([]byte, bool, error) {
	f, ok := s.files[p]
	if !ok || !f.regular {
		return nil, ok, nil
	}
	data, err := f.read()
	if err != nil {
		return nil, true, gitvault.Wrapf(err, "Cannot read %s in %s: %s", p, s.end.Label, err.Error())
	}
	return data, true, nil
}

// classify turns one file change into the page, daily and memory reports.
func (res *DiffResult) classify(fc FileChange, a, b *reviewSide, tracked map[string]bool) error {
	oldPath := fc.Path
	if fc.Status == "R" {
		oldPath = fc.OldPath
	}
	newIsPage, oldIsPage := isPagePath(fc.Path), isPagePath(oldPath)
	if fc.Status != "D" && strings.HasPrefix(fc.Path, projectMemoryPrefix) && strings.HasSuffix(fc.Path, ".md") &&
		(tracked == nil || tracked[fc.Path]) {
		res.ProjectMemories = append(res.ProjectMemories, fc.Path)
	}
	switch {
	case newIsPage || oldIsPage:
		pc := PageChange{Path: fc.Path}
		var before, after []byte
		var err error
		if fc.Status != "A" && oldIsPage {
			if before, _, err = readSide(a, oldPath); err != nil {
				return err
			}
			pc.Before = pageMeta(before)
		}
		if fc.Status != "D" && newIsPage {
			if after, _, err = readSide(b, fc.Path); err != nil {
				return err
			}
			pc.After = pageMeta(after)
		}
		switch {
		case fc.Status == "A" || (fc.Status == "R" && !oldIsPage):
			pc.Change = "added"
		case fc.Status == "D":
			pc.Change = "removed"
		case fc.Status == "R" && !newIsPage:
			pc.Change, pc.Path = "removed", oldPath
		case fc.Status == "R":
			pc.Change, pc.OldPath, pc.Similarity = "renamed", oldPath, fc.Similarity
			pc.OldName = strings.TrimPrefix(oldPath, pagesPrefix)
		default:
			pc.Change = "updated"
		}
		pc.Name = strings.TrimPrefix(pc.Path, pagesPrefix)
		if isBinary(before) || isBinary(after) {
			pc.Binary = true
		} else {
			pc.LinesAdded, pc.LinesRemoved = lineCounts(before, after)
		}
		res.Pages = append(res.Pages, pc)
	case fc.Status == "A" && strings.HasPrefix(fc.Path, dailyPrefix) && strings.HasSuffix(fc.Path, ".md"):
		data, _, err := readSide(b, fc.Path)
		if err != nil {
			return err
		}
		res.Daily = append(res.Daily, parseDailyEntry(fc.Path, data))
	case fc.Status != "D" && strings.HasPrefix(fc.Path, teamMemoryPrefix) && strings.HasSuffix(fc.Path, ".md"):
		data, _, err := readSide(b, fc.Path)
		if err != nil {
			return err
		}
		tm := teamMemory(fc.Path, data)
		tm.Change = map[string]string{"A": "added", "R": "renamed"}[fc.Status]
		if tm.Change == "" {
			tm.Change = "updated"
		}
		res.Team = append(res.Team, tm)
	}
	return nil
}

// pageMeta parses a page's frontmatter for the review; an invalid page is
// reported as such, not refused: the review shows what the gate refuses.
func pageMeta(data []byte) *PageMeta {
	text, err := pytext.DecodeText(data)
	if err != nil {
		return &PageMeta{Invalid: "invalid UTF-8"}
	}
	p, err := gitvault.ParsePage(text, false, false)
	if err != nil {
		return &PageMeta{Invalid: firstLineOf(err.Error())}
	}
	// The stack as its items (gitvault.StackOf, the one reading of it),
	// so rewriting "[go]" as "go" is no change.
	return &PageMeta{Type: p.Type, Status: p.Status, Summary: p.Summary, Stack: strings.Join(gitvault.StackOf(p.Block), ", ")}
}

func firstLineOf(s string) string {
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		return s[:i]
	}
	return s
}

// parseDailyEntry reads what a review shows of a daily entry: the name
// gives the UTC stamp, kind and agent (echoes-conformance §13.1); the heading
// the local time; the text its first lines.
func parseDailyEntry(path string, data []byte) AddedDailyEntry {
	d := AddedDailyEntry{Path: path}
	stamp, kind, agent := gitvault.ParseDailyName(basename(path))
	d.Kind, d.Agent = kind, agent
	if len(stamp) >= 16 {
		if t, err := time.Parse("20060102T150405.000000", stamp[:15]+"."+strings.TrimSuffix(stamp[15:], "Z")); err == nil {
			d.Time = t.UTC().Format("2006-01-02T15:04:05Z")
		}
	}
	text, _ := pytext.DecodeText(data)
	lines := strings.Split(pytext.UniversalNewlines(text), "\n")
	for _, l := range lines {
		l = pytext.Strip(l)
		switch {
		case l == "":
			continue
		case strings.HasPrefix(l, "### "):
			// The heading's local time is what the writer saw.
			if _, ts, ok := strings.Cut(l, " — "); ok {
				d.Time = pytext.Strip(ts)
			}
			continue
		case strings.HasPrefix(l, "Agent: `") && strings.HasSuffix(l, "`") && len(d.FirstLines) == 0:
			if d.Agent == "" {
				d.Agent = strings.TrimSuffix(strings.TrimPrefix(l, "Agent: `"), "`")
			}
			continue
		}
		if len(d.FirstLines) < 2 {
			d.FirstLines = append(d.FirstLines, pytext.Truncate(l, 200))
		}
	}
	return d
}

// teamMemory parses a team memory document with the memory vault's own
// parser (ecc-conformance §6).
func teamMemory(path string, data []byte) TeamMemory {
	tm := TeamMemory{Path: path}
	text, ok := memory.DecodeUTF8Fatal(data)
	if !ok {
		tm.Invalid = "invalid UTF-8"
		return tm
	}
	m, err := memory.ParseDocument(text)
	if err != nil {
		tm.Invalid = firstLineOf(err.Error())
		return tm
	}
	tm.ID, tm.Title, tm.Kind, tm.Status = m.ID, m.Title, m.Kind, m.Status
	tm.SourceHarness, tm.Targets, tm.Tags, tm.Links = m.SourceHarness, m.TargetHarnesses, m.Tags, m.Links
	return tm
}

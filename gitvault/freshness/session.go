package freshness

import (
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/internal/fsx"
	"github.com/git-echoes/git-echoes/internal/gitrepo"
	"github.com/git-echoes/git-echoes/internal/pyjson"
	"github.com/git-echoes/git-echoes/internal/pytext"
)

// The agents' surfaces of freshness (issue 18, "Where it shows"): the
// SessionStart hook and the MCP server ask for the verdicts of the pages
// they show, and only of those, through the small API of this file.

// ErrNoHistory is returned when freshness cannot be read from Git: the
// workspace is not a Git work tree, or it has no commit yet. Callers that
// add freshness to another answer leave it out, and say nothing.
var ErrNoHistory = errors.New("no Git history to read freshness from")

// noHistory is an error with its own message that is ErrNoHistory.
type noHistory struct{ msg string }

func (e noHistory) Error() string        { return e.msg }
func (e noHistory) Is(target error) bool { return target == ErrNoHistory }

// Repo opens the Git repository of the engine's workspace and resolves
// the target: rev, or HEAD when rev is "". The error for a missing HEAD
// wraps ErrNoHistory.
func Repo(eng *gitvault.Engine, rev string) (*gitrepo.Repo, string, error) {
	return repoWith(eng, rev, nil, nil)
}

// repoWith is Repo with the repository already open (repo nil: opened
// here), resolving through tr (nil: a reader of its own).
func repoWith(eng *gitvault.Engine, rev string, repo *gitrepo.Repo, tr *gitrepo.TreeReader) (*gitrepo.Repo, string, error) {
	if !eng.WS.InGit {
		return nil, "", noHistory{"Not inside a Git work tree: " + eng.WS.Root}
	}
	if repo == nil {
		var err error
		if repo, err = gitrepo.OpenLazy(eng.WS.Root); err != nil {
			return nil, "", fmt.Errorf("Cannot read the Git repository: %s", err)
		}
	}
	at := rev
	if at == "" {
		at = "HEAD"
	}
	own := tr == nil
	if own {
		tr = repo.NewTreeReader()
	}
	target, err := repo.ResolveCommitWith(tr, at)
	if own {
		tr.Close()
	}
	if err != nil {
		if rev == "" {
			return nil, "", noHistory{fmt.Sprintf("No commit yet: freshness is read from Git history (%s)", err)}
		}
		return nil, "", fmt.Errorf("Unknown revision: %s", rev)
	}
	return repo, target, nil
}

// openAt is Repo with the one reader of the run's objects (the caller
// closes it): each reader opened reads and checks the commit-graph file.
func openAt(eng *gitvault.Engine, rev string) (*gitrepo.Repo, *gitrepo.TreeReader, string, error) {
	if !eng.WS.InGit {
		return nil, nil, "", noHistory{"Not inside a Git work tree: " + eng.WS.Root}
	}
	// Lazily: freshness reads references and objects, never the index or
	// the exclude files (issue 18, warm).
	repo, err := gitrepo.OpenLazy(eng.WS.Root)
	if err != nil {
		return nil, nil, "", fmt.Errorf("Cannot read the Git repository: %s", err)
	}
	tr := repo.NewTreeReader()
	_, target, err := repoWith(eng, rev, repo, tr)
	if err != nil {
		tr.Close()
		return nil, nil, "", err
	}
	return repo, tr, target, nil
}

// PageArg turns a page argument (auth.md, auth, EchoesVault/pages/auth.md)
// into its repository path, as git echoes stale reads its arguments.
func PageArg(arg string) (string, error) {
	a := strings.TrimSpace(strings.ReplaceAll(arg, `\`, "/"))
	a = strings.TrimPrefix(strings.TrimPrefix(a, "./"), PagesDir+"/")
	if a == "" || strings.Contains(a, "/") || a == "." || a == ".." {
		return "", fmt.Errorf("Not a page name: %s", pyjson.ReprString(arg))
	}
	if !strings.HasSuffix(a, ".md") {
		a += ".md"
	}
	return PagesDir + "/" + a, nil
}

// WorkTreePages returns the documents of the named pages of the work tree
// (page file names, as in pages/), to be checked against target (HEAD).
// A page whose text differs from its blob at target, compared as the page
// reader decodes both (universal newlines, echoes-conformance §2.3), or
// that target lacks, has uncommitted changes and is anchored at the work
// tree. Only the named pages are read, in the work tree and at target.
func WorkTreePages(eng *gitvault.Engine, repo *gitrepo.Repo, target string, names []string) ([]Doc, error) {
	tr := repo.NewTreeReader()
	defer tr.Close()
	return workTreePagesWith(eng, tr, target, names)
}

func workTreePagesWith(eng *gitvault.Engine, tr *gitrepo.TreeReader, target string, names []string) ([]Doc, error) {
	// The tree from the commit-graph or the fast reader: go-git's commit
	// lookup decoded the whole pack index (most of the SessionStart
	// addition).
	c, err := tr.CommitHeader(target)
	if err != nil {
		return nil, err
	}
	// The pages' tree read once, its entries by name: an Entry lookup
	// per page scanned the thousand entries of the directory each time.
	entries := make([]gitrepo.TreeItem, len(names))
	if len(names) > 0 {
		dir, ok, err := tr.Entry(c.Tree, PagesDir)
		if err != nil {
			return nil, fmt.Errorf("read %s at %s: %w", PagesDir, short(target), err)
		}
		if ok && dir.Mode == filemode.Dir {
			items, err := tr.Items(dir.Hash)
			if err != nil {
				return nil, fmt.Errorf("read %s at %s: %w", PagesDir, short(target), err)
			}
			byName := make(map[string]gitrepo.TreeItem, len(items))
			for _, it := range items {
				byName[it.Name] = it
			}
			for i, name := range names {
				if it, ok := byName[name]; ok && !strings.Contains(name, "/") && isFile(it.Mode) {
					entries[i] = it
				}
			}
		}
	}
	texts, at, err := eng.ReadPageTexts(names)
	if err != nil {
		return nil, fmt.Errorf("Cannot read page %s: %s", names[at], gitvault.ErrorMessage(err))
	}
	docs := make([]Doc, len(names))
	for i, name := range names {
		d := Doc{Path: PagesDir + "/" + name, Text: texts[i], WorkTree: true}
		if it := entries[i]; it.Hash != "" {
			// A page whose text is its committed blob's bytes (the git
			// blob id of the text is the entry's) is keyed by the blob in
			// the verdict cache, as git echoes stale --rev keys it: the
			// two (and the SessionStart hook) share their verdicts. It
			// needs no read of the blob: only a page that differs in its
			// bytes is compared as the page reader decodes both.
			if blobID(d.Text) == it.Hash {
				d.WorkTree, d.Blob = false, it.Hash
			} else {
				data, err := tr.ReadBlob(it.Hash)
				if err != nil {
					return nil, fmt.Errorf("read %s at %s: %w", d.Path, short(target), err)
				}
				if text, err := pytext.DecodeText(data); err == nil && text == d.Text {
					d.WorkTree = false
				}
			}
		}
		docs[i] = d
	}
	return docs, nil
}

// blobID is the Git object id of a blob of text's bytes.
func blobID(text string) string {
	h := sha1.New()
	h.Write([]byte("blob " + strconv.Itoa(len(text)) + "\x00"))
	h.Write([]byte(text))
	return hex.EncodeToString(h.Sum(nil))
}

// Selection is what git echoes stale (and the echoes_stale tool) checks.
type Selection struct {
	Rev      string   // "" : the work tree's pages against HEAD; else the pages at Rev against Rev
	Pages    []string // page arguments (see PageArg); none: every page
	Memories bool     // also the ECC memories at the target
}

// Reports computes the reports of a selection through the verdict cache
// of the workspace (.git/echoes/stale). writeErr is a cache file that
// could not be written: the reports are right all the same.
func Reports(eng *gitvault.Engine, sel Selection) (target string, reps []Report, writeErr, err error) {
	s, err := selectDocs(eng, sel)
	if err != nil {
		return "", nil, nil, err
	}
	defer s.tr.Close()
	keys, err := cacheKeys(s.repo, s.target, s.docs)
	if err != nil {
		return "", nil, nil, fmt.Errorf("Cannot compute freshness: %s", err)
	}
	reps, writeErr, err = s.check(keys)
	if err != nil {
		return "", nil, nil, err
	}
	return s.target, reps, writeErr, nil
}

// selection is a Selection resolved: its repository, the one reader of
// its objects (each reader opened reads and checks the commit-graph file
// again: twice per run was a tenth of a warm one), its target, its
// documents (texts read only for the work tree's pages) and the cache
// directory.
type selection struct {
	repo   *gitrepo.Repo
	tr     *gitrepo.TreeReader
	target string
	docs   []Doc
	dir    string
}

// check computes the reports of the selection's documents (keyed by
// keys, see cacheKeys) through the verdict cache.
func (s *selection) check(keys []string) ([]Report, error, error) {
	return s.checkKeeping(keys, s.writeVerdicts)
}

// writeVerdicts writes the verdict cache.
func (s *selection) writeVerdicts(cf *cacheFile) error {
	return fsx.WriteFileAtomic(filepath.Join(s.dir, "verdicts"), encodeCache(cf))
}

// checkKeeping is check with keep writing the verdict cache.
func (s *selection) checkKeeping(keys []string, keep func(cf *cacheFile) error) ([]Report, error, error) {
	reps, writeErr, err := checkCachedKeys(s.repo, s.tr, s.target, s.docs, keys, s.dir, keep)
	if err != nil {
		return nil, nil, fmt.Errorf("Cannot compute freshness: %s", err)
	}
	return reps, writeErr, nil
}

// selectDocs resolves sel: the caller closes the reader.
func selectDocs(eng *gitvault.Engine, sel Selection) (s *selection, err error) {
	repo, tr, target, err := openAt(eng, sel.Rev)
	if err != nil {
		return nil, err
	}
	want, err := pageArgs(sel.Pages)
	if err != nil {
		tr.Close()
		return nil, err
	}
	if s, err = selectFrom(eng, sel, repo, tr, target, want); err != nil {
		tr.Close()
		return nil, err
	}
	return s, nil
}

// pageArgs is PageArg of each page argument, in order.
func pageArgs(args []string) ([]string, error) {
	var want []string
	for _, a := range args {
		p, err := PageArg(a)
		if err != nil {
			return nil, err
		}
		want = append(want, p)
	}
	return want, nil
}

// selectFrom is selectDocs with the repository open, the target resolved
// and the page arguments read (want, see pageArgs); it does not close tr.
func selectFrom(eng *gitvault.Engine, sel Selection, repo *gitrepo.Repo, tr *gitrepo.TreeReader, target string, want []string) (s *selection, err error) {
	var docs []Doc
	switch {
	case sel.Rev != "":
		docs, err = treePageBlobs(tr, target)
		if err != nil {
			return nil, fmt.Errorf("Cannot read the pages at %s: %s", short(target), err)
		}
	default:
		names, err := eng.WS.PageNames()
		if err != nil {
			return nil, fmt.Errorf("Cannot list the pages: %s", err)
		}
		if len(want) > 0 {
			wanted := map[string]bool{}
			for _, p := range want {
				wanted[p] = true
			}
			kept := names[:0:0]
			for _, n := range names {
				if wanted[PagesDir+"/"+n] {
					kept = append(kept, n)
				}
			}
			names = kept
		}
		if docs, err = workTreePagesWith(eng, tr, target, names); err != nil {
			return nil, err
		}
	}
	if len(want) > 0 {
		wanted := map[string]bool{}
		for _, p := range want {
			wanted[p] = true
		}
		kept := docs[:0:0]
		for _, d := range docs {
			if wanted[d.Path] {
				kept = append(kept, d)
				delete(wanted, d.Path)
			}
		}
		for _, p := range want {
			if wanted[p] {
				return nil, fmt.Errorf("Page does not exist: %s", strings.TrimPrefix(p, PagesDir+"/"))
			}
		}
		docs = kept
	}
	if sel.Memories {
		mems, err := TreeMemories(repo, target)
		if err != nil {
			return nil, fmt.Errorf("Cannot read the memories at %s: %s", short(target), err)
		}
		docs = append(docs, mems...)
	}
	dir, err := eng.WS.LocalCacheDir("stale")
	if err != nil {
		return nil, err
	}
	return &selection{repo: repo, tr: tr, target: target, docs: docs, dir: dir}, nil
}

// RecentPages returns the names (in pages/) of the at most n pages of the
// target's tree changed most recently in its history, newest first: the
// pages a resumed session is most likely to rely on, and the only ones
// the SessionStart hook checks (their anchors are near the target, so
// the walk and the verdicts read only the recent history). The walk is
// git's revision order (newest committer date first) and reads at most
// maxCommits commits (0: no bound).
func RecentPages(repo *gitrepo.Repo, target string, n, maxCommits int) ([]string, error) {
	tr := repo.NewTreeReader()
	defer tr.Close()
	return recentPagesWith(repo, tr, target, n, maxCommits)
}

func recentPagesWith(repo *gitrepo.Repo, tr *gitrepo.TreeReader, target string, n, maxCommits int) ([]string, error) {
	if n <= 0 {
		return nil, nil
	}
	k := &checker{repo: repo, tr: tr}
	var err error
	if k.shallow, err = repo.Shallow(); err != nil {
		return nil, err
	}
	tc, err := k.header(target)
	if err != nil {
		return nil, err
	}
	var out []string
	found := map[string]bool{}
	present := func(p string) (bool, error) {
		rest := strings.TrimPrefix(p, PagesDir+"/")
		if strings.Contains(rest, "/") || !strings.HasSuffix(rest, ".md") || found[rest] {
			return false, nil
		}
		it, ok, err := k.tr.Entry(tc.Tree, p)
		return ok && isFile(it.Mode), err
	}
	var q commitQueue
	seen := map[string]bool{tc.Hash: true}
	q.push(tc)
	for walked := 0; q.Len() > 0 && len(out) < n && (maxCommits == 0 || walked < maxCommits); walked++ {
		c := q.pop()
		var ptrees []string
		for _, p := range c.Parents {
			pc, err := k.header(p)
			if err != nil {
				return nil, err
			}
			ptrees = append(ptrees, pc.Tree)
			if !seen[p] {
				seen[p] = true
				q.push(pc)
			}
		}
		if len(ptrees) == 0 {
			ptrees = []string{""} // a root (or shallow) commit adds what it has
		}
		var changed []string
		for _, pt := range ptrees[:1] { // first parent: what this commit brought to the line
			if same, err := k.tr.SameEntry(pt, c.Tree, PagesDir); err != nil {
				return nil, err
			} else if same {
				continue
			}
			_, added, err := k.tr.Changed(pt, c.Tree, PagesDir)
			if err != nil {
				return nil, err
			}
			for _, a := range added {
				changed = append(changed, a.Path)
			}
		}
		for _, p := range changed {
			ok, err := present(p)
			if err != nil {
				return nil, err
			}
			if ok && len(out) < n {
				name := strings.TrimPrefix(p, PagesDir+"/")
				found[name] = true
				out = append(out, name)
			}
		}
	}
	return out, nil
}

// Line is the one factual line an agent is told about a page that is
// drifted or missing: "auth.md drifted: cites internal/auth/token.go,
// changed in 3 commits since this page, last 2026-11-28 'rotate keys'",
// naming its worst citation (the first of them), and how many more are
// not fresh. "" for a page that is neither drifted nor missing.
func (r Report) Line() string {
	if !r.Verdict.Stale() {
		return ""
	}
	var worst *Result
	more := 0
	for i := range r.Citations {
		c := &r.Citations[i]
		if !c.Verdict.Stale() {
			continue
		}
		if worst == nil || c.Verdict.Worse(worst.Verdict) {
			if worst != nil {
				more++
			}
			worst = c
		} else {
			more++
		}
	}
	if worst == nil {
		return ""
	}
	s := path.Base(r.Path) + " " + string(r.Verdict) + ": cites " + worst.Citation.String() + ", " + worst.Why()
	switch more {
	case 0:
	case 1:
		s += " (and 1 more citation)"
	default:
		s += " (and " + strconv.Itoa(more) + " more citations)"
	}
	return s
}

// RecentReports is what the SessionStart hook shows: the reports of the
// at most n pages changed most recently in HEAD's history (RecentPages,
// maxCommits walked at most) that the work tree has, read from the work
// tree and checked against HEAD. It writes nothing: the hook never
// writes (echoes-conformance §22), so it reads git echoes stale's verdict
// cache (.git/echoes/stale) where that has the page at this HEAD, and
// computes the others without keeping them.
func RecentReports(eng *gitvault.Engine, n, maxCommits int) ([]Report, error) {
	// One reader of the packs and the commit-graph for the whole
	// addition: each reader opened maps the pack indexes and reads and
	// checks the commit-graph file again.
	repo, tr, target, err := openAt(eng, "")
	if err != nil {
		return nil, err
	}
	defer tr.Close()
	recent, err := recentPagesWith(repo, tr, target, n, maxCommits)
	if err != nil {
		return nil, err
	}
	if len(recent) == 0 {
		return nil, nil
	}
	present, err := eng.WS.PageNames()
	if err != nil {
		return nil, err
	}
	inTree := map[string]bool{}
	for _, p := range present {
		inTree[p] = true
	}
	var names []string
	for _, p := range recent {
		if inTree[p] { // deleted in the work tree: not a page the agent has
			names = append(names, p)
		}
	}
	docs, err := workTreePagesWith(eng, tr, target, names)
	if err != nil {
		return nil, err
	}
	dir, err := eng.WS.LocalCacheDir("stale")
	if err != nil {
		return nil, err
	}
	return checkCachedReadOnly(repo, tr, target, docs, dir)
}

package review

import (
	"container/heap"
	"github.com/git-echoes/git-echoes/gitvault"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/git-echoes/git-echoes/gitvault/memory"
	"github.com/git-echoes/git-echoes/internal/gitrepo"
	"github.com/git-echoes/git-echoes/internal/pyjson"
	"github.com/git-echoes/git-echoes/internal/pytext"
)

// LogOptions configure Log.
type LogOptions struct {
	Target string // a page name, a vault path, or a memory id
	Follow bool   // continue across renames (git log --follow)
	Limit  int    // at most this many entries; 0 for no limit
	Rev    string // where the walk starts (default HEAD)
}

// LogEntry is one commit of a page's or memory's history.
type LogEntry struct {
	Commit       string
	Date         time.Time // author date
	Author       string    // "Name <email>"
	Agent        string    // see agentOf; "" for none
	Status       string    // A, M, D, T or R (renamed from OldPath)
	Path         string
	OldPath      string
	Summary      string // the page summary (memory title) at this commit; "" when deleted or unparsable
	LinesAdded   int
	LinesRemoved int
	Binary       bool
}

// LogResult is the outcome of Log.
type LogResult struct {
	Target    string // the path the history is about (at Rev)
	Memory    bool   // a memory document rather than a page
	Rev       string
	Entries   []LogEntry
	Truncated bool // more entries exist beyond the limit
}

// resolveLogTarget turns the argument of log into a repository path.
func resolveLogTarget(e *gitvault.Engine, repo *gitrepo.Repo, tr *gitrepo.TreeReader, tree, target string) (string, bool, error) {
	t := pytext.Strip(target)
	switch {
	case t == "":
		return "", false, gitvault.Errorf("Give a page name or a memory id.")
	case strings.HasPrefix(t, "mem_"):
		id, err := memory.ValidateID(t)
		if err != nil {
			return "", false, gitvault.Errorf("Not a memory id: %s", pyjson.ReprString(target))
		}
		removed, _, err := tr.Changed(tree, "", ".ecc/memory")
		if err != nil {
			return "", false, gitvault.Wrapf(err, "Cannot read the memory vault: %s", err.Error())
		}
		var found []string
		for _, en := range removed { // every file of the tree
			if basename(en.Path) == id+".md" {
				found = append(found, en.Path)
			}
		}
		switch len(found) {
		case 0:
			return "", false, gitvault.Errorf("Memory %s is not in .ecc/memory/ at this revision.", id)
		case 1:
			return found[0], true, nil
		}
		return "", false, gitvault.Errorf("Memory %s is in %d files at this revision: %s", id, len(found), strings.Join(found, ", "))
	case strings.ContainsAny(t, `/\`):
		p := filepath.ToSlash(t)
		if filepath.IsAbs(t) {
			rel, err := filepath.Rel(e.WS.Root, t)
			if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				return "", false, gitvault.Errorf("Path is outside the workspace: %s", t)
			}
			p = filepath.ToSlash(rel)
		}
		p = strings.TrimPrefix(p, "./")
		clean := pathClean(p)
		if clean != p || strings.HasPrefix(p, "../") {
			return "", false, gitvault.Errorf("Not a clean workspace-relative path: %s", pyjson.ReprString(target))
		}
		switch {
		case isPagePath(p):
			name, err := gitvault.NormalizePageString(strings.TrimPrefix(p, pagesPrefix))
			if err != nil || pagesPrefix+name != p {
				return "", false, gitvault.Errorf("Not a page name: %s", pyjson.ReprString(target))
			}
			return p, false, nil
		case strings.HasPrefix(p, ".ecc/memory/") && strings.HasSuffix(p, ".md"):
			return p, true, nil
		case strings.HasPrefix(p, gitvault.VaultPrefix):
			return p, false, nil
		}
		return "", false, gitvault.Errorf("Path is outside the vault (EchoesVault/ or .ecc/memory/): %s", p)
	}
	name, err := gitvault.NormalizePageString(t)
	if err != nil {
		return "", false, err
	}
	if err := gitvault.RefuseUnsafePageName(name); err != nil {
		return "", false, err
	}
	return pagesPrefix + name, false, nil
}

func pathClean(p string) string {
	c := filepath.ToSlash(filepath.Clean(filepath.FromSlash(p)))
	if c == "." {
		return ""
	}
	return c
}

// commitQueue orders commits as git's revision walk does: newest
// committer date first, ties in insertion order.
type commitQueue struct {
	items []*queued
	n     int
}

type queued struct {
	c   *gitrepo.Commit
	seq int
}

func (q *commitQueue) Len() int { return len(q.items) }
func (q *commitQueue) Less(i, j int) bool {
	a, b := q.items[i], q.items[j]
	if !a.c.CommitDate.Equal(b.c.CommitDate) {
		return a.c.CommitDate.After(b.c.CommitDate)
	}
	return a.seq < b.seq
}
func (q *commitQueue) Swap(i, j int) { q.items[i], q.items[j] = q.items[j], q.items[i] }
func (q *commitQueue) Push(x any)    { q.items = append(q.items, x.(*queued)) }
func (q *commitQueue) Pop() any {
	it := q.items[len(q.items)-1]
	q.items = q.items[:len(q.items)-1]
	return it
}

// historyWalk is one log run.
type historyWalk struct {
	repo    *gitrepo.Repo
	tr      *gitrepo.TreeReader
	shallow map[string]bool
	queue   commitQueue
	seen    map[string]bool
	bloom   *gitrepo.BloomPath // bloomPath's
}

func (w *historyWalk) push(hash string) error {
	if w.seen[hash] {
		return nil
	}
	w.seen[hash] = true
	c, err := w.tr.CommitHeader(hash)
	if err != nil {
		return gitvault.Wrapf(err, "Cannot read commit %s: %s", hash, err.Error())
	}
	if w.shallow[hash] {
		c.Parents = nil // a shallow commit's parents are not in this clone
	}
	w.queue.n++
	heap.Push(&w.queue, &queued{c: c, seq: w.queue.n})
	return nil
}

// bloomPath returns the path prepared for the changed-path filters,
// kept until the walk follows a rename.
func (w *historyWalk) bloomPath(path string) *gitrepo.BloomPath {
	if w.bloom == nil || w.bloom.Path != path {
		w.bloom = w.tr.BloomPath(path)
	}
	return w.bloom
}

func (w *historyWalk) treeOf(hash string) (string, error) {
	c, err := w.tr.CommitHeader(hash)
	if err != nil {
		return "", gitvault.Wrapf(err, "Cannot read commit %s: %s", hash, err.Error())
	}
	return c.Tree, nil
}

// logTreeCacheBytes and logObjectCacheBytes bound a log walk's caches
// of trees and of rebuilt pack objects (delta bases): 1 MiB each holds the
// delta chains a linear walk is inside on go-git's history and a
// 1,000-page vault (BenchmarkLog1000DeepPack) alike.
const (
	logTreeCacheBytes   = 1 << 20
	logObjectCacheBytes = 1 << 20
)

// Log returns the history of one page or memory (issue 9), newest first,
// choosing commits as git log -- PATH does (history simplification) or,
// with Follow, as git log --follow -- PATH does. It compares tree entry
// ids along the path, never whole trees, and reads blobs only for the
// commits it reports. It is read-only.
func Log(e *gitvault.Engine, opt LogOptions) (*LogResult, error) {
	repo, err := openRepo(e)
	if err != nil {
		return nil, err
	}
	rev := opt.Rev
	if rev == "" {
		rev = "HEAD"
	}
	start, err := resolveRev(repo, rev)
	if err != nil {
		return nil, err
	}
	shallow, err := repo.Shallow()
	if err != nil {
		return nil, gitvault.Wrapf(err, "Cannot read the Git repository: %s", err.Error())
	}
	w := &historyWalk{repo: repo, tr: repo.NewTreeReader(), shallow: shallow, seen: map[string]bool{}}
	defer w.tr.Close()
	// Each tree of the walk is looked up once (the reader remembers name
	// lookups), so little is kept: what a walk keeps is fresh memory
	// (issue 19, part 3; see TreeReader.SetCacheBytes).
	w.tr.SetCacheBytes(logTreeCacheBytes, logObjectCacheBytes)
	startTree, err := w.treeOf(start)
	if err != nil {
		return nil, err
	}
	path, isMemory, err := resolveLogTarget(e, repo, w.tr, startTree, opt.Target)
	if err != nil {
		return nil, err
	}
	res := &LogResult{Target: path, Memory: isMemory, Rev: rev}
	if n := w.tr.GraphCommits(); opt.Follow && n > 0 {
		// --follow walks every commit the start reaches: at most the
		// graph's (more only when commits were made after it was written).
		w.seen = make(map[string]bool, n)
		w.tr.ReserveCommits(n)
	}
	var feed *followFeed
	if opt.Follow {
		if feed, err = newFollowFeed(w, start); err != nil {
			return nil, err
		}
		defer feed.close()
	} else if err := w.push(start); err != nil {
		return nil, err
	}
	for {
		var c *gitrepo.Commit
		var parentTree, oldPath string
		if opt.Follow {
			st, ok, err := feed.next()
			if err != nil {
				return nil, err
			}
			if !ok {
				break
			}
			c, parentTree = st.c, st.parentTree
		} else {
			if w.queue.Len() == 0 {
				break
			}
			c = heap.Pop(&w.queue).(*queued).c
		}
		show := false
		if opt.Follow {
			// No history simplification with --follow (git cannot prune
			// when the path changes): every commit is walked (the feed
			// queues every parent), and a commit is shown when its diff
			// against the first parent touches the path; merges show no
			// diff.
			if len(c.Parents) > 1 {
				continue
			}
			// The commit-graph's changed-path filter, when it says the
			// path is not changed against the first parent (the empty
			// tree for a root), spares the tree comparison; a shallow
			// commit's filter is against a parent this walk does not have.
			if !w.shallow[c.Hash] && !w.tr.MaybeChanged(c.Hash, w.bloomPath(path)) {
				continue
			}
			same, err := w.tr.SameEntry(parentTree, c.Tree, path)
			if err != nil {
				return nil, gitvault.Wrapf(err, "Cannot read the history: %s", err.Error())
			}
			if same {
				continue
			}
			show = true
			oldPath = path
			inParent := false
			if parentTree != "" {
				if _, inParent, err = w.tr.Entry(parentTree, path); err != nil {
					return nil, gitvault.Wrapf(err, "Cannot read the history: %s", err.Error())
				}
			}
			if _, inChild, _ := w.tr.Entry(c.Tree, path); inChild && !inParent && parentTree != "" {
				src, err := w.renameSource(parentTree, c.Tree, path)
				if err != nil {
					return nil, err
				}
				if src != "" {
					oldPath = src
				}
			}
		} else {
			// History simplification (git's default): a commit whose
			// entry equals a parent's is not shown and only that parent
			// is followed; otherwise it is shown and all parents are.
			same := -1
			for i, p := range c.Parents {
				if i == 0 && !w.shallow[c.Hash] && !w.tr.MaybeChanged(c.Hash, w.bloomPath(path)) {
					same = 0 // the filter: unchanged against the first parent
					break
				}
				pt, err := w.treeOf(p)
				if err != nil {
					return nil, err
				}
				eq, err := w.tr.SameEntry(pt, c.Tree, path)
				if err != nil {
					return nil, gitvault.Wrapf(err, "Cannot read the history: %s", err.Error())
				}
				if eq {
					same = i
					break
				}
			}
			if same >= 0 {
				if err := w.push(c.Parents[same]); err != nil {
					return nil, err
				}
				continue
			}
			for _, p := range c.Parents {
				if err := w.push(p); err != nil {
					return nil, err
				}
			}
			if len(c.Parents) == 0 {
				if _, ok, err := w.tr.Entry(c.Tree, path); err != nil || !ok {
					if err != nil {
						return nil, gitvault.Wrapf(err, "Cannot read the history: %s", err.Error())
					}
					continue
				}
			} else if parentTree, err = w.treeOf(c.Parents[0]); err != nil {
				return nil, err
			}
			show, oldPath = true, path
		}
		if !show {
			continue
		}
		if opt.Limit > 0 && len(res.Entries) == opt.Limit {
			res.Truncated = true
			break
		}
		en, err := w.entry(c, parentTree, oldPath, path, isMemory)
		if err != nil {
			return nil, err
		}
		res.Entries = append(res.Entries, en)
		path = oldPath
	}
	return res, nil
}

// renameSource finds where path came from in a commit that added it, as
// git log --follow does: among the files the commit deleted, an exact
// copy (same basename first), else the most similar one scoring at least
// 50%.
func (w *historyWalk) renameSource(parentTree, tree, path string) (string, error) {
	removed, added, err := w.tr.Changed(parentTree, tree, "")
	if err != nil {
		return "", gitvault.Wrapf(err, "Cannot read the history: %s", err.Error())
	}
	addedSet := map[string]bool{}
	var dst *renameFile
	for _, a := range added {
		addedSet[a.Path] = true
		if a.Path == path {
			dst = &renameFile{path: a.Path, hash: a.Hash, regular: gitvault.IsBlobMode(a.Mode), read: a.Read}
		}
	}
	if dst == nil {
		return "", nil
	}
	var srcs []*renameFile
	for _, r := range removed {
		if addedSet[r.Path] {
			continue // modified, not deleted
		}
		srcs = append(srcs, &renameFile{path: r.Path, hash: r.Hash, regular: gitvault.IsBlobMode(r.Mode), read: r.Read})
	}
	pairs, err := detectRenames(srcs, []*renameFile{dst})
	if err != nil {
		return "", gitvault.Wrapf(err, "Cannot read the history: %s", err.Error())
	}
	if len(pairs) == 0 {
		return "", nil
	}
	return srcs[pairs[0].src].path, nil
}

// entry builds the report of one shown commit.
func (w *historyWalk) entry(c *gitrepo.Commit, parentTree, oldPath, path string, isMemory bool) (LogEntry, error) {
	full, err := w.tr.Commit(c.Hash) // the walk read only the header
	if err != nil {
		return LogEntry{}, gitvault.Wrapf(err, "Cannot read commit %s: %s", c.Hash, err.Error())
	}
	c = full
	en := LogEntry{Commit: c.Hash, Date: c.AuthorDate, Author: c.AuthorName + " <" + c.AuthorEmail + ">", Path: path}
	var before, after []byte
	var inParent bool
	if parentTree != "" {
		it, ok, err := w.tr.Entry(parentTree, oldPath)
		if err != nil {
			return en, gitvault.Wrapf(err, "Cannot read the history: %s", err.Error())
		}
		if ok && gitvault.IsBlobMode(it.Mode) {
			if before, err = w.tr.ReadBlob(it.Hash); err != nil {
				return en, gitvault.Wrapf(err, "Cannot read the history: %s", err.Error())
			}
		}
		inParent = ok
	}
	it, inChild, err := w.tr.Entry(c.Tree, path)
	if err != nil {
		return en, gitvault.Wrapf(err, "Cannot read the history: %s", err.Error())
	}
	if inChild && gitvault.IsBlobMode(it.Mode) {
		if after, err = w.tr.ReadBlob(it.Hash); err != nil {
			return en, gitvault.Wrapf(err, "Cannot read the history: %s", err.Error())
		}
	}
	switch {
	case !inChild:
		en.Status = "D"
	case !inParent:
		en.Status = "A"
	case oldPath != path:
		en.Status, en.OldPath = "R", oldPath
	default:
		en.Status = "M"
	}
	if inChild {
		if isMemory {
			tm := teamMemory(path, after)
			en.Summary = tm.Title
		} else if m := pageMeta(after); m.Invalid == "" {
			en.Summary = m.Summary
		}
	}
	if isBinary(before) || isBinary(after) {
		en.Binary = true
	} else {
		en.LinesAdded, en.LinesRemoved = lineCounts(before, after)
	}
	agent, err := w.agentOf(c, parentTree)
	if err != nil {
		return en, err
	}
	en.Agent = agent
	return en, nil
}

// agentOf names the agent behind a commit: its "Agent:" trailer; else
// the agents of the daily entries it added (echoes-conformance §13.1 puts
// them in the file name); else its "Co-authored-by:" names.
func (w *historyWalk) agentOf(c *gitrepo.Commit, parentTree string) (string, error) {
	ts := ParseTrailers(c.Message)
	if v := trailerValues(ts, "Agent"); len(v) > 0 {
		return strings.Join(v, ", "), nil
	}
	_, added, err := w.tr.Changed(parentTree, c.Tree, strings.TrimSuffix(dailyPrefix, "/"))
	if err != nil {
		return "", gitvault.Wrapf(err, "Cannot read the history: %s", err.Error())
	}
	var agents []string
	seen := map[string]bool{}
	for _, a := range added {
		if !strings.HasSuffix(a.Path, ".md") {
			continue
		}
		if d := parseDailyEntry(a.Path, nil); d.Agent != "" && !seen[d.Agent] {
			seen[d.Agent] = true
			agents = append(agents, d.Agent)
		}
	}
	if len(agents) > 0 {
		return strings.Join(agents, ", "), nil
	}
	var names []string
	for _, v := range trailerValues(ts, "Co-authored-by") {
		names = append(names, coAuthorName(v))
	}
	return strings.Join(names, ", "), nil
}

// JSON renders {"ok", "target", "kind", "rev", "truncated", "entries"}.
func (r *LogResult) JSON() pyjson.Value {
	kind := "page"
	if r.Memory {
		kind = "memory"
	}
	entries := make([]pyjson.Value, len(r.Entries))
	for i, e := range r.Entries {
		o := pyjson.NewObj().Set("commit", pyjson.Str(e.Commit)).Set("date", pyjson.Str(e.Date.Format(time.RFC3339))).
			Set("author", pyjson.Str(e.Author)).Set("agent", strOrNull(e.Agent)).Set("status", pyjson.Str(e.Status)).
			Set("path", pyjson.Str(e.Path))
		if e.Status == "R" {
			o.Set("oldPath", pyjson.Str(e.OldPath))
		}
		o.Set("summary", strOrNull(e.Summary)).Set("binary", pyjson.Boolean(e.Binary)).
			Set("linesAdded", pyjson.Int(int64(e.LinesAdded))).Set("linesRemoved", pyjson.Int(int64(e.LinesRemoved)))
		entries[i] = pyjson.ObjectValue(o)
	}
	return pyjson.ObjectValue(pyjson.NewObj().Set("ok", pyjson.Boolean(true)).Set("target", pyjson.Str(r.Target)).
		Set("kind", pyjson.Str(kind)).Set("rev", pyjson.Str(r.Rev)).Set("truncated", pyjson.Boolean(r.Truncated)).
		Set("entries", pyjson.Arr(entries...)))
}

// Text renders one block per commit, like a short git log.
func (r *LogResult) Text() string {
	var b strings.Builder
	if len(r.Entries) == 0 {
		b.WriteString("git echoes log: no commits change " + r.Target + " (from " + r.Rev + ")\n")
		return b.String()
	}
	for i, e := range r.Entries {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString("commit " + e.Commit + "\n")
		b.WriteString("Date:    " + e.Date.Format(time.RFC3339) + "\n")
		b.WriteString("Author:  " + e.Author + "\n")
		if e.Agent != "" {
			b.WriteString("Agent:   " + e.Agent + "\n")
		}
		change := e.Status + " " + e.Path
		if e.Status == "R" {
			change = "R " + e.OldPath + " -> " + e.Path
		}
		lines := "binary"
		if !e.Binary {
			lines = "+" + strconv.Itoa(e.LinesAdded) + " -" + strconv.Itoa(e.LinesRemoved)
		}
		b.WriteString("Change:  " + change + " (" + lines + ")\n")
		if e.Summary != "" {
			b.WriteString("Summary: " + e.Summary + "\n")
		}
	}
	if r.Truncated {
		b.WriteString("\n(more commits: raise --limit)\n")
	}
	return b.String()
}

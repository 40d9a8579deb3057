package gitrepo

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Read-only history access for the review commands (diff, log, as-of
// reads). Everything here reads the object store through go-git; nothing
// writes.

// ErrNoUpstream is wrapped by Upstream when the current branch has none.
var ErrNoUpstream = errors.New("no upstream")

// ErrShallow is wrapped by errors about history a shallow clone lacks.
var ErrShallow = errors.New("shallow clone")

// Commit is the metadata of one commit.
type Commit struct {
	Hash        string
	Parents     []string
	Tree        string
	AuthorName  string
	AuthorEmail string
	AuthorDate  time.Time
	CommitDate  time.Time
	Message     string
}

// TreeItem is one entry of a tree: a file (blob, symlink, submodule) or a
// directory.
type TreeItem struct {
	Name string
	Mode filemode.FileMode
	Hash string
}

// Shallow reports whether the repository is a shallow clone and lists the
// shallow commits (their parents are missing).
func (r *Repo) Shallow() (map[string]bool, error) {
	data, err := os.ReadFile(filepath.Join(r.commonDir, "shallow"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read shallow: %w", err)
	}
	set := map[string]bool{}
	for _, l := range strings.Split(string(data), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			set[l] = true
		}
	}
	return set, nil
}

// ResolveCommit resolves rev (go-git's revision syntax: a branch, tag,
// object id, HEAD~1, ...) to the hex id of a commit. Annotated tags are
// peeled.
func (r *Repo) ResolveCommit(rev string) (string, error) {
	r.gitMu.Lock()
	defer r.gitMu.Unlock()
	h, err := r.git.ResolveRevision(plumbing.Revision(rev))
	if err != nil {
		return "", fmt.Errorf("unknown revision %q: %w", rev, err)
	}
	if _, err := r.git.CommitObject(*h); err != nil {
		return "", fmt.Errorf("revision %q (%s) is not a readable commit: %w", rev, h, err)
	}
	return h.String(), nil
}

// Upstream returns the remote-tracking ref the current branch follows
// (branch.<name>.remote and branch.<name>.merge, as @{upstream}), or an
// error wrapping ErrNoUpstream. Only the default fetch mapping
// refs/heads/X -> refs/remotes/<remote>/X is supported, and remote "."
// (a local branch).
func (r *Repo) Upstream() (string, error) {
	branch := currentBranch(r.gitDir)
	if branch == "" {
		return "", fmt.Errorf("%w: HEAD is not on a branch", ErrNoUpstream)
	}
	remote, okR := r.ConfigValue("branch", branch, "remote")
	merge, okM := r.ConfigValue("branch", branch, "merge")
	if !okR || !okM || remote == "" || merge == "" {
		return "", fmt.Errorf("%w: branch %s has no upstream (branch.%s.remote/merge)", ErrNoUpstream, branch, branch)
	}
	name, ok := strings.CutPrefix(merge, "refs/heads/")
	if !ok {
		return "", fmt.Errorf("%w: branch.%s.merge %q is not a branch", ErrNoUpstream, branch, merge)
	}
	if remote == "." {
		return "refs/heads/" + name, nil
	}
	return "refs/remotes/" + remote + "/" + name, nil
}

// CommitInfo reads one commit's metadata.
func (r *Repo) CommitInfo(hash string) (*Commit, error) {
	r.gitMu.Lock()
	defer r.gitMu.Unlock()
	return r.commitInfo(plumbing.NewHash(hash))
}

func (r *Repo) commitInfo(h plumbing.Hash) (*Commit, error) {
	c, err := r.git.CommitObject(h)
	if err != nil {
		return nil, fmt.Errorf("read commit %s: %w", h, err)
	}
	out := &Commit{Hash: c.Hash.String(), Tree: c.TreeHash.String(), AuthorName: c.Author.Name,
		AuthorEmail: c.Author.Email, AuthorDate: c.Author.When, CommitDate: c.Committer.When, Message: c.Message}
	for _, p := range c.ParentHashes {
		out.Parents = append(out.Parents, p.String())
	}
	return out, nil
}

// MergeBases returns the best common ancestors of two commits (git
// merge-base --all), sorted. In a shallow clone whose history stops before
// the common ancestor it fails with an error wrapping ErrShallow.
func (r *Repo) MergeBases(a, b string) ([]string, error) {
	shallow, err := r.Shallow()
	if err != nil {
		return nil, err
	}
	r.gitMu.Lock()
	defer r.gitMu.Unlock()
	ca, err := r.git.CommitObject(plumbing.NewHash(a))
	if err != nil {
		return nil, fmt.Errorf("read commit %s: %w", a, err)
	}
	cb, err := r.git.CommitObject(plumbing.NewHash(b))
	if err != nil {
		return nil, fmt.Errorf("read commit %s: %w", b, err)
	}
	bases, err := ca.MergeBase(cb)
	if err != nil {
		if len(shallow) > 0 {
			return nil, fmt.Errorf("%w: history needed for the merge base of %s and %s is missing: %v", ErrShallow, a[:7], b[:7], err)
		}
		return nil, fmt.Errorf("merge base of %s and %s: %w", a, b, err)
	}
	if len(bases) == 0 && len(shallow) > 0 {
		return nil, fmt.Errorf("%w: no merge base of %s and %s in this shallow clone", ErrShallow, a[:7], b[:7])
	}
	var out []string
	for _, c := range bases {
		out = append(out, c.Hash.String())
	}
	sort.Strings(out)
	return out, nil
}

// ReadTree lists one tree object's entries in tree order.
func (r *Repo) ReadTree(hash string) ([]TreeItem, error) {
	r.gitMu.Lock()
	defer r.gitMu.Unlock()
	t, err := r.git.TreeObject(plumbing.NewHash(hash))
	if err != nil {
		return nil, fmt.Errorf("read tree %s: %w", hash, err)
	}
	out := make([]TreeItem, len(t.Entries))
	for i, e := range t.Entries {
		out[i] = TreeItem{Name: e.Name, Mode: e.Mode, Hash: e.Hash.String()}
	}
	return out, nil
}

// ReadBlob returns the bytes of a blob.
func (r *Repo) ReadBlob(hash string) ([]byte, error) {
	return r.blobReader(hash, filemode.Regular, plumbing.NewHash(hash))()
}

// TreeFilesAt lists the files at or under prefix of a tree object, like
// TreeFiles for a commit's tree.
func (r *Repo) TreeFilesAt(treeHash, prefix string) ([]Entry, error) {
	r.gitMu.Lock()
	tree, err := r.git.TreeObject(plumbing.NewHash(treeHash))
	if err != nil {
		r.gitMu.Unlock()
		return nil, fmt.Errorf("read tree %s: %w", treeHash, err)
	}
	prefix = strings.Trim(prefix, "/")
	base := ""
	if prefix != "" {
		te, err := tree.FindEntry(prefix)
		if errors.Is(err, object.ErrEntryNotFound) || errors.Is(err, object.ErrDirectoryNotFound) {
			r.gitMu.Unlock()
			return nil, nil
		}
		if err != nil {
			r.gitMu.Unlock()
			return nil, fmt.Errorf("tree %s: find %s: %w", treeHash, prefix, err)
		}
		if te.Mode != filemode.Dir {
			r.gitMu.Unlock()
			return []Entry{r.treeEntry(prefix, *te)}, nil
		}
		if tree, err = tree.Tree(prefix); err != nil {
			r.gitMu.Unlock()
			return nil, fmt.Errorf("tree %s: subtree %s: %w", treeHash, prefix, err)
		}
		base = prefix + "/"
	}
	var out []Entry
	walker := object.NewTreeWalker(tree, true, nil)
	for {
		name, te, err := walker.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			walker.Close()
			r.gitMu.Unlock()
			return nil, fmt.Errorf("tree %s: walk: %w", treeHash, err)
		}
		if te.Mode == filemode.Dir {
			continue
		}
		out = append(out, r.treeEntry(base+name, te))
	}
	walker.Close()
	r.gitMu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// HashBlob returns the id git gives a blob holding data (git hash-object).
func HashBlob(data []byte) string {
	return plumbing.ComputeHash(plumbing.BlobObject, data).String()
}

// TreeReader looks up paths in tree objects, keeping the last decoded
// trees: walking history compares each commit's tree with its parent's,
// and consecutive commits share most subtrees (compared by id, never
// decoded) and the tree just read.
type TreeReader struct {
	r     *Repo
	cache map[string][]TreeItem
	order []string
}

// treeCacheSize bounds the decoded trees a TreeReader keeps.
const treeCacheSize = 16

// NewTreeReader returns a reader over the repository's trees.
func (r *Repo) NewTreeReader() *TreeReader {
	return &TreeReader{r: r, cache: map[string][]TreeItem{}}
}

// Items returns a tree's entries.
func (t *TreeReader) Items(tree string) ([]TreeItem, error) {
	if items, ok := t.cache[tree]; ok {
		return items, nil
	}
	items, err := t.r.ReadTree(tree)
	if err != nil {
		return nil, err
	}
	if len(t.order) >= treeCacheSize {
		delete(t.cache, t.order[0])
		t.order = t.order[1:]
	}
	t.cache[tree] = items
	t.order = append(t.order, tree)
	return items, nil
}

// Entry finds the entry at path (slash-separated) in a tree; ok is false
// when the path does not exist (or crosses a non-directory).
func (t *TreeReader) Entry(tree, path string) (item TreeItem, ok bool, err error) {
	cur := tree
	for {
		name, rest, more := strings.Cut(path, "/")
		items, err := t.Items(cur)
		if err != nil {
			return TreeItem{}, false, err
		}
		found := false
		for _, it := range items {
			if it.Name == name {
				item, found = it, true
				break
			}
		}
		if !found {
			return TreeItem{}, false, nil
		}
		if !more {
			return item, true, nil
		}
		if item.Mode != filemode.Dir {
			return TreeItem{}, false, nil
		}
		cur, path = item.Hash, rest
	}
}

// SameEntry reports whether path has the same entry (id and mode, or
// absence) in two trees. It descends only while the trees differ, so an
// unchanged directory costs one comparison.
func (t *TreeReader) SameEntry(a, b, path string) (bool, error) {
	for {
		if a == b {
			return true, nil
		}
		if a == "" || b == "" {
			// "" is the empty tree: the same only if the other side
			// lacks the path too.
			other := a + b
			_, ok, err := t.Entry(other, path)
			return !ok, err
		}
		name, rest, more := strings.Cut(path, "/")
		ea, okA, err := t.child(a, name)
		if err != nil {
			return false, err
		}
		eb, okB, err := t.child(b, name)
		if err != nil {
			return false, err
		}
		switch {
		case !okA && !okB:
			return true, nil
		case !more:
			return okA == okB && ea.Hash == eb.Hash && ea.Mode == eb.Mode, nil
		}
		// A side without a directory here is the empty tree below.
		da, db := "", ""
		if okA && ea.Mode == filemode.Dir {
			da = ea.Hash
		}
		if okB && eb.Mode == filemode.Dir {
			db = eb.Hash
		}
		if da == "" && db == "" {
			return true, nil // neither side has a directory there: the path is absent on both
		}
		a, b, path = da, db, rest
	}
}

func (t *TreeReader) child(tree, name string) (TreeItem, bool, error) {
	items, err := t.Items(tree)
	if err != nil {
		return TreeItem{}, false, err
	}
	for _, it := range items {
		if it.Name == name {
			return it, true, nil
		}
	}
	return TreeItem{}, false, nil
}

// Changed lists the files that differ between two trees (either may be ""
// for the empty tree), below prefix ("" for all): removed holds the
// entries of a that b lacks or changes, added those of b that a lacks or
// changes. Equal subtrees are skipped by id.
func (t *TreeReader) Changed(a, b, prefix string) (removed, added []Entry, err error) {
	if prefix != "" {
		if a, err = t.subtree(a, prefix); err != nil {
			return nil, nil, err
		}
		if b, err = t.subtree(b, prefix); err != nil {
			return nil, nil, err
		}
		prefix += "/"
	}
	err = t.changed(a, b, prefix, &removed, &added)
	return removed, added, err
}

func (t *TreeReader) subtree(tree, path string) (string, error) {
	if tree == "" {
		return "", nil
	}
	it, ok, err := t.Entry(tree, path)
	if err != nil || !ok || it.Mode != filemode.Dir {
		return "", err
	}
	return it.Hash, nil
}

func (t *TreeReader) changed(a, b, base string, removed, added *[]Entry) error {
	if a == b {
		return nil
	}
	var ia, ib []TreeItem
	var err error
	if a != "" {
		if ia, err = t.r.ReadTree(a); err != nil {
			return err
		}
	}
	if b != "" {
		if ib, err = t.r.ReadTree(b); err != nil {
			return err
		}
	}
	mb := make(map[string]TreeItem, len(ib))
	for _, it := range ib {
		mb[it.Name] = it
	}
	ma := make(map[string]TreeItem, len(ia))
	for _, it := range ia {
		ma[it.Name] = it
		o, ok := mb[it.Name]
		if ok && o.Hash == it.Hash && o.Mode == it.Mode {
			continue
		}
		subA, subB := "", ""
		if it.Mode == filemode.Dir {
			subA = it.Hash
		} else {
			*removed = append(*removed, t.entry(base+it.Name, it))
		}
		if ok {
			if o.Mode == filemode.Dir {
				subB = o.Hash
			} else {
				*added = append(*added, t.entry(base+o.Name, o))
			}
		}
		if subA != "" || subB != "" {
			if err := t.changed(subA, subB, base+it.Name+"/", removed, added); err != nil {
				return err
			}
		}
	}
	for _, it := range ib {
		if _, ok := ma[it.Name]; ok {
			continue
		}
		if it.Mode == filemode.Dir {
			if err := t.changed("", it.Hash, base+it.Name+"/", removed, added); err != nil {
				return err
			}
		} else {
			*added = append(*added, t.entry(base+it.Name, it))
		}
	}
	return nil
}

func (t *TreeReader) entry(path string, it TreeItem) Entry {
	return Entry{Path: path, Mode: it.Mode, Hash: it.Hash, Read: t.r.blobReader(path, it.Mode, plumbing.NewHash(it.Hash))}
}

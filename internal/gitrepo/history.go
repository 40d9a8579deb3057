package gitrepo

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/go-git/go-git/v5/storage/filesystem/dotgit"
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

// ResolveCommit resolves rev (a branch, tag, object id or abbreviated
// id, HEAD~1, v1^2, ...: the revision syntax of revparse.go) to the hex id
// of a commit. Annotated tags are peeled.
func (r *Repo) ResolveCommit(rev string) (string, error) {
	r.gitMu.Lock()
	defer r.gitMu.Unlock()
	h, err := r.resolveRevision(rev)
	if err != nil {
		return "", fmt.Errorf("unknown revision %q: %w", rev, err)
	}
	return h.String(), nil
}

// ResolveCommitWith is ResolveCommit for the common case read through a
// TreeReader: a plain reference name (HEAD, a branch, a tag, refs/...,
// expanded by git's rules) naming a commit the
// commit-graph lists or the fast object reader reads as a commit. It
// avoids go-git's object lookup, which decodes the whole pack index (a
// third of a warm git echoes stale on a 55,000-object pack). Anything
// else (a revision expression, an id or id prefix, an annotated tag, an
// object only go-git can read) is resolved by ResolveCommit, so the
// answer is always the one ResolveCommit gives.
func (r *Repo) ResolveCommitWith(t *TreeReader, rev string) (string, error) {
	if plainRefName(rev) {
		r.gitMu.Lock()
		var id string
		for _, rule := range plumbing.RefRevParseRules {
			ref, err := storer.ResolveReference(r.st, plumbing.ReferenceName(fmt.Sprintf(rule, rev)))
			if err == nil && ref.Type() == plumbing.HashReference {
				id = ref.Hash().String()
				break
			}
		}
		r.gitMu.Unlock()
		if id != "" {
			// The object before the commit-graph: reading one commit
			// costs less than reading and checking the graph, which a
			// run that only needs its target never does (issue 18, warm).
			h := plumbing.NewHash(id)
			if typ, _, err := t.fast.read(h[:]); err == nil && typ == "commit" {
				return id, nil
			}
			if t.InCommitGraph(id) {
				return id, nil
			}
		}
	}
	return r.ResolveCommit(rev)
}

// plainRefName reports whether rev is a reference name with no revision
// syntax and cannot be read as an object id prefix. An all-hex name is
// left to ResolveCommit, which weighs a 40-digit id, a reference and an
// abbreviated id in git's order (revparse.go).
func plainRefName(rev string) bool {
	if rev == "" || strings.ContainsAny(rev, "~^@{}:?*[\\ ") || strings.Contains(rev, "..") {
		return false
	}
	for i := 0; i < len(rev); i++ {
		c := rev[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return true
		}
	}
	return false // all hex: maybe an id prefix
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
	return r.commit(plumbing.NewHash(hash))
}

// MergeBases returns the best common ancestors of two commits (git
// merge-base --all), sorted. In a shallow clone whose history stops before
// the common ancestor it fails with an error wrapping ErrShallow.
func (r *Repo) MergeBases(a, b string) ([]string, error) {
	shallow, err := r.Shallow()
	if err != nil {
		return nil, err
	}
	// Headers from the commit-graph where it lists them (see
	// CommitHeader): the walk reads only the parents and dates.
	tr := r.NewTreeReader()
	defer tr.Close()
	bases, err := mergeBases(tr, shallow, strings.ToLower(a), strings.ToLower(b))
	if err != nil {
		if len(shallow) > 0 {
			return nil, fmt.Errorf("%w: history needed for the merge base of %s and %s is missing: %v", ErrShallow, a[:7], b[:7], err)
		}
		return nil, fmt.Errorf("merge base of %s and %s: %w", a, b, err)
	}
	if len(bases) == 0 && len(shallow) > 0 {
		return nil, fmt.Errorf("%w: no merge base of %s and %s in this shallow clone", ErrShallow, a[:7], b[:7])
	}
	sort.Strings(bases)
	return bases, nil
}

// ReadTree lists one tree object's entries in tree order.
func (r *Repo) ReadTree(hash string) ([]TreeItem, error) {
	r.gitMu.Lock()
	defer r.gitMu.Unlock()
	out, err := r.readTree(plumbing.NewHash(hash))
	if err != nil {
		return nil, fmt.Errorf("read tree %s: %w", hash, err)
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
	defer r.gitMu.Unlock()
	return r.treeFiles(plumbing.NewHash(treeHash), prefix)
}

// HashBlob returns the id git gives a blob holding data (git hash-object).
func HashBlob(data []byte) string {
	return plumbing.ComputeHash(plumbing.BlobObject, data).String()
}

// TreeReader looks up paths in tree objects and reads commits for a
// history walk. Objects come from its own reader of the pack files and
// loose objects (objStore: packs held open, delta chains applied once),
// commit headers from the commit-graph file when there is one
// (commitGraph), and whatever those cannot read from go-git's object
// store; Close releases the files. It scans raw tree objects instead of
// decoding them and remembers each name lookup: consecutive commits share
// most subtrees (compared by id, never read). It is not safe for
// concurrent use.
type TreeReader struct {
	r       *Repo
	st      *filesystem.Storage
	fast    *objStore    // tried first; go-git (st) answers what it cannot
	objects string       // the objects directory
	cg      *commitGraph // see graph
	cgRead  bool
	cache   map[plumbing.Hash][]byte
	order   []plumbing.Hash
	cached  int                                   // bytes in cache
	cacheAt int                                   // bound of cached (treeCacheBytes unless set)
	names   map[plumbing.Hash]map[string]TreeItem // name index of large cached trees
	commits map[string]*Commit
	heads   map[string]*Commit // CommitHeader's
	// children remembers lookups of one name in one tree: a walk looks
	// each commit's subtree up twice, as the child and as the parent of
	// its neighbours.
	children map[childKey]childVal
}

type childKey struct{ tree, name string }

type childVal struct {
	it    TreeItem
	found bool
}

// maxChildren bounds TreeReader.children; past it the memo restarts.
const maxChildren = 1 << 16

// treeCacheBytes bounds the raw trees a TreeReader keeps, in bytes (a
// count of trees was a poor bound: a walk of 10,000 commits reads three
// or four small trees per commit and came back for them after the 32 it
// kept were gone, inflating each again). The oldest go first.
const treeCacheBytes = 64 << 20

// indexedTreeBytes is the size from which a tree gets a name index on
// its first lookup: a linear scan of a directory of thousands of entries
// for each of thousands of names was quadratic.
const indexedTreeBytes = 4 << 10

// NewTreeReader returns a reader over the repository's trees and commits.
// Close it when done.
func (r *Repo) NewTreeReader() *TreeReader {
	var fs = osfs.New(r.gitDir)
	if r.commonDir != r.gitDir {
		fs = dotgit.NewRepositoryFilesystem(osfs.New(r.gitDir), osfs.New(r.commonDir))
	}
	st := filesystem.NewStorageWithOptions(fs, stdHashCache{cache.NewObjectLRUDefault()}, filesystem.Options{
		AlternatesFS: osfs.New("/"), KeepDescriptors: true,
	})
	objects := filepath.Join(r.commonDir, "objects")
	return &TreeReader{r: r, st: st, fast: openObjStore(objects), objects: objects,
		cache: map[plumbing.Hash][]byte{}, cacheAt: treeCacheBytes, commits: map[string]*Commit{}}
}

// SetCacheBytes bounds the reader's two caches of tree and object bytes:
// its raw trees (treeCacheBytes by default) and the fast reader's rebuilt
// pack objects (see SetDeltaCacheBytes). A walk that looks each tree up
// once (log --follow: every name lookup is remembered) gains nothing from
// keeping them, and what it keeps is fresh memory the process pays a page
// fault per page for (issue 19, part 3: on go-git's history a log
// --follow kept every root tree, 7 MB, and took 4,500 page faults, 2,900
// with 1 MiB each; git log took 1,400). Entries already cached are kept
// until the next insertion.
func (t *TreeReader) SetCacheBytes(trees, objects int) {
	if trees > 0 {
		t.cacheAt = trees
	}
	t.SetDeltaCacheBytes(objects)
}

// graph returns the commit-graph file, nil without a usable one, read and
// checked on first use: a reader that resolves a reference and reads a
// few objects (a warm git echoes stale --rev) does not pay for the
// checksum of a file that lists every commit (issue 18, warm).
func (t *TreeReader) graph() *commitGraph {
	if !t.cgRead {
		t.cg, t.cgRead = t.r.commitGraph(), true
	}
	return t.cg
}

// HasCommitGraph reports whether the repository has a usable
// commit-graph file, from which CommitHeader answers without inflating
// commits.
func (t *TreeReader) HasCommitGraph() bool { return t.graph() != nil }

// GraphCommits is how many commits the commit-graph file lists, 0
// without one: a walk of the whole history can size its sets once.
func (t *TreeReader) GraphCommits() int {
	if g := t.graph(); g != nil {
		return g.n
	}
	return 0
}

// ReserveCommits makes room for n commit headers in the reader's memo
// (a walk that will read that many does not grow it step by step: the
// rehashing was 7% of log --follow on go-git's history).
func (t *TreeReader) ReserveCommits(n int) {
	if n <= 2*len(t.heads) {
		return
	}
	heads := make(map[string]*Commit, n)
	for h, c := range t.heads {
		heads[h] = c
	}
	t.heads = heads
}

// SetDeltaCacheBytes sets the bound of the reader's cache of rebuilt
// pack objects (see objCache; the default suits a walk of one path). A
// walk that reads every tree of a long history across many directories
// (freshness's pass over 10,000 commits and 100 directories, each with
// its own delta chains) rebuilt each chain again and again in the default
// 4 MiB: 195,000 delta applications for 30,000 trees, against 30,000 at
// 32 MiB. Entries already cached are kept when the bound shrinks until
// the next insertion.
func (t *TreeReader) SetDeltaCacheBytes(n int) {
	if t.fast != nil && n > 0 {
		t.fast.cache.limit = n
	}
}

// Close releases the pack files the reader kept open.
func (t *TreeReader) Close() error {
	err := t.fast.Close()
	if e := t.st.Close(); e != nil {
		err = e
	}
	return err
}

// fastRead returns the bytes of an object of type typ from the fast
// reader, or false when go-git must be asked (see objStore).
func (t *TreeReader) fastRead(typ string, h plumbing.Hash) ([]byte, bool) {
	got, data, err := t.fast.read(h[:])
	if err != nil || got != typ {
		return nil, false
	}
	return data, true
}

// Commit reads one commit's metadata, cached for the reader's life.
func (t *TreeReader) Commit(hash string) (*Commit, error) {
	if c, ok := t.commits[hash]; ok {
		return c, nil
	}
	h := plumbing.NewHash(hash)
	data, ok := t.fastRead("commit", h)
	if !ok {
		var err error
		if _, data, err = readStored(t.st, h, plumbing.CommitObject); err != nil {
			return nil, fmt.Errorf("read commit %s: %w", hash, err)
		}
	}
	out, err := decodeCommit(h.String(), data)
	if err != nil {
		return nil, fmt.Errorf("read commit %s: %w", hash, err)
	}
	t.commits[hash] = out
	return out, nil
}

// CommitHeader reads what a history walk needs of a commit: only Hash,
// Tree, Parents and CommitDate are set (Commit gives the rest). They come
// from the commit-graph file when it lists the commit, else from the raw
// header without decoding the commit when it has the canonical layout (see
// parseCommitHeader), else from Commit. Cached for the reader's life; the
// caller may replace the fields of the result.
func (t *TreeReader) CommitHeader(hash string) (*Commit, error) {
	if c, ok := t.heads[hash]; ok {
		return c, nil
	}
	var out *Commit
	h := plumbing.NewHash(hash)
	if tree, parents, when, ok := t.graph().lookup(h[:]); ok {
		out = &Commit{Hash: hash, Tree: tree, Parents: parents, CommitDate: when}
	} else if data, ok := t.fast.commitPrefix(h[:], commitPrefixBytes); ok {
		// The header lines only; parseCommitHeader refuses a prefix that
		// cuts them (each must end in a newline), and then the whole
		// commit is read below.
		if tree, parents, when, ok := parseCommitHeader(data); ok {
			out = &Commit{Hash: hash, Tree: tree, Parents: parents, CommitDate: when}
		}
	}
	if out == nil {
		if data, ok := t.fastRead("commit", h); ok {
			if tree, parents, when, ok := parseCommitHeader(data); ok {
				out = &Commit{Hash: hash, Tree: tree, Parents: parents, CommitDate: when}
			}
		}
	}
	if out == nil {
		c, err := t.Commit(hash)
		if err != nil {
			return nil, err
		}
		out = &Commit{Hash: c.Hash, Tree: c.Tree, Parents: c.Parents, CommitDate: c.CommitDate}
	}
	if t.heads == nil {
		t.heads = map[string]*Commit{}
	}
	t.heads[hash] = out
	return out, nil
}

// commitPrefixBytes is how much of a commit CommitHeader inflates first:
// the tree, a few parents, author and committer lines fit.
const commitPrefixBytes = 512

// parseCommitHeader reads the tree, the parents and the committer date of
// a commit in the canonical layout git writes (Git documents it in no
// format page; git's commit.c parse_commit_buffer and parse_commit_date
// read it, and go-git's commit_scanner.go follows them): "tree <id>", any number of
// "parent <id>", "author ..." and "committer <name> <<email>> <seconds>
// <zone>", one line each. ok is false for anything else (the caller then
// decodes the whole commit: decodeCommit), so the answer is always the
// one go-git's Commit.Decode gives: the date is read as go-git's
// Signature.Decode reads it (after the last '>', the digits up to the
// next space; the zone does not change the instant).
func parseCommitHeader(data []byte) (tree string, parents []string, when time.Time, ok bool) {
	line := func(key string) (v []byte, ok bool) {
		v, data, ok = cutHeaderLine(data, key)
		return v, ok
	}
	v, found := line("tree")
	if !found || !isLowerHexID(v) {
		return "", nil, time.Time{}, false
	}
	tree = string(v)
	for bytes.HasPrefix(data, []byte("parent ")) {
		if v, found = line("parent"); !found || !isLowerHexID(v) {
			return "", nil, time.Time{}, false
		}
		parents = append(parents, string(v))
	}
	if _, found = line("author"); !found {
		return "", nil, time.Time{}, false
	}
	v, found = line("committer")
	if !found {
		return "", nil, time.Time{}, false
	}
	open, end := bytes.LastIndexByte(v, '<'), bytes.LastIndexByte(v, '>')
	if open < 0 || end < open || end+2 >= len(v) {
		return "", nil, time.Time{}, false
	}
	ts := v[end+2:]
	if sp := bytes.IndexByte(ts, ' '); sp >= 0 {
		ts = ts[:sp]
	}
	sec, err := strconv.ParseInt(string(ts), 10, 64)
	if err != nil {
		return "", nil, time.Time{}, false
	}
	return tree, parents, time.Unix(sec, 0), true
}

// ReadBlob returns the bytes of a blob, the caller's own.
func (t *TreeReader) ReadBlob(hash string) ([]byte, error) {
	if data, ok := t.fastRead("blob", plumbing.NewHash(hash)); ok {
		return bytes.Clone(data), nil
	}
	return t.slowBlob(hash)
}

// BlobView returns the bytes of a blob, which the caller must never
// modify: they may be the reader's cached copy, shared with later reads.
// A reader of many versions of many files (freshness's line counts and
// line maps) saves ReadBlob's copy of each.
func (t *TreeReader) BlobView(hash string) ([]byte, error) {
	if data, ok := t.fastRead("blob", plumbing.NewHash(hash)); ok {
		return data, nil
	}
	return t.slowBlob(hash)
}

// slowBlob reads a blob through go-git.
func (t *TreeReader) slowBlob(hash string) ([]byte, error) {
	obj, err := t.st.EncodedObject(plumbing.BlobObject, plumbing.NewHash(hash))
	if err != nil {
		return nil, fmt.Errorf("read blob %s: %w", hash, err)
	}
	rd, err := obj.Reader()
	if err != nil {
		return nil, fmt.Errorf("read blob %s: %w", hash, err)
	}
	defer rd.Close()
	return io.ReadAll(rd)
}

// raw returns a tree object's bytes.
func (t *TreeReader) raw(tree string) ([]byte, error) {
	h := plumbing.NewHash(tree)
	if data, ok := t.cache[h]; ok {
		return data, nil
	}
	data, ok := t.fastRead("tree", h)
	if !ok {
		var err error
		if _, data, err = readStored(t.st, h, plumbing.TreeObject); err != nil {
			return nil, fmt.Errorf("read tree %s: %w", tree, err)
		}
	}
	for t.cached+len(data) > t.cacheAt && len(t.order) > 0 {
		old := t.order[0]
		t.cached -= len(t.cache[old])
		delete(t.cache, old)
		delete(t.names, old)
		t.order = t.order[1:]
	}
	t.cache[h] = data
	t.cached += len(data)
	t.order = append(t.order, h)
	return data, nil
}

// scanTree calls fn for each entry of a raw tree ("<mode> <name>\0<20-byte
// id>" repeated) until fn returns false.
func scanTree(data []byte, tree string, fn func(mode []byte, name []byte, id []byte) bool) error {
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		nul := bytes.IndexByte(data, 0)
		if sp < 0 || nul < sp || nul+21 > len(data) {
			return fmt.Errorf("tree %s: malformed entry", tree)
		}
		if !fn(data[:sp], data[sp+1:nul], data[nul+1:nul+21]) {
			return nil
		}
		data = data[nul+21:]
	}
	return nil
}

func parseMode(m []byte) (filemode.FileMode, error) { return filemode.New(string(m)) }

// Items returns a tree's entries in tree order.
func (t *TreeReader) Items(tree string) ([]TreeItem, error) {
	data, err := t.raw(tree)
	if err != nil {
		return nil, err
	}
	var out []TreeItem
	var perr error
	err = scanTree(data, tree, func(mode, name, id []byte) bool {
		m, err := parseMode(mode)
		if err != nil {
			perr = fmt.Errorf("tree %s: %w", tree, err)
			return false
		}
		out = append(out, TreeItem{Name: string(name), Mode: m, Hash: hex.EncodeToString(id)})
		return true
	})
	if err == nil {
		err = perr
	}
	return out, err
}

// Entry finds the entry at path (slash-separated) in a tree; ok is false
// when the path does not exist (or crosses a non-directory).
func (t *TreeReader) Entry(tree, path string) (item TreeItem, ok bool, err error) {
	cur := tree
	for {
		name, rest, more := strings.Cut(path, "/")
		it, found, err := t.child(cur, name)
		if err != nil || !found {
			return TreeItem{}, false, err
		}
		if !more {
			return it, true, nil
		}
		if it.Mode != filemode.Dir {
			return TreeItem{}, false, nil
		}
		cur, path = it.Hash, rest
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
	k := childKey{tree, name}
	if v, ok := t.children[k]; ok {
		return v.it, v.found, nil
	}
	it, found, err := t.scanChild(tree, name)
	if err != nil {
		return it, found, err
	}
	if t.children == nil {
		t.children = map[childKey]childVal{}
	} else if len(t.children) >= maxChildren {
		// Emptied in place: a new map grew back to the bound through
		// every size again, rehashing each time (issue 18, "Speed": a
		// sixth of a cold stale run).
		clear(t.children)
	}
	t.children[k] = childVal{it, found}
	return it, found, nil
}

func (t *TreeReader) scanChild(tree, name string) (TreeItem, bool, error) {
	data, err := t.raw(tree)
	if err != nil {
		return TreeItem{}, false, err
	}
	if len(data) >= indexedTreeBytes {
		return t.indexedChild(tree, data, name)
	}
	return t.linearChild(tree, data, name)
}

func (t *TreeReader) linearChild(tree string, data []byte, name string) (TreeItem, bool, error) {
	var it TreeItem
	found := false
	var perr error
	err := scanTree(data, tree, func(mode, n, id []byte) bool {
		if string(n) != name {
			return true
		}
		m, err := parseMode(mode)
		if err != nil {
			perr = fmt.Errorf("tree %s: %w", tree, err)
			return false
		}
		it, found = TreeItem{Name: name, Mode: m, Hash: hex.EncodeToString(id)}, true
		return false
	})
	if err == nil {
		err = perr
	}
	return it, found, err
}

// indexedChild looks name up in a large tree through its name index,
// built on the first lookup and dropped with the raw tree.
func (t *TreeReader) indexedChild(tree string, data []byte, name string) (TreeItem, bool, error) {
	h := plumbing.NewHash(tree)
	ix, ok := t.names[h]
	if !ok {
		ix = map[string]TreeItem{}
		var perr error
		err := scanTree(data, tree, func(mode, n, id []byte) bool {
			m, err := parseMode(mode)
			if err != nil {
				perr = fmt.Errorf("tree %s: %w", tree, err)
				return false
			}
			if _, dup := ix[string(n)]; !dup { // the first wins, as a scan finds it
				ix[string(n)] = TreeItem{Name: string(n), Mode: m, Hash: hex.EncodeToString(id)}
			}
			return true
		})
		if err == nil {
			err = perr
		}
		if err != nil {
			return t.linearChild(tree, data, name) // what a scan finds before the damage
		}
		if t.names == nil {
			t.names = map[plumbing.Hash]map[string]TreeItem{}
		}
		if _, cached := t.cache[h]; cached {
			t.names[h] = ix
		}
	}
	it, found := ix[name]
	return it, found, nil
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
	da, err := t.rawOrEmpty(a)
	if err != nil {
		return err
	}
	db, err := t.rawOrEmpty(b)
	if err != nil {
		return err
	}
	// Both trees are in git's tree order (a directory sorts as name+"/"):
	// a merge join over the raw bytes compares ids as bytes and builds
	// entries only for what differs.
	ia, ib := treeIter{data: da, tree: a}, treeIter{data: db, tree: b}
	skipSame(&ia, &ib)
	ea, okA, err := ia.next()
	if err != nil {
		return err
	}
	eb, okB, err := ib.next()
	if err != nil {
		return err
	}
	for okA || okB {
		var c int
		switch {
		case !okA:
			c = 1
		case !okB:
			c = -1
		default:
			c = compareTreeNames(ea, eb)
		}
		switch {
		case c < 0:
			if err := t.side(ea, base, removed, added, true); err != nil {
				return err
			}
		case c > 0:
			if err := t.side(eb, base, removed, added, false); err != nil {
				return err
			}
		default:
			if !bytes.Equal(ea.id, eb.id) || ea.mode != eb.mode {
				if ea.dir() && eb.dir() {
					if err := t.changed(hex.EncodeToString(ea.id), hex.EncodeToString(eb.id), base+string(ea.name)+"/", removed, added); err != nil {
						return err
					}
				} else {
					if err := t.side(ea, base, removed, added, true); err != nil {
						return err
					}
					if err := t.side(eb, base, removed, added, false); err != nil {
						return err
					}
				}
			}
		}
		if c == 0 && okA && okB {
			skipSame(&ia, &ib)
		}
		if c <= 0 {
			if ea, okA, err = ia.next(); err != nil {
				return err
			}
		}
		if c >= 0 {
			if eb, okB, err = ib.next(); err != nil {
				return err
			}
		}
	}
	return nil
}

func (t *TreeReader) rawOrEmpty(tree string) ([]byte, error) {
	if tree == "" {
		return nil, nil
	}
	return t.raw(tree)
}

// treeIter reads a raw tree's entries one at a time, without copying.
type treeIter struct {
	data []byte
	tree string
}

func (it *treeIter) next() (rawEntry, bool, error) {
	d := it.data
	if len(d) == 0 {
		return rawEntry{}, false, nil
	}
	sp, n, ok := entryLen(d)
	if !ok {
		return rawEntry{}, false, fmt.Errorf("tree %s: malformed entry", it.tree)
	}
	e := rawEntry{mode: internMode(d[:sp]), name: d[sp+1 : n-21], id: d[n-20 : n]}
	it.data = d[n:]
	return e, true, nil
}

// entryLen measures the raw tree entry at the start of d ("MODE NAME\0"
// and a 20-byte id): the offset of the space and the entry's length, or
// false when it is malformed.
func entryLen(d []byte) (sp, n int, ok bool) {
	sp = bytes.IndexByte(d, ' ')
	if sp < 0 || bytes.IndexByte(d[:sp], 0) >= 0 {
		return 0, 0, false
	}
	nul := bytes.IndexByte(d[sp:], 0)
	if nul < 0 || sp+nul+21 > len(d) {
		return 0, 0, false
	}
	return sp, sp + nul + 21, true
}

// skipSame advances two iterators, each at the start of an entry, past
// the entries their remaining bytes begin with in common: the same bytes
// from there are the same entries, and such entries differ in nothing.
// A history's commit changes a few entries of each tree it touches: the
// rest of a root tree of a hundred entries was parsed and compared entry
// by entry on both sides (issue 18, "Speed": the chain's diffs of a cold
// stale). Entries are measured as next measures them, so a malformed one
// is left for next to refuse. TestChangedAgreesWithGit compares with git
// diff-tree, skipping and not.
//
// When the rest of both trees is the same bytes to the end (a commit's
// change is one entry: after it, everything is), the rest is skipped
// whole, without measuring its entries one by one (that walk was most
// of skipSame's time, itself a quarter of the chain's diffs). Bytes equal to the end are the same
// entries whatever they hold, so nothing in them can differ (as git
// never opens a subtree whose id is unchanged, it refuses no damage
// there either).
func skipSame(ia, ib *treeIter) {
	if !skipSameEntries {
		return
	}
	n := commonPrefixLen(ia.data, ib.data)
	if n == len(ia.data) && n == len(ib.data) {
		ia.data, ib.data = ia.data[n:], ib.data[n:]
		return
	}
	k := 0
	for k < n {
		_, l, ok := entryLen(ia.data[k:])
		if !ok || k+l > n {
			break
		}
		k += l
	}
	ia.data, ib.data = ia.data[k:], ib.data[k:]
}

// skipSameEntries switches skipSame; tests compare with it off.
var skipSameEntries = true

// commonPrefixLen is the length of the longest common prefix of a and b.
func commonPrefixLen(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for ; i+8 <= n; i += 8 {
		if x := binary.LittleEndian.Uint64(a[i:]) ^ binary.LittleEndian.Uint64(b[i:]); x != 0 {
			return i + bits.TrailingZeros64(x)/8
		}
	}
	for ; i < n && a[i] == b[i]; i++ {
	}
	return i
}

// rawEntry is one entry of a raw tree, pointing into its bytes.
type rawEntry struct {
	mode string
	name []byte
	id   []byte
}

func (e rawEntry) dir() bool { return e.mode == "40000" }

// internMode returns the mode as a string without allocating for the
// modes git writes.
func internMode(m []byte) string {
	switch string(m) {
	case "40000":
		return "40000"
	case "100644":
		return "100644"
	case "100755":
		return "100755"
	case "120000":
		return "120000"
	case "160000":
		return "160000"
	}
	return string(m)
}

// compareTreeNames orders entries as git's tree order does: by name, a
// directory's name followed by "/".
func compareTreeNames(a, b rawEntry) int {
	an, bn := a.name, b.name
	n := min(len(an), len(bn))
	if c := bytes.Compare(an[:n], bn[:n]); c != 0 {
		return c
	}
	ca, cb := byte(0), byte(0)
	if len(an) > n {
		ca = an[n]
	} else if a.dir() {
		ca = '/'
	}
	if len(bn) > n {
		cb = bn[n]
	} else if b.dir() {
		cb = '/'
	}
	if ca == cb && len(an) == len(bn) {
		return 0
	}
	if ca < cb {
		return -1
	}
	if ca > cb {
		return 1
	}
	// Same name, one a directory and one not: distinct entries.
	if a.dir() {
		return 1
	}
	return -1
}

// side records an entry present on one side only: a file as removed or
// added, a directory as all its files.
func (t *TreeReader) side(e rawEntry, base string, removed, added *[]Entry, isA bool) error {
	id := hex.EncodeToString(e.id)
	if e.dir() {
		if isA {
			return t.changed(id, "", base+string(e.name)+"/", removed, added)
		}
		return t.changed("", id, base+string(e.name)+"/", removed, added)
	}
	m, err := filemode.New(e.mode)
	if err != nil {
		return fmt.Errorf("tree entry %s%s: %w", base, e.name, err)
	}
	en := t.entry(base+string(e.name), TreeItem{Name: string(e.name), Mode: m, Hash: id})
	if isA {
		*removed = append(*removed, en)
	} else {
		*added = append(*added, en)
	}
	return nil
}

func (t *TreeReader) entry(path string, it TreeItem) Entry {
	hash := it.Hash
	return Entry{Path: path, Mode: it.Mode, Hash: hash, Read: func() ([]byte, error) {
		if it.Mode == filemode.Submodule {
			return nil, fmt.Errorf("read %s: a submodule has no blob", path)
		}
		return t.ReadBlob(hash)
	}}
}

// stdHashCache is the object cache of a TreeReader. go-git keys its cache
// by object id and, for the objects it rebuilds from pack deltas (most
// trees), computes that id with a collision-detecting SHA-1 on every
// insertion, which dominated history walks. The id is only a cache key
// here (objects are found by the ids the pack index and the trees give),
// so it is computed with the standard library's SHA-1, which yields the
// same id, and kept on a wrapper so it is never computed again. Objects
// built to collide (the only inputs where the two differ) are refused by
// git itself, which uses the collision-detecting SHA-1, on fetch and push.
type stdHashCache struct{ lru *cache.ObjectLRU }

type keyedObject struct {
	plumbing.EncodedObject
	h plumbing.Hash
}

func (o keyedObject) Hash() plumbing.Hash { return o.h }

func (c stdHashCache) Put(o plumbing.EncodedObject) {
	if _, ok := o.(keyedObject); !ok {
		if mo, ok := o.(*plumbing.MemoryObject); ok {
			if rd, err := mo.Reader(); err == nil {
				d := sha1.New()
				fmt.Fprintf(d, "%s %d\x00", mo.Type(), mo.Size())
				_, err := io.Copy(d, rd)
				rd.Close()
				if err == nil {
					var h plumbing.Hash
					copy(h[:], d.Sum(nil))
					o = keyedObject{mo, h}
				}
			}
		}
	}
	c.lru.Put(o)
}

func (c stdHashCache) Get(k plumbing.Hash) (plumbing.EncodedObject, bool) { return c.lru.Get(k) }
func (c stdHashCache) Clear()                                             { c.lru.Clear() }

package gitrepo

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// Entry is a file of the index or of a commit tree.
type Entry struct {
	Path string            // slash-separated, relative to the top
	Mode filemode.FileMode // Regular, Executable, Symlink or Submodule
	// Stage is 0 for a normal index entry; 1 (base), 2 (ours) and 3
	// (theirs) for an unresolved conflict. Always 0 for tree entries.
	Stage int
	Hash  string // hex object id
	// IntentToAdd marks `git add -N` entries: tracked, but with no content
	// staged yet (their blob is the empty blob).
	IntentToAdd bool
	// Read returns the blob's bytes from the object store (a symbolic
	// link's target for Symlink). It fails for Submodule entries, whose
	// hash names a commit of another repository.
	Read func() ([]byte, error)
}

// IndexPaths returns the set of paths (slash-separated, any stage) in the
// index, like `git ls-files`. The error is an index that cannot be read
// (never after Open, which read it).
func (r *Repo) IndexPaths() (map[string]bool, error) {
	index, err := r.indexEntries()
	if err != nil {
		return nil, err
	}
	set := make(map[string]bool, len(index))
	for _, e := range index {
		set[e.path] = true
	}
	return set, nil
}

// inPrefix reports whether path is prefix itself or below it; "" is the
// whole repository.
func inPrefix(path, prefix string) bool {
	prefix = strings.Trim(prefix, "/")
	return prefix == "" || path == prefix || strings.HasPrefix(path, prefix+"/")
}

// StagedFiles returns the index entries at or under prefix (a slash-separated
// directory or file path, "" for all), in index order. Conflicted paths
// appear once per stage (1-3) and no stage-0 entry; callers detect
// conflicts by Stage != 0.
func (r *Repo) StagedFiles(prefix string) ([]Entry, error) {
	index, err := r.indexEntries()
	if err != nil {
		return nil, err
	}
	var out []Entry
	for _, e := range index {
		if !inPrefix(e.path, prefix) {
			continue
		}
		mode, err := filemode.New(fmt.Sprintf("%o", e.mode))
		if err != nil {
			return nil, fmt.Errorf("index entry %s: mode %o: %w", e.path, e.mode, err)
		}
		out = append(out, Entry{
			Path:        e.path,
			Mode:        mode,
			Stage:       e.stage,
			Hash:        e.hash.String(),
			IntentToAdd: e.intentToAdd,
			Read:        r.blobReader(e.path, mode, e.hash),
		})
	}
	return out, nil
}

// TreeFiles resolves rev (a branch, tag, object id, HEAD~1, ...: the
// revision syntax of ResolveCommit) to a commit and lists the files of its tree at or under
// prefix, sorted by path, without touching the work tree or the index. A
// prefix absent from the tree yields no entries.
func (r *Repo) TreeFiles(rev, prefix string) ([]Entry, error) {
	r.gitMu.Lock()
	defer r.gitMu.Unlock()
	h, err := r.resolveRevision(rev)
	if err != nil {
		return nil, fmt.Errorf("resolve revision %q: %w", rev, err)
	}
	commit, err := r.readCommit(h)
	if err != nil {
		return nil, fmt.Errorf("revision %q: commit %s: %w", rev, h, err)
	}
	return r.treeFiles(plumbing.NewHash(commit.Tree), prefix)
}

func (r *Repo) treeEntry(path string, it TreeItem) Entry {
	return Entry{Path: path, Mode: it.Mode, Hash: it.Hash, Read: r.blobReader(path, it.Mode, plumbing.NewHash(it.Hash))}
}

func (r *Repo) blobReader(path string, mode filemode.FileMode, h plumbing.Hash) func() ([]byte, error) {
	return func() ([]byte, error) {
		if mode == filemode.Submodule {
			return nil, fmt.Errorf("read %s: a submodule has no blob", path)
		}
		r.gitMu.Lock()
		defer r.gitMu.Unlock()
		_, data, err := r.readObject(h, plumbing.BlobObject)
		if err != nil {
			return nil, fmt.Errorf("read blob %s for %s: %w", h, path, err)
		}
		return data, nil
	}
}

// Untracked returns, sorted, the paths among paths (slash-separated,
// relative to the top) that `git ls-files --others --exclude-standard` would
// list: present in the work tree as a non-directory, absent from the index
// (case-insensitively under core.ignoreCase), not ignored, and not inside a
// nested repository or submodule (git never lists files below those). Only
// the given paths and the .gitignore files along them are examined.
func (r *Repo) Untracked(paths []string) ([]string, error) {
	tracked, err := r.IndexPaths()
	if err != nil {
		return nil, err
	}
	if r.ignoreCase {
		folded := make(map[string]bool, len(tracked))
		for p := range tracked {
			folded[foldASCII(p)] = true
		}
		tracked = folded
	}
	nested := map[string]bool{}
	var out []string
	for _, p := range paths {
		if err := checkPath(p); err != nil {
			return nil, err
		}
		key := p
		if r.ignoreCase {
			key = foldASCII(p)
		}
		if tracked[key] {
			continue
		}
		fi, err := os.Lstat(filepath.Join(r.top, filepath.FromSlash(p)))
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("untracked: %w", err)
		}
		if fi.IsDir() {
			continue
		}
		inNested, err := r.insideNestedRepo(p, nested)
		if err != nil {
			return nil, err
		}
		if inNested {
			continue
		}
		ign, err := r.Ignored(p, false)
		if err != nil {
			return nil, err
		}
		if !ign {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out, nil
}

// insideNestedRepo reports whether a leading directory of p holds a ".git"
// (another repository's work tree), caching per directory.
func (r *Repo) insideNestedRepo(p string, cache map[string]bool) (bool, error) {
	for i := 0; i < len(p); i++ {
		if p[i] != '/' {
			continue
		}
		dir := p[:i]
		has, ok := cache[dir]
		if !ok {
			_, err := os.Lstat(filepath.Join(r.top, filepath.FromSlash(dir), ".git"))
			switch {
			case err == nil:
				has = true
			case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
				has = false
			default:
				return false, fmt.Errorf("untracked: %w", err)
			}
			cache[dir] = has
		}
		if has {
			return true, nil
		}
	}
	return false, nil
}

func foldASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		b[i] = toLower(c)
	}
	return string(b)
}

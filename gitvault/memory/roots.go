package memory

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/git-echoes/git-echoes/internal/fsx"
	"github.com/git-echoes/git-echoes/internal/jstext"
)

// Roots is the resolved vault layout for one command or MCP call. Resolve
// it once per call (ResolveRoots); the trust boundaries travel with it and
// are never recomputed from later input.
type Roots struct {
	// Cwd is the physical working directory the roots were resolved from.
	Cwd string
	// ProjectRoot is the nearest ancestor of Cwd holding a .git entry, or Cwd.
	ProjectRoot string
	// Home is the resolved home directory.
	Home string
	// ProjectVault holds the project and team scopes (.ecc/memory or the
	// ECC_MEMORY_PROJECT_ROOT override).
	ProjectVault string
	// UserVault is the user scope root (~/.ecc/memory or the
	// ECC_MEMORY_USER_ROOT override).
	UserVault string

	projectBoundary string
	userBoundary    string

	cache *Cache // RootOptions.Cache
	proof *Proof // RootOptions.Proof
	// snapshot, when set, supplies the project and team scopes instead of
	// the file system (SnapshotRoots).
	snapshot *snapshot
}

// RootOptions are the inputs of ResolveRoots. Zero values mean "from the
// process": the physical cwd, $HOME/$USERPROFILE/os.UserHomeDir, os.Getenv.
type RootOptions struct {
	Cwd    string
	Home   string
	Getenv func(string) string
	// Cache, when set, lets scans (search, read, doctor) reuse what they
	// read before from files that have not changed (cache.go). A
	// long-lived process passes the same Cache to every call.
	Cache *Cache
	// Proof, when set, is a freshness proof the caller took at the start
	// of this call (scanmemo.go): a scan memo lookup for the same trees
	// uses it instead of asking the Cache's Freshness again, which would
	// take a second barrier in the same call (issue 19).
	Proof *Proof
}

// ResolveRoots resolves the vault roots (ecc-conformance §3.1), validating the
// ECC_MEMORY_PROJECT_ROOT and ECC_MEMORY_USER_ROOT overrides.
func ResolveRoots(opts RootOptions) (*Roots, error) {
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	cwd := opts.Cwd
	if cwd == "" {
		// fsx.Getwd is getcwd(3): the physical path, as Node's
		// process.cwd() reports it; os.Getwd may return a logical $PWD.
		wd, err := fsx.Getwd()
		if err != nil {
			return nil, &Error{Code: CodeIO, Message: "cannot determine the current directory: " + err.Error(), Err: err}
		}
		cwd = wd
	}
	cwd = filepath.Clean(cwd)
	r := &Roots{Cwd: cwd, ProjectRoot: findProjectRoot(cwd), cache: opts.Cache, proof: opts.Proof}

	home := opts.Home
	for _, k := range []string{"HOME", "USERPROFILE"} {
		if home == "" {
			home = getenv(k)
		}
	}
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return nil, &Error{Code: CodeIO, Message: "cannot determine the home directory: " + err.Error(), Err: err}
		}
		home = h
	}
	r.Home = resolveLexical(cwd, home)

	if v := getenv("ECC_MEMORY_PROJECT_ROOT"); v != "" {
		p, err := checkOverride(cwd, v)
		if err != nil {
			return nil, err
		}
		r.ProjectVault = p
		r.projectBoundary = realpathNearestOr(p)
	} else {
		r.ProjectVault = filepath.Join(r.ProjectRoot, ".ecc", "memory")
		r.projectBoundary = r.ProjectRoot
	}
	if v := getenv("ECC_MEMORY_USER_ROOT"); v != "" {
		p, err := checkOverride(cwd, v)
		if err != nil {
			return nil, err
		}
		r.UserVault = p
		r.userBoundary = realpathNearestOr(p)
	} else {
		r.UserVault = filepath.Join(r.Home, ".ecc", "memory")
		r.userBoundary = r.Home
	}
	return r, nil
}

func checkOverride(cwd, v string) (string, error) {
	v = jstext.Trim(v)
	switch {
	case v == "":
		return "", invalid("memory root override must be a non-empty string.")
	case jstext.UnitLen(v) > MaxOverrideUnits:
		return "", invalid("memory root override is too long (maximum 4096 characters).")
	case hasUnsafe(v, false):
		return "", invalid("memory root override must not contain control or bidirectional formatting characters.")
	}
	return resolveLexical(cwd, v), nil
}

// resolveLexical is Node's path.resolve(cwd, p): no symlink resolution.
func resolveLexical(cwd, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	if filepath.VolumeName(p) == "" && p != "" && os.IsPathSeparator(p[0]) {
		// Windows: a rooted path without a drive ("\x", "/x") is on the
		// working directory's drive, as path.win32.resolve has it.
		return filepath.Clean(filepath.VolumeName(cwd) + p)
	}
	return filepath.Join(cwd, p)
}

// findProjectRoot walks up from cwd to the first directory holding a .git
// entry that exists when followed (directory, gitfile or live symlink).
func findProjectRoot(cwd string) string {
	for dir := cwd; ; {
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return cwd
		}
		dir = parent
	}
}

// ScopeRoot returns the root directory of a scope.
func (r *Roots) ScopeRoot(scope string) string {
	if scope == "user" {
		return r.UserVault
	}
	return filepath.Join(r.ProjectVault, scope)
}

// Boundary returns the trusted boundary a scope root must stay within.
func (r *Roots) Boundary(scope string) string {
	if scope == "user" {
		return r.userBoundary
	}
	return r.projectBoundary
}

// realpathNearest is the realpath of p's nearest existing ancestor with the
// missing tail appended lexically (ecc-conformance §3.1). An entry exists
// when lstat finds it, as in the reference's path-safety module: a
// dangling symlink (or a symlink loop) exists, its realpath fails, and so
// containment fails and the caller gives the reference's refusal ("...
// outside the install root"), not a raw ELOOP (issue 11). ENOENT and
// ENOTDIR mean missing; any other lstat error is an error.
func realpathNearest(p string) (string, error) { return (*resolver)(nil).realpathNearest(p) }

// resolver memoizes directory realpaths for the duration of one scan, so
// checking thousands of files costs one lstat each instead of a full
// path walk. A nil resolver caches nothing. The design excludes same-user
// races (ecc-conformance §11.3), which is what makes a per-scan cache sound.
// It is safe for concurrent use.
type resolver struct {
	mu     sync.Mutex
	dirs   map[string]string
	inside map[[2]string]bool // {resolved dir, resolved root}: relWithin
}

func newResolver() *resolver {
	return &resolver{dirs: map[string]string{}, inside: map[[2]string]bool{}}
}

// dirWithin is relWithin(rootReal, d), memoized.
func (rs *resolver) dirWithin(d, rootReal string) bool {
	key := [2]string{d, rootReal}
	rs.mu.Lock()
	in, ok := rs.inside[key]
	rs.mu.Unlock()
	if !ok {
		in = relWithin(rootReal, d)
		rs.mu.Lock()
		rs.inside[key] = in
		rs.mu.Unlock()
	}
	return in
}

func (rs *resolver) realpathNearest(p string) (string, error) {
	p = filepath.Clean(p)
	var tail []string
	cur := p
	for {
		fi, err := os.Lstat(cur)
		if err == nil {
			real, err := rs.realpath(cur, fi.IsDir())
			if err != nil {
				return "", err
			}
			for i := len(tail) - 1; i >= 0; i-- {
				real = filepath.Join(real, tail[i])
			}
			return real, nil
		}
		if !missing(err) {
			return "", err
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return p, nil
		}
		tail = append(tail, filepath.Base(cur))
		cur = parent
	}
}

func (rs *resolver) realpath(p string, isDir bool) (string, error) {
	if rs == nil {
		return fsx.RealPath(p)
	}
	if isDir {
		rs.mu.Lock()
		r, ok := rs.dirs[p]
		rs.mu.Unlock()
		if ok {
			return r, nil
		}
		r, err := fsx.RealPath(p)
		if err == nil {
			rs.mu.Lock()
			rs.dirs[p] = r
			rs.mu.Unlock()
		}
		return r, err
	}
	// A file that is not itself a symlink resolves through its directory.
	li, err := os.Lstat(p)
	if err != nil || li.Mode()&fs.ModeSymlink != 0 {
		return fsx.RealPath(p)
	}
	dir, err := rs.realpath(filepath.Dir(p), true)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, filepath.Base(p)), nil
}

// missing reports an lstat error that means "no such entry": ENOENT, or
// ENOTDIR for a path below a file (fsx.Errno translates Windows codes).
func missing(err error) bool {
	if errors.Is(err, fs.ErrNotExist) {
		return true
	}
	errno, ok := fsx.Errno(err)
	return ok && errno == syscall.ENOTDIR
}

func realpathNearestOr(p string) string {
	if r, err := realpathNearest(p); err == nil {
		return r
	}
	return p
}

// within reports whether target resolves inside root (ecc-conformance §3.2).
// Any resolution error means "not within".
func within(target, root string) bool { return (*resolver)(nil).within(target, root) }

func (rs *resolver) within(target, root string) bool {
	t, err := rs.realpathNearest(target)
	if err != nil {
		return false
	}
	r, err := rs.realpathNearest(root)
	if err != nil {
		return false
	}
	return relWithin(r, t)
}

// fileWithin is within(filepath.Join(dir, base), root) for a scan, where
// rootReal = realpathNearest(root) was computed once for the scope and dir
// is an existing directory the walk entered. It reuses the directory's
// cached realpath without any system call on the file: a missing path or a
// regular non-symlink file resolves to realpath(dir)/base exactly as
// realpathNearest would, and the guarded reader's O_NOFOLLOW open and
// identity check reject everything else before containment can matter.
func (rs *resolver) fileWithin(dir, base, rootReal string) bool {
	d, err := rs.realpath(dir, true)
	if err != nil {
		return false
	}
	// A directory within the root keeps every plain name within it too
	// (Rel gives the directory's relative path plus the name), so that
	// answer is computed once per directory. Anything else takes the full
	// test.
	plain := base != "" && base != "." && base != ".." && !strings.ContainsRune(base, filepath.Separator)
	if plain && rs.dirWithin(d, rootReal) {
		return true
	}
	return relWithin(rootReal, filepath.Join(d, base))
}

// relWithin is the lexical part of ecc-conformance §3.2 on two resolved paths.
func relWithin(r, t string) bool {
	rel, err := filepath.Rel(r, t)
	if err != nil {
		return false
	}
	if rel == "." {
		return true
	}
	return rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// checkRootSafety enforces ecc-conformance §3.3 for one scope: the root must
// resolve within its boundary and must not itself be a symlink.
func (r *Roots) checkRootSafety(scope string) error {
	root, boundary := r.ScopeRoot(scope), r.Boundary(scope)
	if !within(root, boundary) {
		return newErr(CodeUnsafePath, "Refusing to access memory through a symlink outside the install root: '"+root+"' is not within '"+boundary+"'.")
	}
	// fsx.IsSymlink: on Windows a junction is refused like a symlink.
	if fsx.IsSymlink(root) {
		return newErr(CodeUnsafePath, "Refusing to access memory through symlink root: "+root)
	}
	return nil
}

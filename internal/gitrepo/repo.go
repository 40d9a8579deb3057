package gitrepo

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/go-git/go-git/v5/storage/filesystem/dotgit"
)

// ErrUnsupported is wrapped by every error about a repository this package
// cannot read faithfully. Callers report such repositories as unreadable
// rather than guessing.
var ErrUnsupported = errors.New("unsupported repository")

// Repo is an opened work tree. Its configuration, exclude files and index
// are read once, at Open, or on first use after OpenLazy (open a new Repo
// to see later changes); .gitignore files are read lazily and cached. It
// is safe for concurrent use.
type Repo struct {
	top       string
	gitDir    string
	commonDir string
	indexFile string

	config     []configEntry // all sources, lowest precedence first
	ignoreCase bool

	// The index and the exclude files, read once by loadIndex and
	// loadExcludes (at Open, or on first use after OpenLazy); their
	// errors are Open's, reported by every use.
	indexOnce sync.Once
	index     []indexEntry
	indexErr  error
	exclOnce  sync.Once
	exclPath  string // core.excludesFile or its default ("" for none)
	exclErr   error  // set before exclOnce runs: a core.excludesFile with no value
	excl      *excluder

	sources []string // Sources

	gitMu sync.Mutex // go-git's object storage is not safe for concurrent use
	st    *filesystem.Storage

	graph sharedGraph // the commit-graph, parsed once for every reader (commitgraph.go)
}

// Top returns the realpath of the work tree's top level.
func (r *Repo) Top() string { return r.top }

// GitDir returns the per-worktree repository directory (.git, or
// .git/worktrees/<name> for a linked worktree, .git/modules/<name> for a
// submodule).
func (r *Repo) GitDir() string { return r.gitDir }

// CommonDir returns the directory shared by all worktrees (objects, refs,
// config, info/exclude). It equals GitDir outside linked worktrees.
func (r *Repo) CommonDir() string { return r.commonDir }

// IndexFile returns the index file that was read: $GIT_INDEX_FILE when set,
// otherwise GitDir()/index.
func (r *Repo) IndexFile() string { return r.indexFile }

// IgnoreCase reports core.ignoreCase, which makes exclude patterns and the
// index lookup of Untracked case-insensitive (ASCII), as in git.
func (r *Repo) IgnoreCase() bool { return r.ignoreCase }

// Sources lists every file outside the work tree's own .gitignore files
// whose content Open read or looked for (a missing one counts: creating it
// would change what Open reads): the .git file of a linked worktree, HEAD,
// commondir, every config source and include, the exclude files and the
// index (after OpenLazy, also those not read yet). A long-lived caller that keeps something computed from this Repo
// can stamp them to learn when it must open the repository again; objects
// and refs read later through go-git are not included.
func (r *Repo) Sources() []string { return slices.Clone(r.sources) }

// Open opens the repository whose work-tree top level is top (as returned by
// Discover), reading its configuration, index and exclude files: an
// unreadable index or exclude file fails Open (see OpenLazy). It fails with an error wrapping ErrUnsupported on repositories
// it cannot read correctly: an unknown repositoryformatversion, SHA-256
// objects, reftable refs, any other unknown extension, a split index or a
// sparse index. index.skipHash indexes and extensions.worktreeConfig (with
// or without sparse checkout) are supported.
//
// GIT_INDEX_FILE, when set, names the index to read; a relative value is
// taken relative to top, because git changes to the top of the work tree
// before using it (this is also how git passes it to hooks).
func Open(top string) (*Repo, error) {
	return open(top, true)
}

// OpenLazy is Open for a caller that may not need the index or the
// exclude files: they are read on their first use (IndexPaths,
// StagedFiles, Untracked, Ignored, ExcludeMatch, Sources), which reports
// the error Open would have, with the same message. Resolving references
// and reading objects read neither: a warm git echoes stale --rev spent
// most of its own work reading a 4,000-entry index it never used (issue
// 18, "warm under 50 ms"). Its configuration is read, and the
// repository's format checked, at OpenLazy as at Open.
func OpenLazy(top string) (*Repo, error) {
	return open(top, false)
}

func open(top string, eager bool) (*Repo, error) {
	real, err := filepath.EvalSymlinks(top)
	if err != nil {
		return nil, fmt.Errorf("open repository: %w", err)
	}
	gitDir, found, err := gitDirAt(real)
	if err != nil {
		return nil, fmt.Errorf("open repository: %w", err)
	}
	if !found {
		return nil, fmt.Errorf("open repository: %s is not the top of a git work tree", real)
	}
	r := &Repo{top: real, gitDir: gitDir, commonDir: gitDir}
	if gitfile := filepath.Join(real, ".git"); gitfile != gitDir {
		r.sources = append(r.sources, gitfile) // a gitfile ("gitdir: ...")
	}
	r.sources = append(r.sources, filepath.Join(gitDir, "HEAD"), filepath.Join(gitDir, "commondir"))
	if data, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		c := strings.TrimRight(string(data), "\r\n")
		if !filepath.IsAbs(c) {
			c = filepath.Join(gitDir, c)
		}
		r.commonDir = filepath.Clean(c)
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("open repository: read commondir: %w", err)
	}

	if err := r.loadConfig(); err != nil {
		return nil, fmt.Errorf("open repository %s: %w", real, err)
	}

	r.indexFile = filepath.Join(gitDir, "index")
	if env := os.Getenv("GIT_INDEX_FILE"); env != "" {
		if filepath.IsAbs(env) {
			r.indexFile = env
		} else {
			r.indexFile = filepath.Join(real, env)
		}
	}
	r.sources = append(r.sources, r.indexFile)
	r.excludeSources()
	if eager {
		if _, err := r.indexEntries(); err != nil {
			return nil, err
		}
		if _, err := r.excluder(); err != nil {
			return nil, err
		}
	}

	r.st = openObjects(gitDir, r.commonDir)
	// As go-git's Open did: a HEAD that does not exist is no repository.
	if _, err := r.st.Reference(plumbing.HEAD); errors.Is(err, plumbing.ErrReferenceNotFound) {
		return nil, fmt.Errorf("open repository %s: open object store: repository does not exist", real)
	}
	return r, nil
}

// loadConfig reads the repository format from the common config, checks it,
// then assembles every config source in git's precedence order: system,
// global (XDG then ~/.gitconfig, or GIT_CONFIG_GLOBAL), local, worktree
// (with extensions.worktreeConfig), then GIT_CONFIG_PARAMETERS and
// GIT_CONFIG_COUNT.
func (r *Repo) loadConfig() error {
	home := os.Getenv("HOME")
	local := &configParser{gitDir: r.gitDir, branch: currentBranch(r.gitDir), home: home, read: &r.sources}
	if err := local.parseFile(filepath.Join(r.commonDir, "config"), 0); err != nil {
		return err
	}
	worktreeConfig, err := checkFormat(local.out)
	if err != nil {
		return err
	}
	all := &configParser{gitDir: r.gitDir, branch: local.branch, home: home, read: &r.sources}
	if !envBool("GIT_CONFIG_NOSYSTEM") {
		// Set but empty means "no system file", as in git.
		sys, set := os.LookupEnv("GIT_CONFIG_SYSTEM")
		if !set {
			sys = "/etc/gitconfig"
		}
		if sys != "" {
			if err := all.parseFile(sys, 0); err != nil {
				return err
			}
		}
	}
	if g, ok := os.LookupEnv("GIT_CONFIG_GLOBAL"); ok {
		if g != "" {
			if err := all.parseFile(g, 0); err != nil {
				return err
			}
		}
	} else {
		if x := xdgConfigPath("config"); x != "" {
			if err := all.parseFile(x, 0); err != nil {
				return err
			}
		}
		if home != "" {
			if err := all.parseFile(filepath.Join(home, ".gitconfig"), 0); err != nil {
				return err
			}
		}
	}
	all.out = append(all.out, local.out...)
	if worktreeConfig {
		if err := all.parseFile(filepath.Join(r.gitDir, "config.worktree"), 0); err != nil {
			return err
		}
	}
	cmdline, err := parseCommandLineConfig(os.Getenv)
	if err != nil {
		return err
	}
	r.config = append(all.out, cmdline...)
	if v, ok := r.lookup("core", "", "ignorecase"); ok {
		b, valid := parseBool(v)
		if !valid {
			return fmt.Errorf("bad boolean config value %q for core.ignoreCase", *v)
		}
		r.ignoreCase = b
	}
	return nil
}

// checkFormat validates core.repositoryformatversion and extensions.* the way
// setup.c's check_repository_format_gently does, and reports whether
// extensions.worktreeConfig is on. In version 0, unknown extensions are
// ignored and v1-only ones are refused, as git does.
func checkFormat(local []configEntry) (worktreeConfig bool, err error) {
	version := 0
	exts := map[string]*string{}
	for _, e := range local {
		switch {
		case e.section == "core" && e.subsection == "" && e.key == "repositoryformatversion":
			if e.value == nil {
				return false, fmt.Errorf("%w: core.repositoryformatversion has no value", ErrUnsupported)
			}
			v, err := strconv.Atoi(strings.TrimSpace(*e.value))
			if err != nil {
				return false, fmt.Errorf("%w: core.repositoryformatversion %q", ErrUnsupported, *e.value)
			}
			version = v
		case e.section == "extensions" && e.subsection == "":
			exts[e.key] = e.value
		}
	}
	if version != 0 && version != 1 {
		return false, fmt.Errorf("%w: core.repositoryformatversion %d", ErrUnsupported, version)
	}
	for name, v := range exts {
		val := ""
		if v != nil {
			val = strings.ToLower(*v)
		}
		switch name {
		case "noop", "preciousobjects", "partialclone":
			// They do not change how the index, refs or objects are read.
		case "worktreeconfig":
			b, ok := parseBool(v)
			if !ok {
				return false, fmt.Errorf("%w: extensions.worktreeConfig %q", ErrUnsupported, val)
			}
			worktreeConfig = b
		case "objectformat":
			if version == 0 {
				return false, fmt.Errorf("%w: repository format version 0 with the v1-only extension objectFormat", ErrUnsupported)
			}
			if val != "sha1" {
				return false, fmt.Errorf("%w: object format %q (only sha1 is supported)", ErrUnsupported, val)
			}
		case "refstorage", "noop-v1":
			if version == 0 {
				// git refuses v1-only extensions in a version 0 repository.
				return false, fmt.Errorf("%w: repository format version 0 with the v1-only extension %s", ErrUnsupported, name)
			}
			if name == "noop-v1" {
				continue
			}
			if val != "files" {
				return false, fmt.Errorf("%w: ref storage %q (only files is supported)", ErrUnsupported, val)
			}
		default:
			if version == 0 {
				continue
			}
			return false, fmt.Errorf("%w: extensions.%s", ErrUnsupported, name)
		}
	}
	return worktreeConfig, nil
}

// excludeSources finds the exclude files, info/exclude and
// core.excludesFile (default $XDG_CONFIG_HOME/git/ignore or
// ~/.config/git/ignore), and lists them in Sources; excluder reads them.
func (r *Repo) excludeSources() {
	if v, ok := r.lookup("core", "", "excludesfile"); ok {
		if v == nil {
			r.exclErr = fmt.Errorf("open repository %s: core.excludesFile has no value", r.top)
			return
		}
		r.exclPath = expandHome(*v, os.Getenv("HOME"))
		if r.exclPath != "" && !filepath.IsAbs(r.exclPath) {
			// git resolves it after changing to the top of the work tree.
			r.exclPath = filepath.Join(r.top, r.exclPath)
		}
	} else {
		r.exclPath = xdgConfigPath("ignore")
	}
	if r.exclPath != "" {
		r.sources = append(r.sources, r.exclPath)
	}
	r.sources = append(r.sources, filepath.Join(r.commonDir, "info", "exclude"))
}

// indexEntries returns the index, read on first use.
func (r *Repo) indexEntries() ([]indexEntry, error) {
	r.indexOnce.Do(func() {
		if r.index, r.indexErr = readIndex(r.indexFile); r.indexErr != nil {
			r.indexErr = fmt.Errorf("open repository %s: %w", r.top, r.indexErr)
		}
	})
	return r.index, r.indexErr
}

// excluder returns the rules of the exclude files, read on first use.
func (r *Repo) excluder() (*excluder, error) {
	r.exclOnce.Do(func() {
		if r.exclErr != nil {
			return
		}
		var global []pattern
		if r.exclPath != "" {
			var err error
			if global, err = readExcludeFile(r.exclPath); err != nil {
				r.exclErr = fmt.Errorf("open repository %s: %w", r.top, err)
				return
			}
		}
		info, err := readExcludeFile(filepath.Join(r.commonDir, "info", "exclude"))
		if err != nil {
			r.exclErr = fmt.Errorf("open repository %s: %w", r.top, err)
			return
		}
		r.excl = newExcluder(r.top, r.ignoreCase, global, info)
	})
	return r.excl, r.exclErr
}

// lookup returns the last value set for the key (git's "last one wins").
func (r *Repo) lookup(section, subsection, key string) (*string, bool) {
	section, key = strings.ToLower(section), strings.ToLower(key)
	for i := len(r.config) - 1; i >= 0; i-- {
		e := r.config[i]
		if e.section == section && e.subsection == subsection && e.key == key {
			return e.value, true
		}
	}
	return nil, false
}

// ConfigValue returns the effective value of section.subsection.key over all
// config sources in git's precedence (see Open). Section and key are
// case-insensitive, the subsection is not. A key written without "=" yields
// "" with ok=true; use ConfigBool for booleans.
func (r *Repo) ConfigValue(section, subsection, key string) (value string, ok bool) {
	v, ok := r.lookup(section, subsection, key)
	if !ok || v == nil {
		return "", ok
	}
	return *v, true
}

// ConfigBool returns a boolean config value with git's spellings (true/yes/
// on/1, false/no/off/0/"", a bare key is true). ok is false when unset.
func (r *Repo) ConfigBool(section, subsection, key string) (value, ok bool, err error) {
	v, ok := r.lookup(section, subsection, key)
	if !ok {
		return false, false, nil
	}
	b, valid := parseBool(v)
	if !valid {
		return false, true, fmt.Errorf("bad boolean config value %q for %s.%s", *v, section, key)
	}
	return b, true, nil
}

// xdgConfigPath is git's xdg_config_home: $XDG_CONFIG_HOME/git/<name> when
// XDG_CONFIG_HOME is non-empty, else $HOME/.config/git/<name>.
func xdgConfigPath(name string) string {
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" {
		return filepath.Join(x, "git", name)
	}
	if h := os.Getenv("HOME"); h != "" {
		return filepath.Join(h, ".config", "git", name)
	}
	return ""
}

func envBool(name string) bool {
	v, ok := os.LookupEnv(name)
	if !ok {
		return false
	}
	b, valid := parseBool(&v)
	return valid && b
}

// currentBranch returns the short branch name HEAD points to, or "".
func currentBranch(gitDir string) string {
	data, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	if err != nil {
		return ""
	}
	ref, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "ref:")
	if !ok {
		return ""
	}
	return strings.TrimPrefix(strings.TrimSpace(ref), "refs/heads/")
}

// openObjects opens the object and reference store through go-git's
// storage, routing per-worktree files (HEAD, index) to gitDir and shared
// ones to commonDir. go-git's Repository (its root package) is not used:
// it links every transport and costs each process their init (issue 19
// part 0); revisions are resolved by revparse.go. go-git never reads the
// config file here: we have parsed and validated it ourselves
// (checkFormat), and objects and references need none.
func openObjects(gitDir, commonDir string) *filesystem.Storage {
	var fs = osfs.New(gitDir)
	if commonDir != gitDir {
		fs = dotgit.NewRepositoryFilesystem(osfs.New(gitDir), osfs.New(commonDir))
	}
	return filesystem.NewStorageWithOptions(fs, cache.NewObjectLRUDefault(), filesystem.Options{
		// Alternates are absolute paths: let them resolve on the OS.
		AlternatesFS: osfs.New("/"),
	})
}

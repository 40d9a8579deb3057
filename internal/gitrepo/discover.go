package gitrepo

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrInvalidGitFile reports a ".git" file that does not name a repository.
// git refuses to run in such a directory; callers that only need to know
// whether a directory is inside a usable work tree may treat it as "no".
var ErrInvalidGitFile = errors.New("invalid .git file")

// Discover finds the work tree containing dir, which must be an absolute,
// symlink-resolved directory. It walks up from dir as git's
// setup_git_directory does: at each level a ".git" directory that is a valid
// repository, or a ".git" file ("gitdir: <path>", used by linked worktrees
// and submodules) naming one, makes that level the top. A level that is
// itself a repository directory (a bare repository, or a directory inside
// .git) ends the search with ok=false, as does reaching the root or a
// GIT_CEILING_DIRECTORIES entry.
//
// GIT_DIR and GIT_WORK_TREE are deliberately not consulted: workspace
// resolution depends only on the directory, and git sets GIT_DIR for hooks
// whose working directory is the top anyway. top is the realpath of the
// work tree's top level.
func Discover(dir string) (top string, ok bool, err error) {
	if !filepath.IsAbs(dir) {
		return "", false, fmt.Errorf("discover: %q is not an absolute path", dir)
	}
	d := filepath.Clean(dir)
	ceiling := ceilingFor(d, os.Getenv("GIT_CEILING_DIRECTORIES"))
	for {
		_, found, err := gitDirAt(d)
		if err != nil {
			return "", false, fmt.Errorf("discover from %s: %w", dir, err)
		}
		if found {
			real, err := filepath.EvalSymlinks(d)
			if err != nil {
				return "", false, fmt.Errorf("resolve work tree %s: %w", d, err)
			}
			return real, true, nil
		}
		if isGitDirectory(d) {
			return "", false, nil
		}
		parent := filepath.Dir(d)
		if parent == d || d == ceiling {
			return "", false, nil
		}
		d = parent
	}
}

// ceilingFor returns the deepest GIT_CEILING_DIRECTORIES entry that is a
// proper ancestor of dir ("" when none): git does not look above it.
func ceilingFor(dir, env string) string {
	best := ""
	for _, c := range filepath.SplitList(env) {
		if c == "" || !filepath.IsAbs(c) {
			continue
		}
		c = filepath.Clean(c)
		if c != dir && (c == "/" || strings.HasPrefix(dir, c+string(filepath.Separator))) && len(c) > len(best) {
			best = c
		}
	}
	if best == "" {
		return ""
	}
	// The walk stops at the child of the ceiling: return that child.
	rest := strings.TrimPrefix(strings.TrimPrefix(dir, best), string(filepath.Separator))
	first, _, _ := strings.Cut(rest, string(filepath.Separator))
	return filepath.Join(best, first)
}

// gitDirAt reports the repository directory that d/.git designates, if any.
// An invalid ".git" file is an error (git dies on it too); an invalid ".git"
// directory is skipped, as git does.
func gitDirAt(d string) (string, bool, error) {
	dotgit := filepath.Join(d, ".git")
	fi, err := os.Stat(dotgit)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
			return "", false, nil
		}
		return "", false, fmt.Errorf("stat %s: %w", dotgit, err)
	}
	if fi.IsDir() {
		if isGitDirectory(dotgit) {
			return dotgit, true, nil
		}
		return "", false, nil
	}
	if !fi.Mode().IsRegular() {
		return "", false, nil
	}
	gd, err := readGitFile(dotgit)
	if err != nil {
		return "", false, err
	}
	return gd, true, nil
}

// readGitFile parses a "gitdir: <path>" file; a relative path is relative to
// the file's directory. The named directory must be a repository.
func readGitFile(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	line, _, _ := bytes.Cut(data, []byte("\n"))
	line = bytes.TrimRight(line, "\r")
	rest, ok := bytes.CutPrefix(line, []byte("gitdir: "))
	if !ok || len(rest) == 0 {
		return "", fmt.Errorf("%w: %s", ErrInvalidGitFile, path)
	}
	gd := string(rest)
	if !filepath.IsAbs(gd) {
		gd = filepath.Join(filepath.Dir(path), gd)
	}
	if !isGitDirectory(gd) {
		return "", fmt.Errorf("%w: %s points to %s, which is not a repository", ErrInvalidGitFile, path, gd)
	}
	return filepath.Clean(gd), nil
}

// isGitDirectory ports setup.c's is_git_directory: a valid HEAD, and objects/
// and refs/ in the common directory (commondir file for linked worktrees).
func isGitDirectory(d string) bool {
	if !validHead(filepath.Join(d, "HEAD")) {
		return false
	}
	common := d
	if data, err := os.ReadFile(filepath.Join(d, "commondir")); err == nil {
		c := strings.TrimRight(string(data), "\r\n")
		if !filepath.IsAbs(c) {
			c = filepath.Join(d, c)
		}
		common = c
	}
	for _, sub := range []string{"objects", "refs"} {
		fi, err := os.Stat(filepath.Join(common, sub))
		if err != nil || !fi.IsDir() {
			return false
		}
	}
	return true
}

// validHead ports setup.c's validate_headref: a symbolic link into refs/, a
// "ref: refs/..." file or a detached object id.
func validHead(path string) bool {
	fi, err := os.Lstat(path)
	if err != nil {
		return false
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		target, err := os.Readlink(path)
		return err == nil && strings.HasPrefix(target, "refs/")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	if rest, ok := bytes.CutPrefix(data, []byte("ref:")); ok {
		rest = bytes.TrimLeft(rest, " \t\n\r")
		return bytes.HasPrefix(rest, []byte("refs/"))
	}
	if len(data) < 40 {
		return false
	}
	_, err = hex.DecodeString(string(data[:40]))
	return err == nil
}

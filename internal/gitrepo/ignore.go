package gitrepo

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

// Match describes the exclude pattern that decided a path, in the terms of
// `git check-ignore -v`: the file it came from, its line and the pattern as
// written (with "!" and a trailing "/" restored).
type Match struct {
	Source   string // ".gitignore" files relative to the top; other files as given
	Line     int
	Pattern  string
	Negative bool // a "!" pattern: the path is explicitly not ignored
}

// excluder evaluates git's exclude rules for single paths, reading only the
// .gitignore files of the directories along each path and caching them.
type excluder struct {
	top    string
	m      matcher
	global []pattern // core.excludesFile (lowest precedence)
	info   []pattern // $GIT_COMMON_DIR/info/exclude

	mu         sync.Mutex
	gitignores map[string][]pattern // directory ("" = top) -> its .gitignore
	dirMatch   map[string]*pattern  // directory -> positive pattern excluding it, or nil
}

func newExcluder(top string, ignoreCase bool, global, info []pattern) *excluder {
	return &excluder{
		top:        top,
		m:          matcher{ignoreCase: ignoreCase},
		global:     global,
		info:       info,
		gitignores: map[string][]pattern{},
		dirMatch:   map[string]*pattern{},
	}
}

// readExcludeFile reads an exclude file outside the work tree (info/exclude,
// core.excludesFile). A missing or unreadable-as-file path contributes no
// patterns, as in git; other errors are reported.
func readExcludeFile(path string) ([]pattern, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.EISDIR) || errors.Is(err, syscall.ENOTDIR) {
			return nil, nil
		}
		return nil, fmt.Errorf("read exclude file: %w", err)
	}
	return parsePatterns(data, "", path), nil
}

// gitignore returns the patterns of dir/.gitignore, loading it once. Like
// git (which opens in-tree exclude files with O_NOFOLLOW), a .gitignore that
// is a symbolic link or not a regular file is disregarded.
func (e *excluder) gitignore(dir string) ([]pattern, error) {
	if ps, ok := e.gitignores[dir]; ok {
		return ps, nil
	}
	rel := ".gitignore"
	if dir != "" {
		rel = dir + "/.gitignore"
	}
	full := filepath.Join(e.top, filepath.FromSlash(rel))
	var ps []pattern
	fi, err := os.Lstat(full)
	switch {
	case err == nil && fi.Mode().IsRegular():
		data, err := os.ReadFile(full)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", rel, err)
		}
		ps = parsePatterns(data, dir, rel)
	case err == nil, errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		// No usable .gitignore here.
	default:
		return nil, fmt.Errorf("stat %s: %w", rel, err)
	}
	e.gitignores[dir] = ps
	return ps, nil
}

// fromLists ports last_matching_pattern_from_lists: per-directory files from
// the deepest up, then info/exclude, then core.excludesFile.
func (e *excluder) fromLists(lists [][]pattern, path string, isDir bool) *pattern {
	for j := len(lists) - 1; j >= 0; j-- {
		if p := e.m.lastMatch(lists[j], path, isDir); p != nil {
			return p
		}
	}
	if p := e.m.lastMatch(e.info, path, isDir); p != nil {
		return p
	}
	return e.m.lastMatch(e.global, path, isDir)
}

// match returns the deciding pattern for path, or nil. It follows dir.c's
// prep_exclude: each leading directory is tested as a directory against the
// patterns known so far; once one is excluded by a positive pattern,
// everything below it is excluded by that pattern and no deeper .gitignore
// is read. That is why "!" cannot re-include a file inside an excluded
// directory.
func (e *excluder) match(path string, isDir bool) (*pattern, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	top, err := e.gitignore("")
	if err != nil {
		return nil, err
	}
	lists := [][]pattern{top}
	for i := 0; i < len(path); i++ {
		if path[i] != '/' {
			continue
		}
		dir := path[:i]
		p, known := e.dirMatch[dir]
		if !known {
			p = e.fromLists(lists, dir, true)
			if p != nil && p.flags&flagNegative != 0 {
				p = nil
			}
			e.dirMatch[dir] = p
		}
		if p != nil {
			return p, nil
		}
		ps, err := e.gitignore(dir)
		if err != nil {
			return nil, err
		}
		lists = append(lists, ps)
	}
	return e.fromLists(lists, path, isDir), nil
}

// checkPath validates a slash-separated path relative to the top.
func checkPath(path string) error {
	if path == "" || strings.HasPrefix(path, "/") || strings.HasSuffix(path, "/") {
		return fmt.Errorf("invalid repository path %q", path)
	}
	for _, c := range strings.Split(path, "/") {
		if c == "" || c == "." || c == ".." {
			return fmt.Errorf("invalid repository path %q", path)
		}
	}
	return nil
}

// Ignored reports whether git's exclude rules ignore path (slash-separated,
// relative to the top; isDir says whether it names a directory), as
// `git check-ignore --no-index` would: regardless of the index, with every
// .gitignore from the top down to the path's directory,
// $GIT_COMMON_DIR/info/exclude and core.excludesFile. A path below an
// excluded directory is ignored even when a later "!" pattern names it.
func (r *Repo) Ignored(path string, isDir bool) (bool, error) {
	m, ok, err := r.ExcludeMatch(path, isDir)
	if err != nil {
		return false, err
	}
	return ok && !m.Negative, nil
}

// ExcludeMatch returns the pattern that decides whether path is ignored, like
// `git check-ignore -v --no-index`; ok is false when no pattern matches.
func (r *Repo) ExcludeMatch(path string, isDir bool) (m Match, ok bool, err error) {
	if err := checkPath(path); err != nil {
		return Match{}, false, err
	}
	excl, err := r.excluder()
	if err != nil {
		return Match{}, false, err
	}
	p, err := excl.match(path, isDir)
	if err != nil {
		return Match{}, false, fmt.Errorf("exclude rules for %s: %w", path, err)
	}
	if p == nil {
		return Match{}, false, nil
	}
	text := p.text
	if p.flags&flagNegative != 0 {
		text = "!" + text
	}
	if p.flags&flagMustBeDir != 0 {
		text += "/"
	}
	return Match{Source: p.source, Line: p.line, Pattern: text, Negative: p.flags&flagNegative != 0}, true, nil
}

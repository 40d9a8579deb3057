package viewer

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"

	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/gitvault/memory"
	"github.com/git-echoes/git-echoes/internal/fsx"
)

// pageSet is every page of the work tree with the pages it links to, as
// the catalog has them for one request: the graph's input.
type pageSet struct {
	pages []gitvault.BrowsePage // without bodies
	out   [][]string            // per page: distinct existing pages it links to, in order
}

// loadPages is the catalog's pages, revalidated for this request (no body
// is read unless the page changed).
func (s *Server) loadPages() (*pageSet, error) {
	var ps *pageSet
	err := s.pages.with(func(c *catalog) error {
		ps = &pageSet{pages: make([]gitvault.BrowsePage, len(c.entries)), out: make([][]string, len(c.entries))}
		for i := range c.entries {
			ps.pages[i], ps.out[i] = c.entries[i].P, c.entries[i].out
		}
		return nil
	})
	return ps, err
}

// pageResolver resolves a [[page]] reference to a slug.
type pageResolver interface {
	page(ref string) (string, bool)
}

// resolver is the linkResolver of one render.
type resolver struct {
	ps pageResolver
	s  *Server
}

func (r resolver) page(ref string) (string, bool) { return r.ps.page(ref) }

func (r resolver) asset(rel string) (bool, bool) {
	if _, err := r.s.assetPath(rel); err != nil {
		return false, false
	}
	return imageTypes[strings.ToLower(filepath.Ext(rel))] != "", true
}

// imageTypes are the asset types shown inline, with their media types.
var imageTypes = map[string]string{
	".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
	".webp": "image/webp", ".svg": "image/svg+xml", ".avif": "image/avif", ".bmp": "image/bmp",
}

// maxAssetBytes bounds one served asset.
const maxAssetBytes = 64 << 20

var errRefused = errors.New("refused")

// cleanAssetRel checks an asset path from a URL or a page: slash-separated
// components, none empty, ".", "..", hidden, or holding a backslash, a colon
// or a control character.
func cleanAssetRel(rel string) ([]string, error) {
	if rel == "" || len(rel) > 1024 {
		return nil, errRefused
	}
	parts := strings.Split(rel, "/")
	for _, p := range parts {
		if p == "" || p == "." || p == ".." || strings.HasPrefix(p, ".") || strings.ContainsAny(p, "\\:") {
			return nil, errRefused
		}
		for _, c := range p {
			if c < 0x20 || c == 0x7f {
				return nil, errRefused
			}
		}
	}
	return parts, nil
}

// assetPath resolves assets/<rel> to a regular file, refusing traversal and
// any symbolic link on the way: the assets directory itself and every
// component below it are checked with lstat (not followed).
func (s *Server) assetPath(rel string) (string, error) {
	parts, err := cleanAssetRel(rel)
	if err != nil {
		return "", err
	}
	ws := s.cfg.Engine.WS
	p := ws.Assets
	if st, err := fsx.LstatIdent(p); err != nil {
		return "", err
	} else if !st.Mode.IsDir() {
		return "", errRefused // a symlinked (or non-directory) assets/
	}
	for i, part := range parts {
		p = filepath.Join(p, part)
		st, err := fsx.LstatIdent(p)
		if err != nil {
			return "", err
		}
		last := i == len(parts)-1
		if st.Mode&fs.ModeSymlink != 0 || (last && !st.IsRegular()) || (!last && !st.Mode.IsDir()) {
			return "", errRefused
		}
	}
	return p, nil
}

// readAsset reads a checked asset without following a final symlink (the
// open itself refuses one, should it appear after the check).
func (s *Server) readAsset(rel string) ([]byte, error) {
	p, err := s.assetPath(rel)
	if err != nil {
		return nil, err
	}
	f, err := fsx.OpenNoFollow(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.IsRegular() {
		return nil, errRefused
	}
	if st.Size > maxAssetBytes {
		return nil, fmt.Errorf("asset larger than %d bytes", maxAssetBytes)
	}
	return io.ReadAll(io.LimitReader(&f, maxAssetBytes+1))
}

// memorySet is the memory vault as one scan sees it.
type memorySet struct {
	entries []memory.Entry
	byID    map[string][]int
	back    map[string][]int // id → indexes of active memories linking to it
	diag    memory.Diagnostics
	err     error // the scan failed (root safety, I/O): shown, not fatal
}

func (s *Server) loadMemories() *memorySet {
	ms := &memorySet{byID: map[string][]int{}, back: map[string][]int{}}
	res, err := memory.List(s.cfg.Roots, memory.ListOptions{Scopes: memoryScopes(s.cfg.UserScope)})
	if err != nil {
		ms.err = err
		return ms
	}
	ms.entries, ms.diag = res.Entries, res.Diagnostics
	for i, e := range ms.entries {
		ms.byID[e.Memory.ID] = append(ms.byID[e.Memory.ID], i)
	}
	for i, e := range ms.entries {
		if e.Memory.Status != "active" {
			continue
		}
		seen := map[string]bool{}
		for _, l := range e.Memory.Links {
			if !seen[l] && l != e.Memory.ID {
				seen[l] = true
				ms.back[l] = append(ms.back[l], i)
			}
		}
	}
	return ms
}

// sortedKeys returns the keys of m, sorted.
func sortedKeys(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

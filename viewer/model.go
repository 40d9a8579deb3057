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
	"github.com/git-echoes/git-echoes/internal/pytext"
)

// pageSet is every page of the work tree with its resolved wikilinks, read
// for one request (the viewer keeps no cache: what it shows is what is on
// disk now).
type pageSet struct {
	pages  []gitvault.BrowsePage
	bySlug map[string]int
	byFold map[string]int
	out    [][]string       // per page: distinct existing pages it links to, in order
	broken [][]string       // per page: distinct missing link targets
	back   map[string][]int // slug → indexes of the pages linking to it
}

func (s *Server) loadPages() (*pageSet, error) {
	pages, err := s.cfg.Engine.BrowsePages()
	if err != nil {
		return nil, err
	}
	return newPageSet(pages, func(*gitvault.BrowsePage) bool { return true }), nil
}

// loadPageIndex is loadPages with the links of deprecated pages only (their
// replacements): what the pages index shows. Backlinks are not complete.
func (s *Server) loadPageIndex() (*pageSet, error) {
	pages, err := s.cfg.Engine.BrowsePages()
	if err != nil {
		return nil, err
	}
	return newPageSet(pages, (*gitvault.BrowsePage).Deprecated), nil
}

// loadPageNames is loadPages without reading the pages: enough to resolve
// links (no bodies, no backlinks).
func (s *Server) loadPageNames() (*pageSet, error) {
	// Not PageNames: that one gates on the marker (the MCP resources), and
	// the viewer shows a vault whose marker is missing as /pages does.
	names, err := s.cfg.Engine.BrowsePageNames()
	if err != nil {
		return nil, err
	}
	pages := make([]gitvault.BrowsePage, len(names))
	for i, n := range names {
		pages[i] = gitvault.BrowsePage{Name: n, Slug: gitvault.PageSlug(n)}
	}
	return newPageSet(pages, func(*gitvault.BrowsePage) bool { return false }), nil
}

// newPageSet indexes pages and resolves the links of the pages linksOf
// selects.
func newPageSet(pages []gitvault.BrowsePage, linksOf func(*gitvault.BrowsePage) bool) *pageSet {
	ps := &pageSet{pages: pages, bySlug: make(map[string]int, len(pages)), byFold: make(map[string]int, len(pages)),
		out: make([][]string, len(pages)), broken: make([][]string, len(pages)), back: map[string][]int{}}
	for i, p := range pages {
		ps.bySlug[p.Slug] = i
		if _, dup := ps.byFold[pytext.Casefold(p.Slug)]; !dup {
			ps.byFold[pytext.Casefold(p.Slug)] = i
		}
	}
	for i := range pages {
		p := &pages[i]
		if !linksOf(p) {
			continue
		}
		seen := map[string]bool{}
		for _, l := range ExtractWikilinks(p.Body) {
			if l.Embed || seen[l.Target] {
				continue
			}
			seen[l.Target] = true
			if slug, ok := ps.page(l.Target); ok {
				if slug != p.Slug {
					ps.out[i] = append(ps.out[i], slug)
					ps.back[slug] = append(ps.back[slug], i)
				}
			} else {
				ps.broken[i] = append(ps.broken[i], l.Target)
			}
		}
	}
	return ps
}

// page resolves a page reference: the NFC slug, with or without ".md",
// exactly, else case-insensitively (names are unique up to case,
// protocol §7.1).
func (ps *pageSet) page(ref string) (string, bool) {
	ref = pytext.NFC(strings.TrimSpace(ref))
	if strings.HasSuffix(strings.ToLower(ref), ".md") {
		ref = ref[:len(ref)-3]
	}
	if i, ok := ps.bySlug[ref]; ok {
		return ps.pages[i].Slug, true
	}
	if i, ok := ps.byFold[pytext.Casefold(ref)]; ok {
		return ps.pages[i].Slug, true
	}
	return "", false
}

// replacement is the page a deprecated page points to: the first existing
// page it links to (protocol §7.5: a deprecated page links to its
// replacement when one exists).
func (ps *pageSet) replacement(i int) string {
	if !ps.pages[i].Deprecated() || len(ps.out[i]) == 0 {
		return ""
	}
	return ps.out[i][0]
}

// resolver is the linkResolver of one render.
type resolver struct {
	ps *pageSet
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

package viewer

import (
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/internal/fsx"
	"github.com/git-echoes/git-echoes/internal/pytext"
	"github.com/git-echoes/git-echoes/internal/workpool"
)

// The catalog is the viewer's index of the pages directory: every page's
// metadata (type, status, summary, stack, error) and its resolved
// wikilinks, kept between requests and keyed by file identity, so that a
// view of one screen of a large vault (issue 19: 10,000 pages) costs a
// stat per page instead of reading and parsing every page.
//
// It never decides what is shown: it only stands in for a read and parse
// that would give the same answer, as the engine's page cache does
// (gitvault/pagecache.go). Every request revalidates it: the directory's
// own stamp (fsx.Stamp: type, size, mtime, ctime, device, inode) decides
// whether the listing is taken again (a page created, deleted or renamed
// changes it), and each page's stamp whether the page is read again.
// Racy entries are treated as Git treats them
// (Documentation/technical/racy-git.txt): a stamp not older, by a whole
// racyGranule, than the moment it was taken is read again next time. So
// what a view shows is what is on disk when the request began. Nothing is
// written: the catalog lives in the process only.

// racyGranule is the timestamp resolution the racy test allows for (FAT
// keeps modification times in two-second steps), as the page cache's.
const racyGranule = int64(2 * time.Second)

type catalog struct {
	mu  sync.Mutex
	eng *gitvault.Engine
	// fresh, when set, is the change notification (Server.fresh): while
	// it proves that nothing under the vault changed since the last
	// complete revalidation (proven, at provenGen), a request skips the
	// stat pass. Racy entries need no second look under that proof: a
	// change after the barrier that preceded their read moved the
	// generation.
	fresh     func(trees ...string) (uint64, bool)
	proven    bool
	provenGen uint64
	skipped   int // requests answered under the proof (tests)

	dir      fsx.Stamp // the pages directory when it was listed
	listedAt int64     // when (Unix ns); 0: never listed
	gen      int       // bumped whenever the listing changes
	names    []string  // the listing, in page order (gitvault's)
	slugs    []string  // their slugs ([[link]] targets)
	bySlug   map[string]int
	byFold   map[string]int
	entries  []catEntry // one per name
}

// catEntry is one page of the catalog.
type catEntry struct {
	stamp fsx.Stamp
	since int64 // when stamp was taken
	valid bool  // the stamp describes P and links
	// P is the page without its body and frontmatter (read again by the
	// one view that shows them).
	P     gitvault.BrowsePage
	links []string // distinct page-link targets in order (no embeds)
	gen   int      // the listing generation out and broken were resolved against
	out   []string // distinct existing pages linked to, in order (not itself)
	// broken are the distinct link targets that name no page.
	broken []string
}

func newCatalog(eng *gitvault.Engine) *catalog { return &catalog{eng: eng} }

// with revalidates the catalog and calls fn with it, under its lock: fn
// must copy out what it keeps.
func (c *catalog) with(fn func(*catalog) error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.revalidate(c.refresh); err != nil {
		return err
	}
	return fn(c)
}

// revalidate runs refresh unless the change notification proves the
// catalog fresh; a complete refresh made after a proof is proven in turn.
// Only a catalog whose every page was read and stamped is proven: a page
// that could not be read is tried again on every request.
func (c *catalog) revalidate(refresh func() error) error {
	var gen uint64
	ok := false
	if c.fresh != nil {
		gen, ok = c.fresh(c.eng.WS.Vault)
	}
	if ok && c.proven && gen == c.provenGen {
		c.skipped++
		return nil
	}
	c.proven = false
	if err := refresh(); err != nil {
		return err
	}
	if ok && c.listedAt != 0 && c.complete() {
		c.proven, c.provenGen = true, gen
	}
	return nil
}

// complete reports whether every entry holds its page.
func (c *catalog) complete() bool {
	for i := range c.entries {
		if !c.entries[i].valid {
			return false
		}
	}
	return true
}

// withNames is with for a view that only resolves [[links]] (the daily
// timeline): only the listing is revalidated, not each page, so fn must
// use nothing but page().
func (c *catalog) withNames(fn func(*catalog) error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.proven {
		// Proven fresh entirely, the listing included, or not at all.
		if err := c.revalidate(c.refresh); err != nil {
			return err
		}
		return fn(c)
	}
	if err := c.refreshListing(time.Now().UnixNano()); err != nil {
		return err
	}
	return fn(c)
}

// refresh brings the catalog up to date with the pages directory.
func (c *catalog) refresh() error {
	dir := c.eng.WS.Pages
	now := time.Now().UnixNano()
	if err := c.refreshListing(now); err != nil {
		return err
	}
	if len(c.names) == 0 {
		return nil
	}
	return c.refreshPages(dir, now)
}

// refreshListing lists the pages directory again unless its stamp is
// unchanged and not racy.
func (c *catalog) refreshListing(now int64) error {
	dir := c.eng.WS.Pages
	st, serr := fsx.LstatStamp(dir)
	if serr != nil || c.listedAt == 0 || st != c.dir || st.Racy(c.listedAt, racyGranule) {
		names, err := c.eng.BrowsePageNames()
		if err != nil {
			c.reset()
			return err
		}
		if !slices.Equal(names, c.names) {
			c.relist(names)
		}
		c.dir, c.listedAt = st, now
		if serr != nil {
			c.listedAt = 0 // no stamp: list again next time
		}
	}
	return nil
}

// refreshPages re-reads the pages whose stamp changed or was racy.
func (c *catalog) refreshPages(dir string, now int64) error {
	d, err := fsx.OpenDir(dir)
	if err != nil {
		c.reset()
		return gitvault.Wrapf(err, "Cannot list pages in %s: %s", dir, gitvault.OSDetail(err))
	}
	defer d.Close()
	// One stat per page (the floor of any revalidation), on every core;
	// a page is read again only when its stamp changed or was racy.
	workpool.Each(len(c.names), runtime.GOMAXPROCS(0), func() func(int) {
		var buf []byte
		return func(i int) {
			e := &c.entries[i]
			name := c.names[i]
			stamp, err := d.Stamp(name)
			if err == nil && e.valid && stamp == e.stamp && !stamp.Racy(e.since, racyGranule) {
				if e.gen != c.gen {
					c.resolve(e)
				}
				return
			}
			data, rerr := d.ReadFileBuf(name, buf)
			if rerr == nil {
				buf = data
			}
			c.store(e, gitvault.ParseBrowsePage(name, data, rerr))
			e.stamp, e.since, e.valid = stamp, now, err == nil && stamp.IsRegular() && rerr == nil
			c.resolve(e)
		}
	})
	return nil
}

// reset forgets everything (the directory could not be read).
func (c *catalog) reset() {
	c.dir, c.listedAt, c.names, c.slugs, c.bySlug, c.byFold, c.entries = fsx.Stamp{}, 0, nil, nil, nil, nil, nil
	c.gen++
}

// relist takes a new listing, keeping the entries of the names it still
// has.
func (c *catalog) relist(names []string) {
	old := make(map[string]*catEntry, len(c.names))
	for i := range c.names {
		old[c.names[i]] = &c.entries[i]
	}
	entries := make([]catEntry, len(names))
	c.slugs = make([]string, len(names))
	c.bySlug, c.byFold = make(map[string]int, len(names)), make(map[string]int, len(names))
	for i, n := range names {
		if e := old[n]; e != nil {
			entries[i] = *e
		}
		slug := gitvault.PageSlug(n)
		c.slugs[i] = slug
		c.bySlug[slug] = i
		if f := pytext.Casefold(slug); true {
			if _, dup := c.byFold[f]; !dup {
				c.byFold[f] = i
			}
		}
	}
	c.names, c.entries = names, entries
	c.gen++
}

// store keeps what the views list of p, detached from the page's text
// (the body is dropped, so the text is not kept alive by a substring).
func (c *catalog) store(e *catEntry, p gitvault.BrowsePage) {
	var links []string
	seen := map[string]bool{}
	for _, l := range ExtractWikilinks(p.Body) {
		if !l.Embed && !seen[l.Target] {
			seen[l.Target] = true
			links = append(links, strings.Clone(l.Target))
		}
	}
	stack := make([]string, len(p.Stack))
	for i, s := range p.Stack {
		stack[i] = strings.Clone(s)
	}
	e.P = gitvault.BrowsePage{Name: p.Name, Slug: p.Slug, SHA256: p.SHA256, Type: strings.Clone(p.Type),
		Status: strings.Clone(p.Status), Summary: strings.Clone(p.Summary), Stack: stack, Err: strings.Clone(p.Err)}
	e.links = links
	e.gen = -1
}

// resolve resolves the entry's links against the current listing.
func (c *catalog) resolve(e *catEntry) {
	e.out, e.broken = c.resolveLinks(e.P.Slug, e.links)
	e.gen = c.gen
}

// resolveLinks splits distinct link targets into the pages they name
// (without self) and the targets that name no page.
func (c *catalog) resolveLinks(self string, links []string) (out, broken []string) {
	for _, t := range links {
		if slug, ok := c.page(t); ok {
			if slug != self && !slices.Contains(out, slug) {
				out = append(out, slug)
			}
		} else {
			broken = append(broken, t)
		}
	}
	return out, broken
}

// page resolves a page reference: the NFC slug, with or without ".md",
// exactly, else case-insensitively (names are unique up to case,
// protocol §7.1).
func (c *catalog) page(ref string) (string, bool) {
	ref = pytext.NFC(strings.TrimSpace(ref))
	if strings.HasSuffix(strings.ToLower(ref), ".md") {
		ref = ref[:len(ref)-3]
	}
	// The slugs of the listing, not of the entries: workers resolve
	// links while other entries are being read again.
	if i, ok := c.bySlug[ref]; ok {
		return c.slugs[i], true
	}
	if i, ok := c.byFold[pytext.Casefold(ref)]; ok {
		return c.slugs[i], true
	}
	return "", false
}

// backlinks are the pages linking to slug, in page order.
func (c *catalog) backlinks(slug string) []string {
	var out []string
	for i := range c.entries {
		if slices.Contains(c.entries[i].out, slug) {
			out = append(out, c.entries[i].P.Slug)
		}
	}
	return out
}

// replacement is the page a deprecated page points to: the first existing
// page it links to (protocol §7.5: a deprecated page links to its
// replacement when one exists).
func (e *catEntry) replacement() string {
	if !e.P.Deprecated() || len(e.out) == 0 {
		return ""
	}
	return e.out[0]
}

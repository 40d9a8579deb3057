package gitvault

import (
	"sync"

	"github.com/git-echoes/git-echoes/internal/fsx"
)

// textCache keeps the text of pages in memory for a long-lived engine (the
// MCP server's echoes_search), keyed by stamp like the page cache: a page
// whose stamp matches, and is safely older than when it was recorded, is
// scanned from memory instead of being read again. Every call still lists
// the pages directory and stamps every page it scans. Only pages that read
// as valid UTF-8 are kept, up to max bytes of text in all (pages past the
// bound are read from disk on every call), so memory stays bounded on any
// vault. Enabled by Engine.KeepPageTexts; the CLI, one search per process,
// does not use it.
type textCache struct {
	mu      sync.Mutex
	max     int
	bytes   int
	entries map[string]cachedText
}

type cachedText struct {
	stamp fsx.Stamp
	since int64
	text  string
	ascii bool // isASCIIString(text)
}

// DefaultPageTextBytes bounds the page texts a long-lived engine keeps:
// a 10,000-page vault of typical pages (about 40 MB) fits.
const DefaultPageTextBytes = 64 << 20

// KeepPageTexts makes the engine keep page texts in memory between calls
// (at most maxBytes of text; 0 means DefaultPageTextBytes), for a
// long-lived process that searches the same vault repeatedly. Results are
// unchanged: every call revalidates each page by its stamp.
func (e *Engine) KeepPageTexts(maxBytes int) {
	if maxBytes <= 0 {
		maxBytes = DefaultPageTextBytes
	}
	e.cacheMu.Lock()
	defer e.cacheMu.Unlock()
	e.texts = &textCache{max: maxBytes, entries: map[string]cachedText{}}
}

func (e *Engine) textCache() *textCache {
	e.cacheMu.Lock()
	defer e.cacheMu.Unlock()
	return e.texts
}

func (c *textCache) lookup(name string, st fsx.Stamp) (cachedText, bool) {
	c.mu.Lock()
	t, ok := c.entries[name]
	c.mu.Unlock()
	if !ok || t.stamp != st || st.Racy(t.since, cacheGranule) {
		return cachedText{}, false
	}
	return t, true
}

// store keeps t (its text the caller's own copy) when it fits the bound.
func (c *textCache) store(name string, t cachedText) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.entries[name]; ok {
		c.bytes -= len(old.text)
		delete(c.entries, name)
	}
	if c.bytes+len(t.text) > c.max {
		return
	}
	c.entries[name] = t
	c.bytes += len(t.text)
}

// forget drops a page that no longer reads as text.
func (c *textCache) forget(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.entries[name]; ok {
		c.bytes -= len(old.text)
		delete(c.entries, name)
	}
}

// retain drops the pages no longer listed.
func (c *textCache) retain(names []string) {
	keep := make(map[string]bool, len(names))
	for _, n := range names {
		keep[n] = true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for n, t := range c.entries {
		if !keep[n] {
			c.bytes -= len(t.text)
			delete(c.entries, n)
		}
	}
}

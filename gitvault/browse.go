package gitvault

import (
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/git-echoes/git-echoes/internal/frontmatter"
	"github.com/git-echoes/git-echoes/internal/fsx"
	"github.com/git-echoes/git-echoes/internal/pytext"
)

// This file is the read-only browsing surface a viewer (git echoes serve)
// needs: every page with its metadata and body, and every daily entry. It
// reads with the same listing rules as the index and health (direct regular
// non-symlink children of pages/, echoes-conformance §8.2; regular *.md files
// below daily/), writes nothing and takes no lock.

// FrontmatterField is one top-level frontmatter key with its inline raw value.
type FrontmatterField struct{ Key, Raw string }

// BrowsePage is one page as a viewer shows it. A page that cannot be read or
// validated is still listed, with Err set and whatever could be parsed.
type BrowsePage struct {
	Name        string // file name in pages/
	Slug        string // NFC stem: the [[wikilink]] target
	SHA256      string // echoes-conformance §12 hash of the page's text
	Type        string
	Status      string // casefolded
	Summary     string
	Stack       []string // the stack items (inline list or indented items)
	Frontmatter []FrontmatterField
	Body        string // the text after the frontmatter block
	Err         string // read or validation error, "" when valid
}

// Deprecated reports the standardized deprecated status (protocol §7.5).
func (p *BrowsePage) Deprecated() bool { return p.Status == "deprecated" }

// BrowsePageNames lists the page files as BrowsePages does, without reading
// them, and, like it, without the marker gate that PageNames applies (the
// viewer shows a vault whose marker is missing or invalid, issue 17).
func (e *Engine) BrowsePageNames() ([]string, error) {
	names, err := DirSource{e.WS.Pages}.PageNames()
	if err != nil {
		return nil, Wrapf(err, "Cannot list pages in %s: %s", e.WS.Pages, OSDetail(err))
	}
	return names, nil
}

// BrowsePages reads every page of the work tree in listing order. It fails
// only when pages/ cannot be listed; per-page problems are in Err.
func (e *Engine) BrowsePages() ([]BrowsePage, error) {
	src := DirSource{e.WS.Pages}
	names, err := src.PageNames()
	if err != nil {
		return nil, Wrapf(err, "Cannot list pages in %s: %s", e.WS.Pages, OSDetail(err))
	}
	out := make([]BrowsePage, len(names))
	read, done := bufferedReader(src)
	defer done()
	parallelWorkers(len(names), func() func(int) {
		var buf []byte
		return func(i int) {
			var err error
			buf, err = read(names[i], buf)
			out[i] = ParseBrowsePage(names[i], buf, err)
		}
	})
	return out, nil
}

// ParseBrowsePage is one page of BrowsePages from its file's bytes, or
// the error reading them: a viewer that keeps pages between requests
// (keyed by file identity) re-reads one page as BrowsePages reads all.
func ParseBrowsePage(name string, data []byte, readErr error) BrowsePage {
	p := BrowsePage{Name: name, Slug: PageSlug(name)}
	if readErr != nil {
		p.Err = "Cannot read page: " + OSDetail(readErr)
		return p
	}
	if !utf8.Valid(data) {
		p.Err = "Cannot read page: invalid UTF-8"
		return p
	}
	// One copy of the page: the body and the frontmatter values are
	// substrings of it.
	text := pytext.UniversalNewlines(string(data))
	p.SHA256 = textHash(text)
	browseParse(&p, text)
	return p
}

// PageSlug is the NFC stem of a page file name: its [[wikilink]] target.
func PageSlug(name string) string { return pytext.NFC(PageStem(name)) }

// browseParse fills the metadata and body of p from its text.
func browseParse(p *BrowsePage, text string) {
	stripped := pytext.Strip(text)
	p.Body = stripped
	block, err := frontmatter.Scan(stripped)
	if err != nil {
		p.Err = err.Error()
		return
	}
	// The body starts after the closing delimiter's line.
	pos := 0
	for i := 0; i <= block.Close; i++ {
		if _, pos, _ = pytext.NextLine(stripped, pos); pos >= len(stripped) {
			break
		}
	}
	p.Body = stripped[pos:]
	for _, k := range block.Keys {
		p.Frontmatter = append(p.Frontmatter, FrontmatterField{Key: k.Name, Raw: k.Raw})
	}
	p.Stack = StackOf(block)
	parsed, err := ParsePage(stripped, true, false)
	if err != nil {
		p.Err = ErrorMessage(err)
		// Show what the block holds even when the page is invalid.
		for _, f := range []struct {
			key string
			dst *string
		}{{"type", &p.Type}, {"status", &p.Status}, {"summary", &p.Summary}} {
			if k, ok := block.Get(f.key); ok && k.Valued {
				if v, err := frontmatter.DecodeScalar(f.key, k.Raw); err == nil {
					*f.dst = v
				}
			}
		}
		p.Status = pytext.Casefold(p.Status)
		return
	}
	p.Type, p.Status, p.Summary = parsed.Type, parsed.Status, parsed.Summary
}

// StackOf returns the items of a page's stack key: an inline [a, b] list,
// an inline scalar, or the "- item" lines indented below the key; nil
// without the key. It is the one reading of stack (issue 17: it was read
// three ways): the viewer lists and filters these items, find indexes,
// filters and returns them, review compares and shows them.
func StackOf(b *frontmatter.Block) []string {
	k, ok := b.Get("stack")
	if !ok {
		return nil
	}
	if raw := pytext.Strip(k.Raw); raw != "" {
		return StackList(raw)
	}
	var items []string
	for _, line := range b.Lines[k.Line+1 : b.Close] {
		if line == "" || (line[0] != ' ' && line[0] != '\t') {
			break
		}
		items = append(items, StackList(strings.TrimPrefix(pytext.Strip(line), "- "))...)
	}
	return items
}

// StackList is the items of a stack value written inline: "[go, docker]"
// is two items, "go" one, each stripped of surrounding quotes; empty items
// are dropped (StackOf reads the key with it).
func StackList(raw string) []string {
	var items []string
	add := func(s string) {
		s = pytext.Strip(s)
		if len(s) >= 2 && (s[0] == '"' && s[len(s)-1] == '"' || s[0] == '\'' && s[len(s)-1] == '\'') {
			s = s[1 : len(s)-1]
		}
		if s != "" {
			items = append(items, s)
		}
	}
	raw = pytext.Strip(raw)
	if strings.HasPrefix(raw, "[") && strings.HasSuffix(raw, "]") {
		for _, part := range strings.Split(raw[1:len(raw)-1], ",") {
			add(part)
		}
		return items
	}
	add(raw)
	return items
}

// DailyEntry is one daily file (protocol §9, echoes-conformance §13).
type DailyEntry struct {
	Rel   string // relative to daily/, slash-separated: YYYY-MM-DD/<name>.md
	Day   string // the directory name (the UTC day)
	Stamp string // the file name's UTC stamp, YYYYMMDDTHHMMSSffffffZ
	Kind  string // scratchpad, session, or what the name says
	Agent string // "" when the entry names none
	Text  string // the entry's text, universal newlines
	Err   string // read error, "" when read
}

// ReadDailyEntries reads every daily entry, newest first (by path, as start
// orders them; DailyEntries lists the same names without reading them). It
// never fails: unreadable entries carry Err.
func (e *Engine) ReadDailyEntries() []DailyEntry {
	var rels []string
	WalkDaily(e.WS.Daily, func(rel string) bool { rels = append(rels, rel); return true })
	out := make([]DailyEntry, len(rels))
	Parallel(len(rels), func(i int) {
		d := &out[i]
		d.Rel = rels[i]
		d.Day, _, _ = strings.Cut(rels[i], "/")
		base := rels[i][strings.LastIndexByte(rels[i], '/')+1:]
		d.Stamp, d.Kind, d.Agent = ParseDailyName(base)
		data, err := fsx.ReadFile(filepath.Join(e.WS.Daily, filepath.FromSlash(rels[i])))
		if err != nil {
			d.Err = "Cannot read daily entry: " + OSDetail(err)
			return
		}
		text, err := pytext.DecodeText(data)
		if err != nil {
			d.Err = "Cannot read daily entry: invalid UTF-8"
			return
		}
		d.Text = pytext.UniversalNewlines(text)
	})
	keys := make([]string, len(out))
	for i := range out {
		keys[i] = pytext.NFC(out[i].Rel)
	}
	idx := make([]int, len(out))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return keys[idx[a]] > keys[idx[b]] })
	sorted := make([]DailyEntry, len(out))
	for i, j := range idx {
		sorted[i] = out[j]
	}
	return sorted
}

// ParseDailyName splits <stamp>Z-<kind>[-<agent>]-<8 hex>.md
// (echoes-conformance §13.1). A name of another shape keeps its stem as the
// kind's place: nothing is guessed.
func ParseDailyName(name string) (stamp, kind, agent string) {
	stem := strings.TrimSuffix(name, ".md")
	i := strings.Index(stem, "Z-")
	if i < 0 {
		return "", "", ""
	}
	stamp, rest := stem[:i+1], stem[i+2:]
	if j := strings.LastIndexByte(rest, '-'); j >= 0 && len(rest)-j-1 == 8 {
		rest = rest[:j]
	}
	kind, agent, _ = strings.Cut(rest, "-")
	return stamp, kind, agent
}

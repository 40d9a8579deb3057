package viewer

import (
	"bytes"
	"errors"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/gitvault/health"
	"github.com/git-echoes/git-echoes/gitvault/memory"
	"github.com/git-echoes/git-echoes/internal/fsx"
	"github.com/git-echoes/git-echoes/internal/pytext"
)

func (s *Server) routes() {
	m := http.NewServeMux()
	m.HandleFunc("GET /{$}", s.overview)
	m.HandleFunc("GET /pages", s.pagesIndex)
	m.HandleFunc("GET /page/{slug}", s.pageView)
	m.HandleFunc("GET /assets/{rel...}", s.asset)
	m.HandleFunc("GET /daily", s.daily)
	m.HandleFunc("GET /memories", s.memories)
	m.HandleFunc("GET /memory/{id}", s.memoryView)
	m.HandleFunc("GET /search", s.search)
	m.HandleFunc("GET /graph", s.graph)
	m.HandleFunc("GET /static/style.css", s.static(styleCSS, "text/css; charset=utf-8"))
	m.HandleFunc("GET /static/icon.svg", s.static(iconSVG, "image/svg+xml"))
	m.HandleFunc("GET /favicon.ico", s.static(iconSVG, "image/svg+xml"))
	if s.cfg.Review != nil {
		m.HandleFunc("GET /review", s.review)
	}
	s.mux = m
}

// navItem is one entry of the navigation bar.
type navItem struct {
	ID, Label, Href string
}

// layoutData is what every view's template gets.
type layoutData struct {
	Title   string
	Current string
	Nav     []navItem
	Vault   string // the workspace root, shown in the header
	V       any    // the view's own data
}

func (s *Server) nav() []navItem {
	items := []navItem{{"overview", "Overview", "/"}, {"pages", "Pages", "/pages"}, {"daily", "Daily", "/daily"},
		{"memories", "Memories", "/memories"}, {"search", "Search", "/search"}, {"graph", "Graph", "/graph"}}
	if s.cfg.Review != nil {
		items = append(items, navItem{"review", "Review", "/review"})
	}
	return items
}

// render executes a view into a buffer first, so that a template error is
// a clean 500 rather than half a page.
func (s *Server) render(w http.ResponseWriter, r *http.Request, status int, view, title string, v any) {
	var b bytes.Buffer
	err := s.tmpl[view].ExecuteTemplate(&b, "layout", layoutData{Title: title, Current: view, Nav: s.nav(), Vault: s.cfg.Engine.WS.Root, V: v})
	if err != nil {
		plainError(w, http.StatusInternalServerError, "template error: "+err.Error())
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(b.Bytes())
	}
}

func (s *Server) fail(w http.ResponseWriter, r *http.Request, status int, msg string) {
	s.render(w, r, status, "error", http.StatusText(status), msg)
}

// ---- overview ----

// maxFindingItems bounds the items the overview lists per health finding,
// and maxCommandBytes the suggested Git command it prints whole: on a
// large vault one finding can name every page (issue 19: a screen, not the
// whole vault). git echoes inspect --format json has them all.
const (
	maxFindingItems = 20
	maxCommandBytes = 2000
)

// findingView is one health finding as the overview lists it.
type findingView struct {
	Label string
	Items []string // at most maxFindingItems
	Total int
	More  int
}

// commandView is one suggested command: whole, or summarized when long.
type commandView struct {
	Text  string
	Long  bool // Text is a summary: the command is too long to print
	Bytes int
}

type overviewData struct {
	Badge     string
	Card      template.HTML
	In        *health.Inspection
	Findings  []findingView
	Commands  []commandView
	Memories  int
	MemDiag   memory.Diagnostics
	MemErr    string
	MemScopes string
}

func (s *Server) overview(w http.ResponseWriter, r *http.Request) {
	in := s.health.Inspect()
	card, err := renderMarkdown(in.Card(), nil)
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, err.Error())
		return
	}
	ms := s.loadMemories()
	d := overviewData{Card: template.HTML(card), In: in,
		Memories: len(ms.entries), MemDiag: ms.diag, MemScopes: strings.Join(memoryScopes(s.cfg.UserScope), ", ")}
	for _, f := range in.Health.Findings() {
		n := min(len(f.Items), maxFindingItems)
		d.Findings = append(d.Findings, findingView{Label: f.Label, Items: f.Items[:n], Total: len(f.Items), More: len(f.Items) - n})
	}
	for _, c := range in.Health.Git.SuggestedCommands {
		if len(c) <= maxCommandBytes {
			d.Commands = append(d.Commands, commandView{Text: c, Bytes: len(c)})
			continue
		}
		verb, _, _ := strings.Cut(c, " -- ")
		d.Commands = append(d.Commands, commandView{Text: verb + " -- …", Long: true, Bytes: len(c)})
	}
	if ms.err != nil {
		d.MemErr = ms.err.Error()
	}
	s.render(w, r, http.StatusOK, "overview", "Overview", d)
}

// ---- pages ----

// pageSize is how many rows one screen of the pages index shows (issue
// 19: a screen, never the whole vault).
const pageSize = 100

type pageRow struct {
	P           *gitvault.BrowsePage
	Replacement string
	Fresh       *badge // nil: no freshness (no Git history, or not computed)
}

// pageLink is one entry of a pager: a numbered screen, or a gap.
type pageLink struct {
	N       int
	Href    string
	Current bool
	Gap     bool
}

type pagesData struct {
	Rows                  []pageRow
	Total                 int // pages in the vault
	Matched               int // pages the filters keep
	From, To              int // the rows shown, 1-based (0 0: none)
	Page, Pages           int // this screen and the number of screens
	Pager                 []pageLink
	Prev, Next            string // hrefs, "" at the ends
	Types, Stacks, Status []string
	Type, Stack, StatusF  string
	FreshNote             string // why there are no freshness badges
}

func (s *Server) pagesIndex(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	d := pagesData{Type: q.Get("type"), Stack: q.Get("stack"), StatusF: q.Get("status")}
	want, ok := screenNumber(q.Get("page"))
	if !ok {
		s.fail(w, r, http.StatusBadRequest, "Not a page number: "+q.Get("page")+" (the screens are numbered from 1)")
		return
	}
	status := pytext.Casefold(d.StatusF)
	err := s.pages.with(func(c *catalog) error {
		d.Total = len(c.entries)
		types, stacks, statuses := map[string]int{}, map[string]int{}, map[string]int{}
		keep := func(p *gitvault.BrowsePage) bool {
			return !(d.Type != "" && p.Type != d.Type || d.StatusF != "" && p.Status != status ||
				d.Stack != "" && !contains(p.Stack, d.Stack))
		}
		for i := range c.entries {
			p := &c.entries[i].P
			if p.Type != "" {
				types[p.Type]++
			}
			if p.Status != "" {
				statuses[p.Status]++
			}
			for _, st := range p.Stack {
				stacks[st]++
			}
			if keep(p) {
				d.Matched++
			}
		}
		d.Types, d.Stacks, d.Status = sortedKeys(types), sortedKeys(stacks), sortedKeys(statuses)
		d.Pages = max(1, (d.Matched+pageSize-1)/pageSize)
		d.Page = min(want, d.Pages)
		first := (d.Page - 1) * pageSize
		n := 0
		for i := range c.entries {
			e := &c.entries[i]
			if !keep(&e.P) {
				continue
			}
			if n >= first && n < first+pageSize {
				p := e.P
				d.Rows = append(d.Rows, pageRow{P: &p, Replacement: e.replacement()})
			}
			n++
		}
		return nil
	})
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, gitvault.ErrorMessage(err))
		return
	}
	if len(d.Rows) > 0 {
		d.From = (d.Page-1)*pageSize + 1
		d.To = d.From + len(d.Rows) - 1
	}
	href := func(n int) string {
		page := ""
		if n > 1 {
			page = strconv.Itoa(n)
		}
		return "/pages" + queryString("type", d.Type, "stack", d.Stack, "status", d.StatusF, "page", page)
	}
	d.Pager = pager(d.Page, d.Pages, href)
	if d.Page > 1 {
		d.Prev = href(d.Page - 1)
	}
	if d.Page < d.Pages {
		d.Next = href(d.Page + 1)
	}
	d.FreshNote = s.pageBadges(r, d.Rows)
	s.render(w, r, http.StatusOK, "pages", "Pages", d)
}

// screenNumber reads the page= parameter: "" is the first screen.
func screenNumber(v string) (int, bool) {
	if v == "" {
		return 1, true
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, false
	}
	return n, true
}

// pager lists the screens to link: the first, the last, and two either
// side of the current one, with gaps between.
func pager(cur, total int, href func(int) string) []pageLink {
	if total <= 1 {
		return nil
	}
	var out []pageLink
	last := 0
	for n := 1; n <= total; n++ {
		if n != 1 && n != total && (n < cur-2 || n > cur+2) {
			continue
		}
		if last != 0 && n > last+1 {
			out = append(out, pageLink{Gap: true})
		}
		out = append(out, pageLink{N: n, Href: href(n), Current: n == cur})
		last = n
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

type pageData struct {
	P           *gitvault.BrowsePage
	HTML        template.HTML
	Backlinks   []string
	Links       []string
	Broken      []string
	Replacement string
	HasHistory  bool
	History     *PageLog
	HistoryErr  string
	Fresh       *pageFreshness // nil: no freshness section
}

func (s *Server) pageView(w http.ResponseWriter, r *http.Request) {
	ref := r.PathValue("slug")
	var d pageData
	var redirect string
	found := false
	err := s.pages.with(func(c *catalog) error {
		slug, ok := c.page(ref)
		if !ok || strings.ContainsAny(ref, `/\`) {
			return nil
		}
		found = true
		if slug != ref {
			redirect = slug
			return nil
		}
		i := c.bySlug[slug]
		p := readPage(c, c.names[i])
		links := make([]string, 0, 8)
		seen := map[string]bool{}
		for _, l := range ExtractWikilinks(p.Body) {
			if !l.Embed && !seen[l.Target] {
				seen[l.Target] = true
				links = append(links, l.Target)
			}
		}
		d = pageData{P: &p, Backlinks: c.backlinks(slug)}
		d.Links, d.Broken = c.resolveLinks(slug, links)
		if p.Deprecated() && len(d.Links) > 0 {
			d.Replacement = d.Links[0]
		}
		body, err := renderMarkdown(p.Body, resolver{ps: c, s: s})
		if err != nil {
			return err
		}
		d.HTML = template.HTML(body)
		return nil
	})
	switch {
	case err != nil:
		s.fail(w, r, http.StatusInternalServerError, gitvault.ErrorMessage(err))
		return
	case !found:
		s.fail(w, r, http.StatusNotFound, "No such page: "+ref)
		return
	case redirect != "":
		http.Redirect(w, r, pageHref(redirect), http.StatusSeeOther)
		return
	}
	if s.cfg.History != nil {
		d.HasHistory = true
		if d.History, err = s.cfg.History.PageHistory(r.Context(), d.P.Name); errors.Is(err, ErrNoHistory) {
			d.HasHistory, d.History = false, nil
		} else if err != nil {
			d.HistoryErr, d.History = err.Error(), nil
		}
	}
	d.Fresh = s.pageFreshness(r, d.P)
	s.render(w, r, http.StatusOK, "page", d.P.Slug, d)
}

// readPage reads one listed page whole (body and frontmatter), as
// BrowsePages reads it.
func readPage(c *catalog, name string) gitvault.BrowsePage {
	d, err := fsx.OpenDir(c.eng.WS.Pages)
	if err != nil {
		return gitvault.ParseBrowsePage(name, nil, err)
	}
	defer d.Close()
	data, err := d.ReadFileBuf(name, nil)
	return gitvault.ParseBrowsePage(name, data, err)
}

// ---- assets ----

func (s *Server) asset(w http.ResponseWriter, r *http.Request) {
	rel := r.PathValue("rel")
	data, err := s.readAsset(rel)
	if err != nil {
		code := http.StatusNotFound
		if errors.Is(err, errRefused) && !errors.Is(err, fs.ErrNotExist) {
			code = http.StatusForbidden
		}
		plainError(w, code, "asset not served: "+rel)
		return
	}
	h := w.Header()
	h.Set("Content-Security-Policy", assetCSP)
	if t := imageTypes[strings.ToLower(filepath.Ext(rel))]; t != "" {
		h.Set("Content-Type", t)
	} else {
		// Anything else is downloaded, never rendered by the browser.
		h.Set("Content-Type", "application/octet-stream")
		h.Set("Content-Disposition", "attachment; filename*=UTF-8''"+url.PathEscape(baseName(rel)))
	}
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(data)
	}
}

// ---- daily ----

type dailyEntry struct {
	E    *gitvault.DailyEntry
	Time string
	HTML template.HTML
}

type dailyDay struct {
	Day     string
	Entries []dailyEntry
}

type dailyData struct {
	Days    []dailyDay
	AllDays []string
	Counts  map[string]int
	Day     string
	Total   int
	Shown   int
}

// dailyDays is how many of the most recent days the timeline shows when no
// day is chosen.
const dailyDays = 14

func (s *Server) daily(w http.ResponseWriter, r *http.Request) {
	entries := s.cfg.Engine.ReadDailyEntries()
	d := dailyData{Day: r.URL.Query().Get("day"), Counts: map[string]int{}, Total: len(entries)}
	for i := range entries {
		day := entries[i].Day
		if d.Counts[day] == 0 {
			d.AllDays = append(d.AllDays, day)
		}
		d.Counts[day]++
	}
	show := map[string]bool{}
	if d.Day != "" {
		show[d.Day] = true
	} else {
		for _, day := range d.AllDays[:min(dailyDays, len(d.AllDays))] {
			show[day] = true
		}
	}
	var renderErr error
	err := s.pages.withNames(func(c *catalog) error {
		res := resolver{ps: c, s: s}
		for i := range entries {
			e := &entries[i]
			if !show[e.Day] {
				continue
			}
			html, err := renderMarkdown(e.Text, res)
			if err != nil {
				renderErr = err
				return nil
			}
			if len(d.Days) == 0 || d.Days[len(d.Days)-1].Day != e.Day {
				d.Days = append(d.Days, dailyDay{Day: e.Day})
			}
			last := &d.Days[len(d.Days)-1]
			last.Entries = append(last.Entries, dailyEntry{E: e, Time: stampTime(e.Stamp), HTML: template.HTML(html)})
			d.Shown++
		}
		return nil
	})
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, gitvault.ErrorMessage(err))
		return
	}
	if renderErr != nil {
		s.fail(w, r, http.StatusInternalServerError, renderErr.Error())
		return
	}
	s.render(w, r, http.StatusOK, "daily", "Daily", d)
}

// stampTime renders YYYYMMDDTHHMMSSffffffZ as HH:MM:SS UTC.
func stampTime(stamp string) string {
	if len(stamp) < 15 || stamp[8] != 'T' {
		return ""
	}
	return stamp[9:11] + ":" + stamp[11:13] + ":" + stamp[13:15] + " UTC"
}

// ---- memories ----

type memoriesData struct {
	Entries                   []memory.Entry
	Total                     int
	Kinds, Scopes, Harnesses  []string
	Tags                      []string
	Kind, Scope, Harness, Tag string
	Diag                      memory.Diagnostics
	Err                       string
	UserScope                 bool
	Fresh                     []*badge // per entry, nil when none
	FreshNote                 string
}

func (s *Server) memories(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	d := memoriesData{Kind: q.Get("kind"), Scope: q.Get("scope"), Harness: q.Get("harness"), Tag: q.Get("tag"),
		Kinds: memory.Kinds, Scopes: memoryScopes(s.cfg.UserScope), UserScope: s.cfg.UserScope}
	if d.Scope == "user" && !s.cfg.UserScope {
		s.fail(w, r, http.StatusForbidden, "The user scope is not served: start the viewer with --scope user.")
		return
	}
	ms := s.loadMemories()
	if ms.err != nil {
		d.Err = ms.err.Error()
	}
	d.Diag = ms.diag
	d.Total = len(ms.entries)
	harnesses, tags := map[string]int{}, map[string]int{}
	for _, e := range ms.entries {
		m := e.Memory
		for _, h := range m.TargetHarnesses {
			if h != "all" {
				harnesses[h]++
			}
		}
		for _, t := range m.Tags {
			tags[t]++
		}
		if d.Kind != "" && m.Kind != d.Kind || d.Scope != "" && m.Scope != d.Scope || d.Tag != "" && !contains(m.Tags, d.Tag) ||
			d.Harness != "" && !contains(m.TargetHarnesses, d.Harness) && !contains(m.TargetHarnesses, "all") {
			continue
		}
		d.Entries = append(d.Entries, e)
	}
	d.Harnesses, d.Tags = sortedKeys(harnesses), sortedKeys(tags)
	d.Fresh, d.FreshNote = s.memoryBadges(r, d.Entries)
	s.render(w, r, http.StatusOK, "memories", "Memories", d)
}

type memLink struct {
	ID     string
	Title  string
	Exists bool
}

type memoryData struct {
	E         memory.Entry
	Dup       int
	Links     []memLink
	Backlinks []memory.Entry
	Diag      memory.Diagnostics
	Fresh     *badge
}

func (s *Server) memoryView(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	ms := s.loadMemories()
	if ms.err != nil {
		s.fail(w, r, http.StatusServiceUnavailable, ms.err.Error())
		return
	}
	idx := ms.byID[id]
	if len(idx) == 0 {
		s.fail(w, r, http.StatusNotFound, "No such memory in the served scopes: "+id)
		return
	}
	d := memoryData{E: ms.entries[idx[0]], Dup: len(idx), Diag: ms.diag}
	for _, l := range d.E.Memory.Links {
		ml := memLink{ID: l}
		if j := ms.byID[l]; len(j) > 0 {
			ml.Exists, ml.Title = true, ms.entries[j[0]].Memory.Title
		}
		d.Links = append(d.Links, ml)
	}
	for _, j := range ms.back[id] {
		d.Backlinks = append(d.Backlinks, ms.entries[j])
	}
	sort.SliceStable(d.Backlinks, func(a, b int) bool { return d.Backlinks[a].Memory.ID < d.Backlinks[b].Memory.ID })
	if b, _ := s.memoryBadges(r, []memory.Entry{d.E}); len(b) == 1 {
		d.Fresh = b[0]
	}
	s.render(w, r, http.StatusOK, "memory", d.E.Memory.Title, d)
}

// ---- search ----

type searchData struct {
	Q      string
	Engine string
	Mode   string   // the chosen searcher's name
	Modes  []string // every searcher's name, the default first
	Res    *SearchResults
	Err    string
}

// searchLimit is the most hits the view asks for per vault.
const searchLimit = 100

// searchers are the configured searcher (the default) and, when it is
// another one, the literal search of today.
func (s *Server) searchers() []Searcher {
	out := []Searcher{s.cfg.Search}
	if _, literal := s.cfg.Search.(*LiteralSearch); !literal && s.cfg.Search.Name() != "literal" {
		out = append(out, &LiteralSearch{Engine: s.cfg.Engine, Roots: s.cfg.Roots, Scopes: memoryScopes(s.cfg.UserScope)})
	}
	return out
}

func (s *Server) search(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	all := s.searchers()
	se := all[0]
	d := searchData{Q: q.Get("q"), Mode: q.Get("mode")}
	for _, x := range all {
		d.Modes = append(d.Modes, x.Name())
		if x.Name() == d.Mode {
			se = x
		}
	}
	if d.Mode != "" && se.Name() != d.Mode {
		s.fail(w, r, http.StatusBadRequest, "Unknown search mode: "+d.Mode+" (one of: "+strings.Join(d.Modes, ", ")+")")
		return
	}
	d.Mode, d.Engine = se.Name(), se.Name()
	if strings.TrimSpace(d.Q) != "" {
		res, err := se.Search(r.Context(), SearchQuery{Text: d.Q, Limit: searchLimit})
		if err != nil {
			d.Err = err.Error()
		}
		d.Res = res
	}
	s.render(w, r, http.StatusOK, "search", "Search", d)
}

// ---- review ----

type reviewData struct {
	From, To string
	Note     string // why there is no default comparison
	Res      *Review
	Err      string
}

func (s *Server) review(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	d := reviewData{From: q.Get("from"), To: q.Get("to")}
	run := q.Has("from") || q.Has("to")
	if !run {
		var ok bool
		d.From, d.To, d.Note, ok = s.cfg.Review.Default(r.Context())
		run = ok
	}
	status := http.StatusOK
	if run {
		res, err := s.cfg.Review.Review(r.Context(), d.From, d.To)
		var re *RequestError
		switch {
		case errors.As(err, &re):
			status, d.Err = http.StatusBadRequest, err.Error()
		case err != nil:
			status, d.Err = http.StatusInternalServerError, err.Error()
		}
		d.Res = res
	}
	s.render(w, r, status, "review", "Review", d)
}

// ---- static ----

// static serves an embedded file.
func (s *Server) static(data []byte, contentType string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		if r.Method != http.MethodHead {
			_, _ = w.Write(data)
		}
	}
}

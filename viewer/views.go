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
	"strings"

	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/gitvault/health"
	"github.com/git-echoes/git-echoes/gitvault/memory"
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

type overviewData struct {
	Badge     string
	Card      template.HTML
	In        *health.Inspection
	Findings  []health.Finding
	Commands  []string
	Memories  int
	MemDiag   memory.Diagnostics
	MemErr    string
	MemScopes string
}

func (s *Server) overview(w http.ResponseWriter, r *http.Request) {
	in := health.Inspect(s.cfg.Engine)
	card, err := renderMarkdown(in.Card(), nil)
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, err.Error())
		return
	}
	ms := s.loadMemories()
	d := overviewData{Card: template.HTML(card), In: in, Findings: in.Health.Findings(), Commands: in.Health.Git.SuggestedCommands,
		Memories: len(ms.entries), MemDiag: ms.diag, MemScopes: strings.Join(memoryScopes(s.cfg.UserScope), ", ")}
	if ms.err != nil {
		d.MemErr = ms.err.Error()
	}
	s.render(w, r, http.StatusOK, "overview", "Overview", d)
}

// ---- pages ----

type pageRow struct {
	P           *gitvault.BrowsePage
	Replacement string
}

type pagesData struct {
	Rows                  []pageRow
	Total                 int
	Types, Stacks, Status []string
	Type, Stack, StatusF  string
}

func (s *Server) pagesIndex(w http.ResponseWriter, r *http.Request) {
	ps, err := s.loadPageIndex()
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, gitvault.ErrorMessage(err))
		return
	}
	q := r.URL.Query()
	d := pagesData{Total: len(ps.pages), Type: q.Get("type"), Stack: q.Get("stack"), StatusF: q.Get("status")}
	types, stacks, statuses := map[string]int{}, map[string]int{}, map[string]int{}
	for i := range ps.pages {
		p := &ps.pages[i]
		if p.Type != "" {
			types[p.Type]++
		}
		if p.Status != "" {
			statuses[p.Status]++
		}
		for _, st := range p.Stack {
			stacks[st]++
		}
		if d.Type != "" && p.Type != d.Type || d.StatusF != "" && p.Status != pytext.Casefold(d.StatusF) ||
			d.Stack != "" && !contains(p.Stack, d.Stack) {
			continue
		}
		d.Rows = append(d.Rows, pageRow{P: p, Replacement: ps.replacement(i)})
	}
	d.Types, d.Stacks, d.Status = sortedKeys(types), sortedKeys(stacks), sortedKeys(statuses)
	s.render(w, r, http.StatusOK, "pages", "Pages", d)
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
}

func (s *Server) pageView(w http.ResponseWriter, r *http.Request) {
	ps, err := s.loadPages()
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, gitvault.ErrorMessage(err))
		return
	}
	slug, ok := ps.page(r.PathValue("slug"))
	if !ok || strings.ContainsAny(r.PathValue("slug"), `/\`) {
		s.fail(w, r, http.StatusNotFound, "No such page: "+r.PathValue("slug"))
		return
	}
	if slug != r.PathValue("slug") {
		http.Redirect(w, r, pageHref(slug), http.StatusSeeOther)
		return
	}
	i := ps.bySlug[slug]
	p := &ps.pages[i]
	body, err := renderMarkdown(p.Body, resolver{ps: ps, s: s})
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, err.Error())
		return
	}
	d := pageData{P: p, HTML: template.HTML(body), Links: ps.out[i], Broken: ps.broken[i], Replacement: ps.replacement(i)}
	for _, j := range ps.back[slug] {
		d.Backlinks = append(d.Backlinks, ps.pages[j].Slug)
	}
	if s.cfg.History != nil {
		d.HasHistory = true
		if d.History, err = s.cfg.History.PageHistory(r.Context(), p.Name); errors.Is(err, ErrNoHistory) {
			d.HasHistory, d.History = false, nil
		} else if err != nil {
			d.HistoryErr, d.History = err.Error(), nil
		}
	}
	s.render(w, r, http.StatusOK, "page", slug, d)
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
	ps, err := s.loadPageNames()
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, gitvault.ErrorMessage(err))
		return
	}
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
	res := resolver{ps: ps, s: s}
	for i := range entries {
		e := &entries[i]
		if !show[e.Day] {
			continue
		}
		html, err := renderMarkdown(e.Text, res)
		if err != nil {
			s.fail(w, r, http.StatusInternalServerError, err.Error())
			return
		}
		if len(d.Days) == 0 || d.Days[len(d.Days)-1].Day != e.Day {
			d.Days = append(d.Days, dailyDay{Day: e.Day})
		}
		last := &d.Days[len(d.Days)-1]
		last.Entries = append(last.Entries, dailyEntry{E: e, Time: stampTime(e.Stamp), HTML: template.HTML(html)})
		d.Shown++
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

package health

import (
	"errors"
	"github.com/git-echoes/git-echoes/gitvault"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/git-echoes/git-echoes/internal/fsx"
	"github.com/git-echoes/git-echoes/internal/pyjson"
	"github.com/git-echoes/git-echoes/internal/pytext"
)

// Inspection is the result of inspect/status (echoes-conformance §15.6).
type Inspection struct {
	Workspace, Vault string
	State            *gitvault.State // as read, with live stats; never written
	Refresh          IndexCheck
	Health           Health
}

// IndexCheck is inspect's indexRefresh object: what a refresh would do.
type IndexCheck struct {
	Rendered     bool // false when the index cannot be rendered
	NeedsRefresh bool
	PageCount    int
	SHA256       string
}

// Health is the echoes-conformance §18 health object.
type Health struct {
	TotalPages, TotalDailyLogs, DeprecatedPages int
	DeprecatedSlugs                             []string
	IndexTopics                                 int
	Initialized, LegacyVaultDetected            bool

	// The 14 problem lists of echoes-conformance §18.1, in key order (UnsafePageNames below is ours).
	MissingStructure, InvalidFrontmatter, DuplicateIndexEntries, EmptyDescriptions []string
	OrphanPages, MissingPages, ConflictMarkers, IndexBuildErrors, IndexOutOfDate   []string
	SymbolicLinks, UnreadableFiles, AdapterConfiguration, GitReadinessIssues       []string
	OutdatedRuntime                                                                []string
	// UnsafePageNames lists pages whose names hold control, line-separator or
	// bidi-control characters (unsafenames.go). Not a reference list: the
	// health key is only emitted when it is non-empty, so the reference's bytes
	// (echoes-conformance §18.1) are unchanged for every other vault.
	UnsafePageNames []string

	TodayEntries int
	ScaleAlert   bool
	Healthy      bool // integrity "healthy"
	IssueCount   int
	StateFile    StateFileStatus
	Marker       gitvault.MarkerRead
	Runtime      gitvault.RuntimeStatus
	Git          gitvault.GitReadiness
	Storage      Storage
	Lock         *LockStatus // health.lock, nil when no lock is present
	// IrregularFiles is health.irregularFiles: FIFOs, sockets and devices
	// where a managed file or a page belongs (issue 11 item 4).
	IrregularFiles []string
}

// StateFileStatus is health.stateFile (echoes-conformance §18.4).
type StateFileStatus struct {
	Exists, Valid bool
	Error         string
}

// Storage is health.storage (echoes-conformance §18.6).
type Storage struct {
	TotalBytes                int64
	TotalFiles, MarkdownFiles int
	Symlinks, UnreadableFiles []string // vault-relative, OS separators, sorted
	LastModified              time.Time
	HasLastModified           bool
}

// problem pairs a health list with its card label (echoes-conformance §19), in key order.
type problem struct {
	label string
	items []string
}

func (h *Health) problems() []problem {
	return []problem{
		{"missing structure", h.MissingStructure},
		{"invalid frontmatter", h.InvalidFrontmatter},
		{"duplicate index entries", h.DuplicateIndexEntries},
		{"empty descriptions", h.EmptyDescriptions},
		{"orphan pages", h.OrphanPages},
		{"missing pages", h.MissingPages},
		{"Git conflict markers", h.ConflictMarkers},
		{"index build errors", h.IndexBuildErrors},
		{"stale generated index", h.IndexOutOfDate},
		{"symbolic links", h.SymbolicLinks},
		{"unreadable files", h.UnreadableFiles},
		{"adapter conflicts", h.AdapterConfiguration},
		{"Git readiness issues", h.GitReadinessIssues},
		{"outdated project runtime", h.OutdatedRuntime},
		{"unsafe page names", h.UnsafePageNames},
	}
}

// Inspect reports the vault's health (echoes-conformance §15.6, echoes-conformance §18). It is strictly
// read-only: no lock, no write, no hydrate, no migration, and no marker is
// needed. Unreadable and non-UTF-8 files are reported, never an error.
func Inspect(e *gitvault.Engine) *Inspection {
	in := inspectFiles(e, e.WS.GitReadiness)
	in.live(e.WS, time.Now())
	return in
}

// inspectFiles is Inspect without its clock-dependent parts (live): what
// it returns depends on files only, so a long-lived process may keep it
// while nothing it read has changed (Inspector). git computes health.git.
func inspectFiles(e *gitvault.Engine, git func() gitvault.GitReadiness) *Inspection {
	ws := e.WS
	h := Health{}

	src := gitvault.DirSource{Dir: ws.Pages}
	names, listErr := src.PageNames()
	// One pass reads, validates and conflict-scans every page with reused
	// buffers; page bodies are never kept.
	// Unchanged pages come from the page cache, which inspect reads but
	// never writes (pagecache.go).
	loaded := e.LoadPages(names, nil, true)
	h.TotalPages = len(names)

	check := IndexCheck{PageCount: len(names)}
	currentIndex := ws.CurrentIndexText()
	var idx *gitvault.Index
	var renderErr error
	if listErr != nil {
		renderErr = gitvault.Wrapf(listErr, "Cannot list pages in %s: %s", ws.Pages, gitvault.OSDetail(listErr))
	} else {
		idx, renderErr = gitvault.AssembleIndex(names, loaded, nil)
	}
	if renderErr != nil {
		h.IndexBuildErrors = []string{gitvault.ErrorMessage(renderErr)}
	} else {
		check = IndexCheck{Rendered: true, NeedsRefresh: currentIndex != idx.Text, PageCount: len(idx.Pages), SHA256: idx.SHA256}
		if check.NeedsRefresh {
			h.IndexOutOfDate = []string{"index.md"}
		}
	}
	h.DeprecatedSlugs, h.InvalidFrontmatter = pageChecks(names, loaded)
	h.DeprecatedPages = len(h.DeprecatedSlugs)
	h.UnsafePageNames = unsafePageNames(names)
	h.TotalDailyLogs = ws.CountDailyLogs()
	h.indexEntries(names, currentIndex)

	h.Marker = ws.ReadMarker()
	h.Initialized = h.Marker.Valid()
	h.LegacyVaultDetected = ws.LegacyVaultDetected()
	h.Runtime = ws.RuntimeStatus()
	h.MissingStructure = missingStructure(ws, h.Initialized, h.Runtime.Compatible)
	h.AdapterConfiguration = adapterConfiguration(ws)
	h.OutdatedRuntime = outdatedRuntime(h.Runtime)

	pageConflict := make(map[string]bool, len(names))
	for i, name := range names {
		if loaded[i].ReadErr == nil && strings.HasSuffix(name, ".md") {
			pageConflict["pages/"+name] = loaded[i].Conflict
		}
	}
	h.Storage, h.ConflictMarkers = inventory(ws, pageConflict)
	h.SymbolicLinks, h.UnreadableFiles = h.Storage.Symlinks, h.Storage.UnreadableFiles

	h.Git = git()
	h.GitReadinessIssues = h.Git.Issues()
	h.ScaleAlert = h.TotalPages > gitvault.ScaleAlertPages
	h.StateFile = stateFileStatus(ws)
	h.IrregularFiles = irregularFiles(ws)

	st := ws.ReadState()
	st.Stats = gitvault.Stats{TotalPages: h.TotalPages, TotalDailyLogs: h.TotalDailyLogs, DeprecatedPages: h.DeprecatedPages}
	return &Inspection{Workspace: ws.Root, Vault: ws.Vault, State: st, Refresh: check, Health: h}
}

// live fills in what depends on the clock as well as on files: today's
// entries (the date), the lock's age (and so whether it is stale), and the
// totals that count them. It reads two files, never the whole vault.
func (in *Inspection) live(ws *gitvault.Workspace, now time.Time) {
	h := &in.Health
	h.TodayEntries = todayEntries(ws, gitvault.Now())
	h.Lock = lockStatus(ws, now)
	h.IssueCount = 0
	for _, p := range h.problems() {
		h.IssueCount += len(p.items)
	}
	lockProblem := h.Lock != nil && h.Lock.Problem != ""
	if lockProblem {
		h.IssueCount++
	}
	h.IssueCount += len(h.IrregularFiles)
	h.Healthy = h.IssueCount == 0 && h.StateFile.Valid
	if !h.StateFile.Valid {
		h.IssueCount++
	}
}

// unsafePageNames returns the listed page file names (in listing order) that
// the writers would refuse (RefuseUnsafePageName).
func unsafePageNames(names []string) []string {
	var out []string
	for _, n := range names {
		if gitvault.UnsafeNameDetail(n) != "" {
			out = append(out, n)
		}
	}
	return out
}

// pageChecks returns the sorted raw stems of deprecated pages and of pages
// that fail reading or parsing (echoes-conformance §18.2).
func pageChecks(names []string, loaded []gitvault.LoadedPage) (deprecated, invalid []string) {
	deprecated, invalid = []string{}, []string{}
	seen := map[string]bool{}
	for i, name := range names {
		stem := gitvault.PageStem(name)
		switch {
		case loaded[i].Page == nil:
			if !seen[stem] {
				seen[stem] = true
				invalid = append(invalid, stem)
			}
		case loaded[i].Page.Deprecated():
			deprecated = append(deprecated, stem)
		}
	}
	sort.Strings(deprecated)
	sort.Strings(invalid)
	return deprecated, invalid
}

// indexEntries compares the index on disk with the page listing (echoes-conformance §18.2).
func (h *Health) indexEntries(names []string, indexText string) {
	rows := gitvault.ParseIndexRows(indexText)
	h.IndexTopics = len(rows)
	h.DuplicateIndexEntries, h.EmptyDescriptions = []string{}, []string{}
	seen := map[string]int{}
	for _, r := range rows {
		seen[r.Slug]++
		if seen[r.Slug] == 2 {
			h.DuplicateIndexEntries = append(h.DuplicateIndexEntries, r.Slug)
		}
		if r.Description == "" {
			h.EmptyDescriptions = append(h.EmptyDescriptions, r.Slug)
		}
	}
	slugs := make(map[string]bool, len(names))
	for _, n := range names {
		slugs[pytext.NFC(gitvault.PageStem(n))] = true
	}
	h.OrphanPages, h.MissingPages = []string{}, []string{}
	for s := range slugs {
		if seen[s] == 0 {
			h.OrphanPages = append(h.OrphanPages, s)
		}
	}
	for s := range seen {
		if !slugs[s] {
			h.MissingPages = append(h.MissingPages, s)
		}
	}
	sort.Strings(h.OrphanPages)
	sort.Strings(h.MissingPages)
}

// readTextNoFollow reads a regular, non-symlink file as text (echoes-conformance §2.3); ok is
// false for anything else or on any read or decode failure.
func readTextNoFollow(p string) (string, bool) {
	if !fsx.IsRegular(p) {
		return "", false
	}
	data, err := fsx.ReadFile(p)
	if err != nil {
		return "", false
	}
	text, err := pytext.DecodeText(data)
	return text, err == nil
}

func containsAll(p string, subs ...string) bool {
	text, ok := readTextNoFollow(p)
	if !ok {
		return false
	}
	for _, s := range subs {
		if !strings.Contains(text, s) {
			return false
		}
	}
	return true
}

// anyAdapterVersion matches the adapter-version statement of generated
// files, whatever the version.
var anyAdapterVersion = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`Managed adapter version: \d+\.\d+\.\d+`) })

// managedAdapter reports whether p holds a generated adapter: the given
// substrings and an adapter-version statement. The reference insists on its
// own version (1.1.1) and so reports adapters another conforming engine
// wrote as missing structure; any version is accepted here, because those
// files delegate to the same runtime contract.
func managedAdapter(p string, subs ...string) bool {
	if !containsAll(p, subs...) {
		return false
	}
	text, _ := readTextNoFollow(p)
	return anyAdapterVersion().MatchString(text)
}

// missingStructure implements echoes-conformance §18.3's structure list, sorted by code point.
func missingStructure(ws *gitvault.Workspace, markerValid, runtimeCompatible bool) []string {
	checks := map[string]bool{
		"index.md":                               fsx.IsRegular(ws.Index),
		".echoes-vault.json":                     markerValid,
		"AGENT_PROTOCOL.md":                      containsAll(ws.Protocol, gitvault.GeneratedMarker),
		"pages/":                                 fsx.IsDirNoFollow(ws.Pages),
		"daily/":                                 fsx.IsDirNoFollow(ws.Daily),
		"assets/":                                fsx.IsDirNoFollow(ws.Assets),
		"raw/":                                   fsx.IsDirNoFollow(ws.Raw),
		".echoes-vault/echoes_vault.py":          runtimeCompatible,
		"AGENTS.md":                              managedAdapter(ws.AgentsGuide, gitvault.BlockStart),
		"CLAUDE.md":                              managedAdapter(ws.ClaudeGuide, gitvault.BlockStart),
		".claude/skills/echoes-vault/SKILL.md":   managedAdapter(ws.ClaudeSkill, gitvault.GeneratedMarker),
		".opencode/skills/echoes-vault/SKILL.md": managedAdapter(ws.OpenCodeSkill, gitvault.GeneratedMarker),
	}
	for _, c := range gitvault.OpenCodeCommands {
		checks[".opencode/commands/"+c] = managedAdapter(ws.CommandPath(c), gitvault.GeneratedMarker)
	}
	out := []string{}
	for name, ok := range checks {
		if !ok {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// adapterConfiguration lists generated agent files that exist but are not
// ours to manage (echoes-conformance §18.3). A dangling symlink does not exist.
func adapterConfiguration(ws *gitvault.Workspace) []string {
	var out []string
	conflict := func(p string, subs ...string) {
		if _, err := os.Stat(p); err != nil {
			return
		}
		if !containsAll(p, subs...) {
			out = append(out, ws.Rel(p))
		}
	}
	conflict(ws.ClaudeSkill, gitvault.GeneratedMarker)
	conflict(ws.OpenCodeSkill, gitvault.GeneratedMarker)
	for _, c := range gitvault.OpenCodeCommands {
		conflict(ws.CommandPath(c), gitvault.GeneratedMarker)
	}
	for _, s := range gitvault.LegacySkills {
		conflict(ws.LegacySkillPath(s), gitvault.GeneratedMarker, gitvault.LegacyRedirectID)
	}
	return sortedUnique(out)
}

func sortedUnique(xs []string) []string {
	sort.Strings(xs)
	out := []string{}
	for i, x := range xs {
		if i == 0 || x != xs[i-1] {
			out = append(out, x)
		}
	}
	return out
}

// outdatedRuntime reports a compatible project runtime of another engine
// version. The reference always says "older"; we say "newer" when it is
// (echoes-conformance §18.3 Quirk), keeping one entry either way.
func outdatedRuntime(rs gitvault.RuntimeStatus) []string {
	if !rs.Compatible || (rs.Engine != nil && *rs.Engine == gitvault.EngineTriple) {
		return []string{}
	}
	if rs.Engine == nil {
		return []string{"project engine None is older than available engine " + gitvault.EngineVersion}
	}
	word := "older"
	if gitvault.CompareVersions(*rs.Engine, gitvault.EngineTriple) > 0 {
		word = "newer"
	}
	return []string{"project engine " + gitvault.VersionString(rs.Engine) + " is " + word + " than available engine " + gitvault.EngineVersion}
}

// inventory walks the vault once without following symlinks (echoes-conformance §18.6) and
// finds the *.md files with conflict markers (echoes-conformance §18.3). pageConflict holds
// the verdicts for pages already read, by vault-relative slash path, so they
// are not read twice.
func inventory(ws *gitvault.Workspace, pageConflict map[string]bool) (Storage, []string) {
	st := Storage{Symlinks: []string{}, UnreadableFiles: []string{}}
	type file struct {
		rel string
		d   fs.DirEntry
	}
	var files []file
	_ = filepath.WalkDir(walkRoot(ws.Vault), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if d != nil && d.IsDir() {
				return filepath.SkipDir // cannot open: skipped silently
			}
			return nil
		}
		rel, _ := filepath.Rel(ws.Vault, p)
		if rel == "." {
			return nil
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			st.Symlinks = append(st.Symlinks, rel)
		case !d.IsDir():
			files = append(files, file{rel, d})
		}
		return nil
	})
	sort.Strings(st.Symlinks)

	// One lstat per file dominates large vaults: run them, and the reads of
	// the Markdown files not already in memory, in parallel.
	infos := make([]fs.FileInfo, len(files))
	conflict := make([]bool, len(files))
	gitvault.Parallel(len(files), func(i int) {
		fi, err := files[i].d.Info()
		if err != nil {
			return // stays nil: unreadable
		}
		infos[i] = fi
		if !fi.Mode().IsRegular() {
			return
		}
		if name := files[i].d.Name(); strings.HasSuffix(name, ".md") {
			if c, ok := pageConflict[filepath.ToSlash(files[i].rel)]; ok {
				conflict[i] = c
				return
			}
			text, ok := readTextNoFollow(filepath.Join(ws.Vault, files[i].rel))
			conflict[i] = ok && gitvault.HasConflictMarker(text)
		}
	})
	conflicts := []string{}
	for i, f := range files {
		fi := infos[i]
		if fi == nil {
			st.UnreadableFiles = append(st.UnreadableFiles, f.rel)
			continue
		}
		if !fi.Mode().IsRegular() {
			continue
		}
		st.TotalFiles++
		st.TotalBytes += fi.Size()
		if _, suffix := gitvault.PySuffix(f.d.Name()); strings.EqualFold(suffix, ".md") {
			st.MarkdownFiles++
		}
		if mt := fi.ModTime(); !st.HasLastModified || mt.After(st.LastModified) {
			st.LastModified, st.HasLastModified = mt, true
		}
		if conflict[i] {
			conflicts = append(conflicts, filepath.ToSlash(f.rel))
		}
	}
	sort.Strings(st.UnreadableFiles)
	sortByComponents(conflicts)
	return st, conflicts
}

// walkRoot returns the path to hand to filepath.WalkDir so that a root
// which is a symlink to a directory is entered, as Python's os.walk and
// rglob enter their top: a trailing separator makes the lstat of the root
// follow the link. Symlinks below the root are still not followed.
func walkRoot(dir string) string {
	if fsx.IsSymlink(dir) {
		return dir + string(filepath.Separator)
	}
	return dir
}

// sortByComponents sorts slash paths component by component, as Python
// sorts Path objects: a/b.md < a-b/c.md < a.md.
func sortByComponents(paths []string) {
	sort.Slice(paths, func(i, j int) bool {
		a, b := strings.Split(paths[i], "/"), strings.Split(paths[j], "/")
		for k := 0; k < len(a) && k < len(b); k++ {
			if a[k] != b[k] {
				return a[k] < b[k]
			}
		}
		return len(a) < len(b)
	})
}

var entryHeading = []string{"### Scratchpad — ", "### Session — "}

// todayEntries counts the daily headings of local today and UTC today
// (echoes-conformance §18.2).
func todayEntries(ws *gitvault.Workspace, t time.Time) int {
	dates := []string{t.Local().Format("2006-01-02")}
	if utc := t.UTC().Format("2006-01-02"); utc != dates[0] {
		dates = append(dates, utc)
	}
	n := 0
	count := func(p string) {
		text, ok := readTextNoFollow(p)
		if !ok {
			return
		}
		for _, line := range strings.Split(text, "\n") {
			for _, h := range entryHeading {
				if strings.HasPrefix(line, h) {
					n++
				}
			}
		}
	}
	for _, date := range dates {
		count(filepath.Join(ws.Daily, date+".md"))
		dir := filepath.Join(ws.Daily, date)
		gitvault.WalkDaily(dir, func(rel string) bool {
			count(filepath.Join(dir, filepath.FromSlash(rel)))
			return true
		})
	}
	return n
}

// stateFileStatus implements echoes-conformance §18.4's stateFile.
func stateFileStatus(ws *gitvault.Workspace) StateFileStatus {
	fi, err := os.Lstat(ws.State)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && fi.Mode()&fs.ModeSymlink != 0 && !statOK(ws.State)) {
		return StateFileStatus{Error: "state file is missing"}
	}
	if err != nil {
		return StateFileStatus{Exists: true, Error: gitvault.OSDetail(err)}
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return StateFileStatus{Exists: true, Error: "state file is a symbolic link"}
	}
	data, err := fsx.ReadFile(ws.State)
	if err != nil {
		return StateFileStatus{Exists: true, Error: gitvault.OSDetail(err)}
	}
	text, err := pytext.DecodeText(data)
	if err != nil {
		return StateFileStatus{Exists: true, Error: gitvault.ReadDetail(err)}
	}
	raw, err := pyjson.Decode(text)
	if err != nil {
		return StateFileStatus{Exists: true, Error: err.Error()}
	}
	if msg := gitvault.StateFileValid(raw); msg != "" {
		return StateFileStatus{Exists: true, Error: msg}
	}
	return StateFileStatus{Exists: true, Valid: true}
}

func optError(s string) pyjson.Value {
	if s == "" {
		return pyjson.NullValue()
	}
	return pyjson.Str(s)
}

// JSON renders the stateFile object.
func (s StateFileStatus) JSON() pyjson.Value {
	return pyjson.ObjectValue(pyjson.NewObj().Set("exists", pyjson.Boolean(s.Exists)).
		Set("valid", pyjson.Boolean(s.Valid)).Set("error", optError(s.Error)))
}

// JSON renders the storage object.
func (s Storage) JSON() pyjson.Value {
	last := pyjson.NullValue()
	if s.HasLastModified {
		last = pyjson.Str(gitvault.LocalTimestamp(s.LastModified))
	}
	return pyjson.ObjectValue(pyjson.NewObj().
		Set("totalBytes", pyjson.Int(s.TotalBytes)).
		Set("totalFiles", pyjson.Int(int64(s.TotalFiles))).
		Set("markdownFiles", pyjson.Int(int64(s.MarkdownFiles))).
		Set("symlinks", pyjson.Strs(s.Symlinks)).
		Set("unreadableFiles", pyjson.Strs(s.UnreadableFiles)).
		Set("lastModified", last))
}

// JSON renders the indexRefresh object of inspect (echoes-conformance §15.6).
func (c IndexCheck) JSON() pyjson.Value {
	sha := pyjson.NullValue()
	if c.Rendered {
		sha = pyjson.Str(c.SHA256)
	}
	return pyjson.ObjectValue(pyjson.NewObj().
		Set("rebuilt", pyjson.Boolean(false)).
		Set("needsRefresh", pyjson.Boolean(c.NeedsRefresh)).
		Set("migratedSummaries", pyjson.Strs(nil)).
		Set("pageCount", pyjson.Int(int64(c.PageCount))).
		Set("sha256", sha))
}

// Integrity is "healthy" or "attention".
func (h *Health) Integrity() string {
	if h.Healthy {
		return "healthy"
	}
	return "attention"
}

// JSON renders the health object in the echoes-conformance §18.1 key order.
func (h *Health) JSON() pyjson.Value {
	o := pyjson.NewObj().
		Set("totalPages", pyjson.Int(int64(h.TotalPages))).
		Set("totalDailyLogs", pyjson.Int(int64(h.TotalDailyLogs))).
		Set("deprecatedPages", pyjson.Int(int64(h.DeprecatedPages))).
		Set("deprecatedSlugs", pyjson.Strs(h.DeprecatedSlugs)).
		Set("indexTopics", pyjson.Int(int64(h.IndexTopics))).
		Set("generatedIndex", pyjson.Boolean(true)).
		Set("protocolVersion", pyjson.Str(gitvault.ProtocolVersion)).
		Set("engineVersion", pyjson.Str(gitvault.EngineVersion)).
		Set("managedAdapterVersion", pyjson.Str(gitvault.ManagedAdapterVersion)).
		Set("codexAdapterVersion", pyjson.Str(gitvault.ManagedAdapterVersion)).
		Set("initialized", pyjson.Boolean(h.Initialized)).
		Set("legacyVaultDetected", pyjson.Boolean(h.LegacyVaultDetected))
	keys := []string{"missingStructure", "invalidFrontmatter", "duplicateIndexEntries", "emptyDescriptions",
		"orphanPages", "missingPages", "conflictMarkers", "indexBuildErrors", "indexOutOfDate", "symbolicLinks",
		"unreadableFiles", "adapterConfiguration", "gitReadiness", "outdatedRuntime"}
	for i, p := range h.problems()[:len(keys)] {
		o.Set(keys[i], pyjson.Strs(p.items))
	}
	if len(h.UnsafePageNames) > 0 {
		o.Set("unsafePageNames", pyjson.Strs(h.UnsafePageNames))
	}
	o.Set("todayEntries", pyjson.Int(int64(h.TodayEntries))).
		Set("scaleAlert", pyjson.Boolean(h.ScaleAlert)).
		Set("integrity", pyjson.Str(h.Integrity())).
		Set("issueCount", pyjson.Int(int64(h.IssueCount))).
		Set("stateFile", h.StateFile.JSON()).
		Set("marker", h.Marker.JSON()).
		Set("projectRuntime", h.Runtime.JSON()).
		Set("git", h.Git.JSON()).
		Set("storage", h.Storage.JSON())
	if h.Lock != nil {
		o.Set("lock", h.Lock.JSON()) // after the reference's keys (issue 11 item 2)
	}
	if len(h.IrregularFiles) > 0 {
		o.Set("irregularFiles", pyjson.Strs(h.IrregularFiles))
	}
	return pyjson.ObjectValue(o)
}

// JSON renders the full inspect result (echoes-conformance §15.6).
func (in *Inspection) JSON() pyjson.Value {
	return pyjson.ObjectValue(pyjson.NewObj().
		Set("ok", pyjson.Boolean(true)).
		Set("workspace", pyjson.Str(in.Workspace)).
		Set("vault", pyjson.Str(in.Vault)).
		Set("state", in.State.JSON()).
		Set("indexRefresh", in.Refresh.JSON()).
		Set("health", in.Health.JSON()))
}

// statOK reports whether p exists, following symlinks.
func statOK(p string) bool { _, err := os.Stat(p); return err == nil }

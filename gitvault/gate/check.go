package gate

import (
	"fmt"
	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/internal/workpool"
	"path"
	"runtime"
	"sort"
	"strings"

	"github.com/git-echoes/git-echoes/internal/frontmatter"
	"github.com/git-echoes/git-echoes/internal/gitrepo"
	"github.com/git-echoes/git-echoes/internal/pyjson"
	"github.com/git-echoes/git-echoes/internal/pytext"
	"github.com/git-echoes/git-echoes/internal/winname"
)

// CheckSource selects the snapshot that `git echoes check` validates
// (design §one-snapshot-abstraction-three-sources).
type CheckSource int

const (
	// CheckWorkTree validates the files on disk.
	CheckWorkTree CheckSource = iota
	// CheckStaged validates the blobs of the Git index ($GIT_INDEX_FILE
	// when set): exactly what the next commit will contain.
	CheckStaged
	// CheckRev validates the tree of a commit, read from the object store.
	CheckRev
)

// String is the source's name in check reports.
func (s CheckSource) String() string {
	switch s {
	case CheckStaged:
		return "staged"
	case CheckRev:
		return "rev"
	}
	return "worktree"
}

// Rule ids of check findings. They are stable: CI annotations and scripts
// match on them.
const (
	rulePageInvalid        = "page-invalid"
	ruleNameCollision      = "name-collision"
	ruleConflictMarker     = "conflict-marker"
	ruleUnmergedPath       = "unmerged-path"
	ruleLocalOnlyCommitted = "local-only-committed"
	ruleMarkerInvalid      = "marker-invalid"
	ruleMarkerMissing      = "marker-missing"
	ruleUntrackedDurable   = "untracked-durable"
	// ruleWindowsName reports a vault path that cannot exist on Windows
	// (internal/winname): git checkout fails there for every Windows clone,
	// so CI on any OS must catch it before it lands (issue 8).
	ruleWindowsName = "windows-name"
	// ruleUnsafeName reports a page whose name holds a control, line-separator or
	// bidi-control character, which the index and the start context copy verbatim
	// (issue 11 item 6; unsafenames.go).
	ruleUnsafeName = "unsafe-name"
)

// CheckOptions configure Check.
type CheckOptions struct {
	Source CheckSource
	// Rev is the revision for CheckRev, or a range A..B (A...B): the gate
	// then checks B and adds rule memory-stale over the commits from the
	// merge base of A and B to B (check_freshness.go).
	Rev string
	// RequireTracked also reports durable vault files of the work tree
	// that the index does not hold (untracked or ignored), so a commit
	// cannot silently leave a new page behind.
	RequireTracked bool
	// Strict makes warnings fail the gate too (CheckResult.OK).
	Strict bool
}

// Finding is one reason the snapshot must not be committed or merged.
type Finding struct {
	Path    string // slash-separated, relative to the workspace
	Line    int    // 1-based; 0 when the finding is about the whole file
	Rule    string
	Message string
}

// CheckResult is the outcome of Check.
type CheckResult struct {
	Source   CheckSource
	Rev      string // as requested, for CheckRev
	Vault    bool   // the snapshot holds an EchoesVault (or local-only files)
	Pages    int    // pages listed in the snapshot
	Memories int    // team memory documents (.ecc/memory/team/) the readers would read
	Strict   bool   // warnings fail too
	Findings []Finding
	// Base and Head are the merge base and the gated commit when Rev is a
	// range (memory-stale was computed over Base..Head); "" otherwise.
	Base, Head string
}

// OK reports whether the snapshot passed: no error findings, and with
// Strict no warnings either.
func (r *CheckResult) OK() bool {
	if r.Strict {
		return len(r.Findings) == 0
	}
	return r.Errors() == 0
}

// Errors counts the findings of severity error.
func (r *CheckResult) Errors() int { return len(r.Findings) - r.Warnings() }

// Warnings counts the findings of severity warning.
func (r *CheckResult) Warnings() int {
	n := 0
	for _, f := range r.Findings {
		if f.Severity() == SeverityWarning {
			n++
		}
	}
	return n
}

// JSON renders {"ok", "source", ["rev",] "vault", "pages", "findings"};
// each finding is {"path", "line", "rule", "severity", "message"}.
func (r *CheckResult) JSON() pyjson.Value {
	o := pyjson.NewObj().Set("ok", pyjson.Boolean(r.OK())).Set("source", pyjson.Str(r.Source.String()))
	if r.Source == CheckRev {
		o.Set("rev", pyjson.Str(r.Rev))
		if r.Base != "" {
			o.Set("range", pyjson.ObjectValue(pyjson.NewObj().Set("base", pyjson.Str(r.Base)).Set("head", pyjson.Str(r.Head))))
		}
	}
	o.Set("vault", pyjson.Boolean(r.Vault)).Set("pages", pyjson.Int(int64(r.Pages)))
	fs := make([]pyjson.Value, len(r.Findings))
	for i, f := range r.Findings {
		fs[i] = pyjson.ObjectValue(pyjson.NewObj().
			Set("path", pyjson.Str(f.Path)).
			Set("line", pyjson.Int(int64(f.Line))).
			Set("rule", pyjson.Str(f.Rule)).
			Set("severity", pyjson.Str(f.Severity().String())).
			Set("message", pyjson.Str(f.Message)))
	}
	return pyjson.ObjectValue(o.Set("findings", pyjson.Arr(fs...)))
}

// Check validates one snapshot of the workspace's vault. It never writes.
// Findings are the snapshot's problems; an error means the snapshot could
// not be read at all (not a Git work tree, unreadable repository, unknown
// revision), which callers must treat as a failure too: the gate fails
// closed.
func Check(e *gitvault.Engine, opt CheckOptions) (*CheckResult, error) {
	ws := e.WS
	needGit := opt.Source != CheckWorkTree || opt.RequireTracked
	if needGit && !ws.InGit {
		return nil, gitvault.Errorf("Not inside a Git work tree: %s", ws.Root)
	}
	var repo *gitrepo.Repo
	if ws.InGit {
		var err error
		if repo, err = gitrepo.Open(ws.Root); err != nil {
			return nil, gitvault.Wrapf(err, "Cannot read the Git repository: %s", err.Error())
		}
	}
	var snap *gitvault.Snapshot
	var err error
	treeRev, base, head := opt.Rev, "", ""
	if opt.Source == CheckRev {
		a, b, isRange, err := splitRange(opt.Rev)
		if err != nil {
			return nil, err
		}
		if isRange {
			if base, head, err = rangeBase(repo, a, b); err != nil {
				return nil, err
			}
			treeRev = head
		}
	}
	switch opt.Source {
	case CheckWorkTree:
		snap, err = gitvault.WorkTreeSnapshot(ws, repo)
	case CheckStaged:
		snap, err = gitvault.IndexSnapshot(repo)
	case CheckRev:
		snap, err = gitvault.TreeSnapshot(repo, treeRev)
	default:
		err = fmt.Errorf("unknown check source %d", opt.Source)
	}
	if err != nil {
		what := map[CheckSource]string{CheckWorkTree: "the work tree", CheckStaged: "the Git index",
			CheckRev: "revision " + pyjson.ReprString(opt.Rev)}[opt.Source]
		return nil, gitvault.Wrapf(err, "Cannot read %s: %s", what, err.Error())
	}
	res := &CheckResult{Source: opt.Source, Rev: opt.Rev, Strict: opt.Strict, Base: base, Head: head}
	res.Findings = validate(snap, opt.Source)
	if base != "" && snap.HasVault() {
		stale, err := staleFindings(repo, base, head, snap)
		if err != nil {
			return nil, err
		}
		res.Findings = append(res.Findings, stale...)
	}
	res.Vault = snap.HasVault() || len(snap.LocalOnly) > 0
	res.Pages = len(snap.Pages)
	res.Memories = snap.Gate.Documents
	if opt.RequireTracked && snap.HasVault() {
		g, err := gitvault.ReadReadiness(repo, ws.DurableCandidates())
		if err != nil {
			return nil, gitvault.Wrapf(err, "Cannot read the Git repository: %s", err.Error())
		}
		for _, p := range g.UntrackedDurableFiles {
			res.Findings = append(res.Findings, Finding{Path: p, Rule: ruleUntrackedDurable,
				Message: "durable vault file is not tracked by Git; run: git add -- " + gitvault.ShellQuote(p)})
		}
		for _, p := range g.IgnoredDurableFiles {
			res.Findings = append(res.Findings, Finding{Path: p, Rule: ruleUntrackedDurable,
				Message: "durable vault file is ignored and not tracked by Git; run: git add -f -- " + gitvault.ShellQuote(p)})
		}
	}
	sortFindings(res.Findings)
	return res, nil
}

func sortFindings(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Rule < b.Rule
	})
}

// markerFromBytes interprets marker bytes as ReadMarker interprets the file
// (echoes-conformance §7.2).
func markerFromBytes(data []byte) gitvault.MarkerRead {
	text, err := pytext.DecodeText(data)
	if err != nil {
		return gitvault.MarkerRead{Exists: true, Err: gitvault.Wrapf(err, "Invalid EchoesVault marker: %s", err.Error())}
	}
	v, err := pyjson.Decode(text)
	if err != nil {
		return gitvault.MarkerRead{Exists: true, Err: gitvault.Wrapf(err, "Invalid EchoesVault marker: %s", err.Error())}
	}
	if v.Kind != pyjson.Object {
		return gitvault.MarkerRead{Exists: true, Err: gitvault.Errorf("Invalid EchoesVault marker: root must be an object.")}
	}
	return gitvault.MarkerRead{Exists: true, Value: v}
}

// validate runs every content rule over the snapshot.
func validate(s *gitvault.Snapshot, src CheckSource) []Finding {
	secrets := newSecretGate(s)
	out := secrets.findings
	for _, p := range s.LocalOnly {
		out = append(out, Finding{Path: p, Rule: ruleLocalOnlyCommitted,
			Message: "local-only file is " + s.LocalVerb + "; it must never be committed (run: git rm --cached -- " + gitvault.ShellQuote(p) + ")"})
	}
	out = append(out, memoryFindings(s, secrets)...)
	if !s.HasVault() {
		return out
	}
	for _, p := range s.Unmerged {
		out = append(out, Finding{Path: p, Rule: ruleUnmergedPath,
			Message: "unresolved merge conflict: resolve the file, then git add it"})
	}
	out = append(out, markerFindings(s, src)...)
	out = append(out, snapshotWindowsNameFindings(s)...)
	out = append(out, unsafeNameFindings(s)...)
	out = append(out, collisionFindings(s)...)
	out = append(out, contentFindings(s, secrets)...)
	out = append(out, otherSecretFindings(s, secrets)...)
	return out
}

const markerPath = gitvault.VaultPrefix + ".echoes-vault.json"

func markerFindings(s *gitvault.Snapshot, src CheckSource) []Finding {
	f, ok := s.File(markerPath)
	if !ok {
		if len(s.Files) == 0 {
			return nil // only unmerged paths: reported already
		}
		return []Finding{{Path: markerPath, Rule: ruleMarkerMissing,
			Message: "EchoesVault has no protocol marker (a legacy or uninitialized vault); run the echoes-init workflow (git echoes migrate)"}}
	}
	// On disk the engine follows a symlinked marker (confinement is checked
	// at workspace resolution); in Git a symlink's blob is its target path.
	if !f.Regular && src != CheckWorkTree {
		return []Finding{{Path: markerPath, Rule: ruleMarkerInvalid, Message: "Invalid EchoesVault marker: not a regular file"}}
	}
	data, err := f.Read()
	var m gitvault.MarkerRead
	if err != nil {
		m = gitvault.MarkerRead{Exists: true, Err: gitvault.Wrapf(err, "Invalid EchoesVault marker: %s", gitvault.OSDetail(err))}
	} else {
		m = markerFromBytes(data)
	}
	if m.Err != nil {
		return []Finding{{Path: markerPath, Rule: ruleMarkerInvalid, Message: m.Err.Msg}}
	}
	if gate, _ := m.Problems(); gate != "" {
		return []Finding{{Path: markerPath, Rule: ruleMarkerInvalid, Message: gate}}
	}
	return nil
}

// windowsNameFindings reports every vault path of the snapshot (pages,
// daily entries, assets, raw sources, unmerged paths) with a component that
// cannot exist on Windows. A bad directory is reported once, at its own
// path, however many files it holds.
func snapshotWindowsNameFindings(s *gitvault.Snapshot) []Finding {
	return windowsNameFindings(func(report func(string)) {
		for _, f := range s.Files {
			report(f.Path)
		}
		for _, p := range s.Unmerged {
			report(p)
		}
	})
}

// windowsNameFindings reports the paths that each(report) lists with a
// component that cannot exist on Windows, each bad prefix once.
func windowsNameFindings(each func(report func(string))) []Finding {
	var out []Finding
	seen := map[string]bool{}
	report := func(p string) {
		prefix, reason := winname.PathReason(p)
		if prefix == "" || seen[prefix] {
			return
		}
		seen[prefix] = true
		out = append(out, Finding{Path: prefix, Rule: ruleWindowsName,
			Message: "name cannot exist on Windows: " + pyjson.ReprString(path.Base(prefix)) + " (" + reason +
				"); git checkout fails for every Windows clone, so rename it"})
	}
	each(report)
	return out
}

// unsafeNameFindings reports every page whose name the writers would refuse
// (RefuseUnsafePageName): one another engine created, or a file added by hand.
func unsafeNameFindings(s *gitvault.Snapshot) []Finding {
	var out []Finding
	for _, n := range s.Pages {
		if d := gitvault.UnsafeNameDetail(n); d != "" {
			out = append(out, Finding{Path: gitvault.VaultPrefix + "pages/" + n, Rule: ruleUnsafeName,
				Message: "page name " + pyjson.ReprString(n) + " holds " + d +
					"; index.md and the session context copy it verbatim, so rename the page"})
		}
	}
	return out
}

// collisionFindings applies echoes-conformance §8.3 to the whole listing and reports every
// colliding page, not only the first pair.
func collisionFindings(s *gitvault.Snapshot) []Finding {
	var out []Finding
	seen := make(map[string]string, len(s.Pages))
	for _, n := range s.Pages {
		stem := pytext.NFC(gitvault.PageStem(n))
		key := pytext.Casefold(stem)
		if first, ok := seen[key]; ok {
			out = append(out, Finding{Path: gitvault.VaultPrefix + "pages/" + n, Rule: ruleNameCollision,
				Message: "Page filenames collide across filesystems: " + pyjson.ReprString(first) + " and " + pyjson.ReprString(stem) + "."})
			continue
		}
		seen[key] = stem
	}
	return out
}

// contentFindings validates every page (echoes-conformance §9) and searches every other
// EchoesVault/**/*.md file for conflict markers, in parallel. The same read
// scans for credentials (protocol §17) and collects the wikilinks of pages
// and daily entries (protocol §7.4), which are resolved against the whole
// snapshot afterwards.
func contentFindings(s *gitvault.Snapshot, secrets *secretGate) []Finding {
	pageOf := make(map[int]string, len(s.Pages))
	for name, i := range s.PageFile {
		pageOf[i] = name
	}
	var todo []int
	for i, f := range s.Files {
		if f.Regular && gitvault.IsPageFileName(path.Base(f.Path)) {
			todo = append(todo, i)
		}
	}
	results := make([]fileCheck, len(todo))
	workpool.Each(len(todo), runtime.GOMAXPROCS(0), func() func(int) {
		return func(k int) {
			i := todo[k]
			name, isPage := pageOf[i]
			results[k] = checkFile(secrets, s.Files[i], name, isPage)
		}
	})
	var out []Finding
	var resolver *linkResolver
	for k, r := range results {
		out = append(out, r.findings...)
		if len(r.links) == 0 {
			continue
		}
		if resolver == nil {
			resolver = newLinkResolver(s)
		}
		out = append(out, linkFindings(s.Files[todo[k]].Path, r.links, resolver)...)
	}
	return out
}

// fileCheck is what checkFile finds in one file.
type fileCheck struct {
	findings []Finding
	links    []wikiLink
}

// linkFindings reports the links of one file whose target is missing, each
// target once (at its first line).
func linkFindings(p string, links []wikiLink, r *linkResolver) []Finding {
	var out []Finding
	seen := map[string]bool{}
	for _, l := range links {
		key := fold(l.Target)
		if l.Embed {
			key = "!" + key
		}
		if seen[key] {
			continue
		}
		seen[key] = true
		ok, rule := r.resolves(l)
		if ok {
			continue
		}
		if rule == ruleAssetMissing {
			out = append(out, Finding{Path: p, Line: l.Line, Rule: rule,
				Message: "embed " + pyjson.ReprString("![["+l.Text+"]]") + " names a file missing from " + gitvault.VaultPrefix + "assets/"})
			continue
		}
		mark := "[["
		if l.Embed {
			mark = "![["
		}
		// repr: the link text is page content, which may hold control or
		// bidi characters; repr escapes them.
		out = append(out, Finding{Path: p, Line: l.Line, Rule: rule,
			Message: "link " + pyjson.ReprString(mark+l.Text+"]]") + " names no page of the vault"})
	}
	return out
}

// scansLinks reports whether the file's wikilinks are checked: pages and
// daily entries (AGENT_PROTOCOL.md holds example links, raw/ holds sources).
func scansLinks(p string) bool {
	return strings.HasPrefix(p, gitvault.VaultPrefix+"pages/") || strings.HasPrefix(p, gitvault.VaultPrefix+"daily/")
}

func checkFile(secrets *secretGate, f gitvault.SnapFile, name string, isPage bool) fileCheck {
	data, err := f.Read()
	if err != nil {
		return fileCheck{findings: []Finding{{Path: f.Path, Rule: rulePageInvalid, Message: "Cannot read " + f.Path + ": " + gitvault.ReadDetail(err)}}}
	}
	text, decodeErr := pytext.DecodeText(data)
	if decodeErr != nil {
		if isPage {
			return fileCheck{findings: append([]Finding{{Path: f.Path, Rule: rulePageInvalid, Message: "Cannot read page " + name + ": " + gitvault.ReadDetail(decodeErr)}},
				secrets.scan(f.Path, string(data))...)}
		}
		// Conflict markers and credentials are ASCII: look for them in the raw bytes.
		text = string(data)
	}
	var res fileCheck
	if f.Path != gitvault.LocalOnlyFiles[0] { // index.md: generated from the summaries, and local-only
		res.findings = secrets.scan(f.Path, text)
	}
	if scansLinks(f.Path) && decodeErr == nil {
		res.links = scanWikilinks(text)
	}
	if markers := frontmatter.FindConflictMarkers(text); len(markers) > 0 {
		for _, m := range markers {
			res.findings = append(res.findings, Finding{Path: f.Path, Line: m.Line, Rule: ruleConflictMarker,
				Message: "unresolved Git conflict marker " + pyjson.ReprString(m.Text)})
		}
		return res
	}
	if !isPage {
		return res
	}
	if _, err := gitvault.ParsePage(text, true, false); err != nil {
		res.findings = append(res.findings, Finding{Path: f.Path, Rule: rulePageInvalid, Message: "Invalid page " + name + ": " + gitvault.ErrorMessage(err)})
	}
	res.findings = append(res.findings, sourceFindings(f.Path, text)...)
	return res
}

// ScanSecrets is the gate's credential scan (rule "secret" of `git echoes
// check`) over one text: the lines holding a known credential shape, by
// family, never the value. The importer (gitvault/importer) calls this one,
// not the memory vault's, so that it refuses exactly what the gate would
// refuse.
func ScanSecrets(path, text string) []Finding {
	return newSecretGate(&gitvault.Snapshot{}).scan(path, text)
}

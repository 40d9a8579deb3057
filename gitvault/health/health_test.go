package health

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/gitvault/setup"
	"github.com/git-echoes/git-echoes/internal/gitrepo/gitrepotest"
	"github.com/git-echoes/git-echoes/internal/pyjson"
	"github.com/git-echoes/git-echoes/internal/testenv"
)

func page(summary, status string) string {
	return "---\ntype: note\nstack: go\nstatus: " + status + "\nsummary: " + summary + "\n---\nBody.\n"
}

// initVault creates an initialized vault in a fresh directory outside Git.
func initVault(t testing.TB) *gitvault.Engine {
	t.Helper()
	e, err := gitvault.Open(gitvault.Options{Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := setup.Install(e, "init"); err != nil {
		t.Fatal(err)
	}
	return e
}

func TestInspectIsReadOnly(t *testing.T) {
	e := initVault(t)
	root := e.WS.Root
	// Every kind of trouble inspect must report without touching anything.
	testenv.WriteFile(t, filepath.Join(root, "EchoesVault/pages/bad.md"), "---\ntype: \xff\n---\n")
	testenv.WriteFile(t, filepath.Join(root, "EchoesVault/pages/conflict.md"), page("C", "active")+"<<<<<<< HEAD\n")
	testenv.WriteFile(t, filepath.Join(root, "EchoesVault/daily/2026-01-01/x.md"), "=======\r\n")
	testenv.SymlinkOrSkip(t, "pages", filepath.Join(root, "EchoesVault", "link"))
	if err := os.Remove(e.WS.State); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(e.WS.Index); err != nil {
		t.Fatal(err)
	}
	before := testenv.TreeState(t, root)
	in := Inspect(e)
	_ = in.Card()
	_ = pyjson.Pretty(in.JSON())
	if after := testenv.TreeState(t, root); !reflect.DeepEqual(before, after) {
		t.Fatalf("inspect changed the workspace:\nbefore %v\nafter  %v", before, after)
	}
	h := in.Health
	if !reflect.DeepEqual(h.InvalidFrontmatter, []string{"bad", "conflict"}) {
		t.Errorf("invalidFrontmatter = %q", h.InvalidFrontmatter)
	}
	if !reflect.DeepEqual(h.IndexBuildErrors, []string{"Cannot read page bad.md: invalid UTF-8"}) {
		t.Errorf("indexBuildErrors = %q", h.IndexBuildErrors)
	}
	if !reflect.DeepEqual(h.ConflictMarkers, []string{"daily/2026-01-01/x.md", "pages/conflict.md"}) {
		t.Errorf("conflictMarkers = %q", h.ConflictMarkers)
	}
	if !reflect.DeepEqual(h.SymbolicLinks, []string{"link"}) {
		t.Errorf("symbolicLinks = %q", h.SymbolicLinks)
	}
	if h.StateFile != (StateFileStatus{Error: "state file is missing"}) {
		t.Errorf("stateFile = %+v", h.StateFile)
	}
	if !reflect.DeepEqual(h.MissingStructure, []string{"index.md"}) {
		t.Errorf("missingStructure = %q", h.MissingStructure)
	}
	if in.Refresh.Rendered || in.Refresh.PageCount != 2 {
		t.Errorf("indexRefresh = %+v", in.Refresh)
	}
	// 2 invalid + 2 orphans + 2 conflicts + 1 build error + 1 symlink + missing index.md, + state.
	if h.Healthy || h.IssueCount != 10 {
		t.Errorf("healthy=%v issueCount=%d", h.Healthy, h.IssueCount)
	}
}

func TestConflictMarkersAnyNewlineSortedByComponents(t *testing.T) {
	e := initVault(t)
	root := e.WS.Root
	files := map[string]string{
		"EchoesVault/a.md":        "x\n=======\n",     // LF
		"EchoesVault/a/b.md":      "x\r\n=======\r\n", // CRLF
		"EchoesVault/a-b/c.md":    "x\r>>>>>>> y\r",   // CR only
		"EchoesVault/raw/ok.md":   "==========\n",     // not a marker
		"EchoesVault/raw/up.MD":   "=======\n",        // suffix is case-sensitive
		"EchoesVault/raw/bin.md":  "=======\n\xff",    // not text: skipped
		"EchoesVault/assets/d.md": "<<<<<<<\n",
	}
	for rel, c := range files {
		testenv.WriteFile(t, filepath.Join(root, rel), c)
	}
	got := Inspect(e).Health.ConflictMarkers
	want := []string{"a/b.md", "a-b/c.md", "a.md", "assets/d.md"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("conflictMarkers = %q, want %q", got, want)
	}
}

func TestIndexEntries(t *testing.T) {
	e := initVault(t)
	root := e.WS.Root
	testenv.WriteFile(t, filepath.Join(root, "EchoesVault/pages/alpha.md"), page("Alpha", "active"))
	testenv.WriteFile(t, filepath.Join(root, "EchoesVault/pages/old.md"), page("Old", "Deprecated"))
	testenv.WriteFile(t, filepath.Join(root, "EchoesVault/index.md"), "# x\n- [[alpha]]: A\n- [[ghost]]:\n- [[alpha]]: again\n- [[ghost]]:   \n- [[alpha]]: third\n")
	h := Inspect(e).Health
	check := func(name string, got, want []string) {
		t.Helper()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	if h.IndexTopics != 5 {
		t.Errorf("indexTopics = %d", h.IndexTopics)
	}
	check("duplicateIndexEntries", h.DuplicateIndexEntries, []string{"alpha", "ghost"})
	check("emptyDescriptions", h.EmptyDescriptions, []string{"ghost", "ghost"})
	check("orphanPages", h.OrphanPages, []string{"old"})
	check("missingPages", h.MissingPages, []string{"ghost"})
	check("deprecatedSlugs", h.DeprecatedSlugs, []string{"old"})
	check("indexOutOfDate", h.IndexOutOfDate, []string{"index.md"})
}

func TestScaleAlert(t *testing.T) {
	e := initVault(t)
	for i := 0; i <= gitvault.ScaleAlertPages; i++ {
		testenv.WriteFile(t, filepath.Join(e.WS.Root, "EchoesVault/pages/p"+strconv.Itoa(i)+".md"), page("Page "+strconv.Itoa(i), "active"))
	}
	in := Inspect(e)
	if !in.Health.ScaleAlert || in.Health.TotalPages != 201 {
		t.Fatalf("scaleAlert=%v totalPages=%d", in.Health.ScaleAlert, in.Health.TotalPages)
	}
	if !strings.Contains(in.Card(), "\n\n> Scale alert: more than 200 pages; prefer targeted search.\n\nActions: ") {
		t.Fatalf("card without scale alert:\n%s", in.Card())
	}
}

func TestFormatBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KB", 1536: "1.5 KB",
		1048575: "1024.0 KB", 1048576: "1.0 MB", 1310720: "1.2 MB", 1 << 40: "1.0 TB", 1 << 50: "1024.0 TB"} {
		if got := formatBytes(n); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestOutdatedRuntimeWording(t *testing.T) {
	v := func(a, b, c int) *[3]int { return &[3]int{a, b, c} }
	cases := []struct {
		rs   gitvault.RuntimeStatus
		want []string
	}{
		{gitvault.RuntimeStatus{Compatible: true, Engine: v(1, 1, 1)}, []string{}},
		{gitvault.RuntimeStatus{Compatible: true, Engine: v(1, 0, 9)}, []string{"project engine 1.0.9 is older than available engine 1.1.1"}},
		{gitvault.RuntimeStatus{Compatible: true, Engine: v(1, 2, 0)}, []string{"project engine 1.2.0 is newer than available engine 1.1.1"}},
		{gitvault.RuntimeStatus{Compatible: true}, []string{"project engine None is older than available engine 1.1.1"}},
		{gitvault.RuntimeStatus{Engine: v(9, 9, 9)}, []string{}},
	}
	for _, c := range cases {
		if got := outdatedRuntime(c.rs); !reflect.DeepEqual(got, c.want) {
			t.Errorf("outdatedRuntime(%v) = %q, want %q", gitvault.VersionString(c.rs.Engine), got, c.want)
		}
	}
}

func TestStateFileStatus(t *testing.T) {
	e := initVault(t)
	cases := map[string]string{
		"{":              "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)",
		"[]":             "state root is not an object",
		`{"version": 3}`: "unsupported state version: 3",
		`{"version": 4.0, "protocolVersion": "1.0.0", "engineVersion": "1.x"}`:   "state engine mismatch: '1.x'",
		`{"version": 4.0, "protocolVersion": "1.0.0", "engineVersion": "1.2.0"}`: "state lastWriter must be an object",
		`{"version": 4, "protocolVersion": "1.0.0", "engineVersion": "1.1.1"}`:   "state lastWriter must be an object",
		"\xff": "invalid UTF-8",
	}
	for content, want := range cases {
		testenv.WriteFile(t, filepath.Join(e.WS.Root, ".echoes-vault/state.json"), content)
		if got := stateFileStatus(e.WS); got != (StateFileStatus{Exists: true, Error: want}) {
			t.Errorf("state %q: %+v, want error %q", content, got, want)
		}
	}
	os.Remove(e.WS.State)
	testenv.SymlinkOrSkip(t, "nowhere", e.WS.State)
	if got := stateFileStatus(e.WS); got.Exists || got.Error != "state file is missing" {
		t.Errorf("dangling symlink: %+v", got)
	}
	testenv.WriteFile(t, filepath.Join(e.WS.Root, ".echoes-vault/real.json"), "{}")
	os.Remove(e.WS.State)
	testenv.SymlinkOrSkip(t, "real.json", e.WS.State)
	if got := stateFileStatus(e.WS); !got.Exists || got.Error != "state file is a symbolic link" {
		t.Errorf("symlink: %+v", got)
	}
}

func TestAdapterConfigurationAndStructure(t *testing.T) {
	e := initVault(t)
	root := e.WS.Root
	testenv.WriteFile(t, filepath.Join(root, ".opencode/commands/echoes-start.md"), "my own command\n")
	testenv.WriteFile(t, filepath.Join(root, ".opencode/skills/echoes-search-vault-pages/SKILL.md"), gitvault.GeneratedMarker+"\n")
	testenv.WriteFile(t, filepath.Join(root, "AGENTS.md"), "no managed block\n")
	h := Inspect(e).Health
	want := []string{filepath.Join(".opencode", "commands", "echoes-start.md"),
		filepath.Join(".opencode", "skills", "echoes-search-vault-pages", "SKILL.md")}
	if !reflect.DeepEqual(h.AdapterConfiguration, want) {
		t.Errorf("adapterConfiguration = %q", h.AdapterConfiguration)
	}
	if !reflect.DeepEqual(h.MissingStructure, []string{".opencode/commands/echoes-start.md", "AGENTS.md"}) {
		t.Errorf("missingStructure = %q", h.MissingStructure)
	}
}

func TestTodayEntries(t *testing.T) {
	e := initVault(t)
	today := gitvault.Now().UTC().Format("2006-01-02")
	testenv.WriteFile(t, filepath.Join(e.WS.Root, "EchoesVault/daily/"+today+".md"), "### Session — x\n### Scratchpad — y\n#### Session — no\n")
	testenv.WriteFile(t, filepath.Join(e.WS.Root, "EchoesVault/daily/"+today+"/a.md"), "### Scratchpad — z\r\n")
	testenv.WriteFile(t, filepath.Join(e.WS.Root, "EchoesVault/daily/2000-01-01/a.md"), "### Scratchpad — old\n")
	if got := Inspect(e).Health.TodayEntries; got != 3 {
		t.Fatalf("todayEntries = %d, want 3", got)
	}
}

func TestCards(t *testing.T) {
	e, err := gitvault.Open(gitvault.Options{Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	in := Inspect(e)
	want := "### EchoesVault · ○ Not initialized\n\n| Storage | Knowledge | Session |\n|---|---|---|\n" +
		"| 0 B · 0 files | 0 pages · 0 logs | not started |\n\n" +
		"Choose **Initialize or restore EchoesVault** to create local Markdown memory.\n\n" +
		"Actions: **Initialize or restore** · **Show vault status** · **Save this session**\n"
	if got := in.Card(); got != want {
		t.Fatalf("card:\n%s\nwant:\n%s", got, want)
	}
	// Attention details keep the echoes-conformance §19 order, with the invalid state last.
	h := Health{Initialized: true, IssueCount: 4, MissingStructure: []string{"a"}, OutdatedRuntime: []string{"b"},
		GitReadinessIssues: []string{"c", "d"}}
	in = &Inspection{State: &gitvault.State{Started: pyjson.Int(1), Saved: pyjson.Str("")}, Health: h}
	if got := in.Card(); !strings.Contains(got, "| 0 B · 0 files | 0 pages · 0 logs | active |\n\nProtocol: 1.0.0 · engine: 1.1.1.\n\n"+
		"Integrity: missing structure: 1; Git readiness issues: 2; outdated project runtime: 1; invalid runtime state.\n") ||
		!strings.HasPrefix(got, "### EchoesVault · △ Needs attention (4)\n") {
		t.Fatalf("attention card:\n%s", got)
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"EchoesVault/pages/a_b-c.md": "EchoesVault/pages/a_b-c.md",
		"a@b%c+d=e:f,g":              "a@b%c+d=e:f,g",
		"":                           "''",
		"my page (1).md":             "'my page (1).md'",
		"it's.bin":                   `'it'"'"'s.bin'`,
		"café.md":                    "'café.md'",
		"$HOME":                      "'$HOME'",
	} {
		if got := gitvault.ShellQuote(in); got != want {
			t.Errorf("ShellQuote(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestReadinessMatchesGit checks the readiness sets against git itself:
// untracked against `git ls-files --others --exclude-standard`, ignored
// against `git check-ignore --no-index`, in a repository with nested
// .gitignore files, info/exclude, core.excludesFile and a negation below an
// excluded directory.
func TestReadinessMatchesGit(t *testing.T) {
	sb := gitrepotest.New(t)
	top := sb.Init(filepath.Join(t.TempDir(), "repo"))
	e, err := gitvault.Open(gitvault.Options{Workspace: top})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := setup.Install(e, "init"); err != nil {
		t.Fatal(err)
	}
	// "~/" keeps the value meaningful to both sides when git is a bridge to
	// another OS's git (the Windows tests under wine), and covers git's
	// home expansion.
	if err := os.WriteFile(filepath.Join(sb.Home, "excludes"), []byte("*.tmp\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sb.Git(top, "config", "core.excludesFile", "~/excludes")
	testenv.WriteFile(t, filepath.Join(top, ".git/info/exclude"), "*.bin\n")
	testenv.WriteFile(t, filepath.Join(top, "EchoesVault/raw/.gitignore"), "drafts/\n!drafts/keep.md\n")
	for _, rel := range []string{"EchoesVault/raw/drafts/keep.md", "EchoesVault/raw/a.tmp", "EchoesVault/assets/x.bin",
		"EchoesVault/assets/.hidden", "EchoesVault/daily/2026-01-01/e.md", "EchoesVault/pages/p.md"} {
		testenv.WriteFile(t, filepath.Join(top, rel), "x\n")
	}
	sb.Git(top, "add", "-f", "--", "EchoesVault/assets/x.bin", ".echoes-vault/state.json")

	g := e.WS.GitReadiness()
	durable := e.WS.DurableCandidates()
	var wantUntracked []string
	for _, line := range strings.Split(strings.TrimSpace(sb.Git(top, "ls-files", "--others", "--exclude-standard")), "\n") {
		for _, d := range durable {
			if d == line {
				wantUntracked = append(wantUntracked, line)
			}
		}
	}
	if !reflect.DeepEqual(g.UntrackedDurableFiles, wantUntracked) {
		t.Errorf("untracked = %q\ngit      = %q", g.UntrackedDurableFiles, wantUntracked)
	}
	out, _ := sb.Run(top, nil, nil, append([]string{"check-ignore", "--no-index", "--"}, durable...)...)
	var wantIgnored []string
	for _, line := range strings.Fields(out) {
		if line != "EchoesVault/assets/x.bin" { // tracked: the Quirk fix drops it
			wantIgnored = append(wantIgnored, line)
		}
	}
	if !reflect.DeepEqual(g.IgnoredDurableFiles, wantIgnored) {
		t.Errorf("ignored = %q\ngit     = %q", g.IgnoredDurableFiles, wantIgnored)
	}
	if len(wantIgnored) != 2 { // raw/a.tmp and raw/drafts/keep.md
		t.Errorf("scenario lost its ignored files: %q", wantIgnored)
	}
	if !reflect.DeepEqual(g.TrackedLocalFiles, []string{".echoes-vault/state.json"}) {
		t.Errorf("trackedLocalFiles = %q", g.TrackedLocalFiles)
	}
	if g.Ready {
		t.Error("ready with problems")
	}
}

// TestUnreadableRepositoryFailsClosed: a repository gitrepo refuses is a
// readiness problem, never "available: false, ready: true".
func TestUnreadableRepositoryFailsClosed(t *testing.T) {
	sb := gitrepotest.New(t)
	top := sb.Init(filepath.Join(t.TempDir(), "repo"))
	e, err := gitvault.Open(gitvault.Options{Workspace: top})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := setup.Install(e, "init"); err != nil {
		t.Fatal(err)
	}
	sb.Git(top, "config", "core.repositoryformatversion", "1")
	sb.Git(top, "config", "extensions.frobnicate", "true")
	h := Inspect(e).Health
	if !h.Git.Available || h.Git.Ready || len(h.GitReadinessIssues) != 1 ||
		!strings.HasPrefix(h.GitReadinessIssues[0], "repository unreadable: ") || h.Healthy {
		t.Fatalf("git = %+v, issues = %q", h.Git, h.GitReadinessIssues)
	}
}

// TestForeignEngineFilesAreNotMissing: adapters and state written by another
// conforming engine (another adapter or engine version) are not reported as
// missing structure or invalid state, while a file without the generated
// statements still is.
func TestForeignEngineFilesAreNotMissing(t *testing.T) {
	e := initVault(t)
	for _, p := range []string{e.WS.AgentsGuide, e.WS.ClaudeSkill, e.WS.CommandPath("echoes-end.md")} {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(e.WS.Root, p)
		testenv.WriteFile(t, filepath.Join(e.WS.Root, rel), strings.ReplaceAll(string(data), "Managed adapter version: 1.1.1", "Managed adapter version: 1.2.0"))
	}
	testenv.WriteFile(t, filepath.Join(e.WS.Root, ".echoes-vault/state.json"),
		`{"version": 4, "protocolVersion": "1.0.0", "engineVersion": "1.2.0", "lastWriter": {"agent": null, "adapterVersion": null}}`)

	h := Inspect(e).Health
	if len(h.MissingStructure) != 0 {
		t.Errorf("missingStructure = %q, want none for another engine's adapters", h.MissingStructure)
	}
	if !h.StateFile.Valid {
		t.Errorf("state written by engine 1.2.0 reported invalid: %+v", h.StateFile)
	}
	testenv.WriteFile(t, filepath.Join(e.WS.Root, "CLAUDE.md"), "<!-- echoes-vault:start -->\nno version statement\n<!-- echoes-vault:end -->\n")
	if h := Inspect(e).Health; !reflect.DeepEqual(h.MissingStructure, []string{"CLAUDE.md"}) {
		t.Errorf("missingStructure = %q, want [CLAUDE.md]", h.MissingStructure)
	}
}

package find

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/gitvault/memory"
	"github.com/git-echoes/git-echoes/gitvault/setup"
	"github.com/git-echoes/git-echoes/internal/testenv"
)

// newVault initializes a vault in a new directory (in a real Git work
// tree when inGit) with an isolated HOME, and returns its engine.
func newVault(tb testing.TB, inGit bool) *gitvault.Engine {
	tb.Helper()
	g := testenv.TempGit(tb)
	g.Setenv(tb)
	tb.Setenv("ECC_MEMORY_PROJECT_ROOT", "")
	tb.Setenv("ECC_MEMORY_USER_ROOT", "")
	dir := filepath.Join(tb.TempDir(), "ws")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	if inGit {
		cmd := exec.Command("git", "init", "-q", dir)
		cmd.Env = g.Environ()
		if out, err := cmd.CombinedOutput(); err != nil {
			tb.Fatalf("git init: %v\n%s", err, out)
		}
	}
	eng, err := gitvault.Open(gitvault.Options{Workspace: dir})
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := setup.Install(eng, "init"); err != nil {
		tb.Fatal(err)
	}
	return eng
}

func pageText(typ, stack, status, summary, body string) string {
	return fmt.Sprintf("---\ntype: %s\nstack: %s\nstatus: %s\nsummary: %s\n---\n%s\n", typ, stack, status, summary, body)
}

func writePage(tb testing.TB, eng *gitvault.Engine, name, text string) {
	tb.Helper()
	if err := os.WriteFile(filepath.Join(eng.WS.Pages, name+".md"), []byte(text), 0o644); err != nil {
		tb.Fatal(err)
	}
}

type memSpec struct {
	ID, Title, Kind, Body, Scope, Status, Updated string
	Tags                                          []string
}

func roots(tb testing.TB, eng *gitvault.Engine) *memory.Roots {
	tb.Helper()
	r, err := memory.ResolveRoots(memory.RootOptions{Cwd: eng.WS.Root})
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

func writeMemory(tb testing.TB, r *memory.Roots, s memSpec) {
	tb.Helper()
	m := &memory.Memory{Schema: "ecc.memory.v1", ID: s.ID, Title: s.Title, Kind: s.Kind, Scope: s.Scope, Trust: "unreviewed",
		Status: s.Status, SourceHarness: "codex", TargetHarnesses: []string{"all"}, Tags: s.Tags, Links: []string{},
		CreatedAt: "2026-06-01T10:00:00.000Z", UpdatedAt: s.Updated, Body: s.Body}
	if m.Scope == "" {
		m.Scope = "project"
	}
	if m.Status == "" {
		m.Status = "active"
	}
	if m.UpdatedAt == "" {
		m.UpdatedAt = "2026-07-01T10:00:00.000Z"
	}
	if m.Tags == nil {
		m.Tags = []string{}
	}
	dir := filepath.Join(r.ScopeRoot(m.Scope), m.Kind+"s")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, m.ID+".md"), m.Serialize(), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// fillerWords is the vocabulary of the generated noise documents: the
// same engineering register as the targets, so ranking is not trivial.
var fillerWords = strings.Fields(`service request response client server database table index query cache
	queue worker job deploy release build test review change config setting user account order payment
	invoice report export import file upload storage bucket token key secret auth login session limit
	rate retry timeout error log metric alert dashboard team owner process document page note decision
	schema field value record event message topic stream batch schedule time date region cluster node
	replica backup restore policy rule check health status version api endpoint route handler module`)

// writeFiller adds n generated pages and m generated memories.
func writeFiller(tb testing.TB, eng *gitvault.Engine, r *memory.Roots, n, m int, seed uint64) {
	tb.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	words := func(k int) string {
		w := make([]string, k)
		for i := range w {
			w[i] = fillerWords[rng.IntN(len(fillerWords))]
		}
		return strings.Join(w, " ")
	}
	types := []string{"decision", "component", "runbook", "pattern", "process"}
	stacks := []string{"api", "backend", "frontend", "infra", "data", "go"}
	for i := 0; i < n; i++ {
		var body strings.Builder
		fmt.Fprintf(&body, "# Note %d %s\n\n", i, words(3))
		for l := 0; l < 6+rng.IntN(10); l++ {
			body.WriteString(words(8+rng.IntN(8)) + ".\n")
		}
		writePage(tb, eng, fmt.Sprintf("filler-%04d", i), pageText(types[i%len(types)], stacks[i%len(stacks)], "active", words(7), body.String()))
	}
	for i := 0; i < m; i++ {
		writeMemory(tb, r, memSpec{ID: fmt.Sprintf("mem_filler_%05d", i), Title: words(5), Kind: memory.Kinds[i%len(memory.Kinds)],
			Body: words(20) + ".\n" + words(15) + ".", Tags: []string{fillerWords[i%len(fillerWords)]}})
	}
}

// hitNames are the files of pages and the ids of memories, in rank order.
func hitNames(res *Result) []string {
	out := make([]string, len(res.Hits))
	for i, h := range res.Hits {
		if h.Source == SourceMemory {
			out[i] = h.ID
		} else {
			out[i] = filepath.ToSlash(h.File)
		}
	}
	return out
}

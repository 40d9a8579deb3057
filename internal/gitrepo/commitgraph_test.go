package gitrepo

import (
	"crypto/sha1"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/internal/gitrepo/gitrepotest"
	"github.com/go-git/go-git/v5/plumbing"
)

// openCommitGraph reads objects/info/commit-graph without a Repo's
// shared parse (Repo.commitGraph), or returns nil.
func openCommitGraph(objectsDir string) *commitGraph {
	g, _ := readCommitGraph(filepath.Join(objectsDir, "info", "commit-graph"))
	return g
}

// graphRepo builds a history with branches, a two-parent merge and an
// octopus merge (the EDGE chunk), and writes its commit-graph.
func graphRepo(t *testing.T) (*gitrepotest.Sandbox, string, string) {
	sb := gitrepotest.New(t)
	dir := sb.Init(filepath.Join(t.TempDir(), "repo"))
	n := 0
	commit := func() {
		n++
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d", n)), []byte(fmt.Sprint(n)), 0o644); err != nil {
			t.Fatal(err)
		}
		sb.Git(dir, "add", "-A")
		if _, err := sb.Run(dir, []string{fmt.Sprintf("GIT_COMMITTER_DATE=%d +0100", 1600000000+n*37)}, nil, "commit", "-q", "-m", fmt.Sprint(n)); err != nil {
			t.Fatal(err)
		}
	}
	commit()
	for _, b := range []string{"a", "b", "c"} {
		sb.Git(dir, "checkout", "-q", "-b", b, "main")
		commit()
		commit()
	}
	sb.Git(dir, "checkout", "-q", "main")
	commit()
	sb.Git(dir, "merge", "-q", "--no-edit", "a")
	sb.Git(dir, "merge", "-q", "--no-edit", "b", "c") // octopus
	commit()
	sb.Git(dir, "commit-graph", "write", "--reachable")
	graph := filepath.Join(dir, ".git", "objects", "info", "commit-graph")
	if _, err := os.Stat(graph); err != nil {
		t.Fatal(err)
	}
	return sb, dir, graph
}

// TestCommitGraphAgreesWithObjects: every commit's tree, parents and date
// from the commit-graph file are what go-git decodes from the object.
func TestCommitGraphAgreesWithObjects(t *testing.T) {
	sb, dir, graph := graphRepo(t)
	g := openCommitGraph(filepath.Join(dir, ".git", "objects"))
	if g == nil {
		t.Fatal("the commit-graph git wrote was not read")
	}
	repo, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	octopus := false
	for _, h := range strings.Fields(sb.Git(dir, "rev-list", "--all")) {
		id, _ := hex.DecodeString(h)
		tree, parents, when, ok := g.lookup(id)
		if !ok {
			t.Fatalf("%s not in the graph", h)
		}
		c, err := repo.CommitInfo(h)
		if err != nil {
			t.Fatal(err)
		}
		if tree != c.Tree || strings.Join(parents, " ") != strings.Join(c.Parents, " ") || !when.Equal(c.CommitDate) {
			t.Fatalf("%s: graph says %s %v %v, the object %s %v %v", h, tree, parents, when, c.Tree, c.Parents, c.CommitDate)
		}
		octopus = octopus || len(parents) > 2
	}
	if !octopus {
		t.Fatal("no octopus merge: the EDGE chunk was not exercised")
	}
	if _, _, _, ok := g.lookup(make([]byte, 20)); ok {
		t.Fatal("a missing commit was found")
	}
	raw, err := os.ReadFile(graph)
	if err != nil {
		t.Fatal(err)
	}
	// Any changed byte breaks the checksum: the file is not used.
	for i := 0; i < len(raw); i += 7 {
		bad := append([]byte(nil), raw...)
		bad[i] ^= 0x40
		if _, err := parseCommitGraph(bad); err == nil {
			t.Fatalf("byte %d changed, file accepted", i)
		}
	}
	// A file whose checksum is right but whose parents point past the
	// commit count gives no answer for those commits.
	g2, _ := parseCommitGraph(raw)
	for i := 0; i < g2.n; i++ {
		binary.BigEndian.PutUint32(g2.data[i*cgRecordSize+20:], uint32(g2.n+5))
	}
	body := append([]byte(nil), raw[:len(raw)-20]...)
	sum := sha1.Sum(body)
	if _, err := parseCommitGraph(append(body, sum[:]...)); err != nil {
		t.Fatal(err)
	}
	for _, h := range strings.Fields(sb.Git(dir, "rev-list", "--all")) {
		id := plumbing.NewHash(h)
		if _, parents, _, ok := g2.lookup(id[:]); ok && len(parents) > 0 {
			t.Fatalf("%s: parents %v from out-of-range positions", h, parents)
		}
	}
}

// TestCommitGraphGeneration: the generation numbers read from the graph
// are the topological levels of the history (1 for the root, one more
// than the largest of the parents'), computed here from git rev-list's
// parents; a commit the graph lacks has none.
func TestCommitGraphGeneration(t *testing.T) {
	sb, dir, _ := graphRepo(t)
	repo, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	tr := repo.NewTreeReader()
	defer tr.Close()
	out := sb.Git(dir, "rev-list", "--reverse", "--topo-order", "--parents", "main")
	level := map[string]uint32{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(l)
		lv := uint32(1)
		for _, p := range f[1:] {
			lv = max(lv, level[p]+1)
		}
		level[f[0]] = lv
		got, ok := tr.Generation(f[0])
		if !ok || got != lv || !tr.InCommitGraph(f[0]) {
			t.Errorf("Generation(%s) = %d, %v; want %d", f[0][:7], got, ok, lv)
		}
	}
	if _, ok := tr.Generation(strings.Repeat("0", 40)); ok || tr.InCommitGraph(strings.Repeat("0", 40)) {
		t.Error("a commit the graph lacks has a generation")
	}
}

// TestCommitCountHint: the hint is the count git wrote (git rev-list
// --all --count), the same as the verified file's; 0 without a file, for
// a file that is not a commit-graph, and for one cut short; a changed
// count is read as it is (a hint, not verified).
func TestCommitCountHint(t *testing.T) {
	sb, dir, graph := graphRepo(t)
	repo, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := strconv.Atoi(strings.TrimSpace(sb.Git(dir, "rev-list", "--all", "--count")))
	g := openCommitGraph(filepath.Join(dir, ".git", "objects"))
	if got := repo.CommitCountHint(); got != want || got != g.n {
		t.Fatalf("hint %d, git %d, verified file %d", got, want, g.n)
	}
	raw, err := os.ReadFile(graph)
	if err != nil {
		t.Fatal(err)
	}
	write := func(b []byte) {
		t.Helper()
		if err := os.Chmod(graph, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(graph, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The last fan-out count, changed in place: read as written.
	fan := -1
	for i := 0; i < int(raw[6]); i++ {
		if binary.BigEndian.Uint32(raw[8+12*i:]) == cgChunkFanout {
			fan = int(binary.BigEndian.Uint64(raw[8+12*i+4:]))
		}
	}
	if fan < 0 {
		t.Fatal("no fan-out chunk")
	}
	changed := append([]byte(nil), raw...)
	binary.BigEndian.PutUint32(changed[fan+255*4:], uint32(want+1000))
	write(changed)
	if got := repo.CommitCountHint(); got != want+1000 {
		t.Fatalf("changed count: hint %d, want %d", got, want+1000)
	}
	for name, b := range map[string][]byte{
		"not a graph": []byte("not a commit-graph file at all"),
		"cut short":   raw[:fan+100],
		"header only": raw[:8],
		"version 2":   append([]byte("CGPH\x02"), raw[5:]...),
		"split graph": append(append([]byte(nil), raw[:7]...), append([]byte{1}, raw[8:]...)...),
	} {
		write(b)
		if got := repo.CommitCountHint(); got != 0 {
			t.Errorf("%s: hint %d, want 0", name, got)
		}
	}
	if err := os.Remove(graph); err != nil {
		t.Fatal(err)
	}
	if got := repo.CommitCountHint(); got != 0 {
		t.Fatalf("no file: hint %d", got)
	}
}

// TestSharedCommitGraph: the readers of one Repo share one parsed
// commit-graph, and a reader made after git rewrote or removed the file
// reads what is there now (a long-lived process sees the new graph).
func TestSharedCommitGraph(t *testing.T) {
	sb, dir, graph := graphRepo(t)
	repo, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	a, b := repo.NewTreeReader(), repo.NewTreeReader()
	defer a.Close()
	defer b.Close()
	if a.graph() == nil || a.graph() != b.graph() {
		t.Fatalf("two readers: graphs %p and %p, want one shared", a.graph(), b.graph())
	}
	before := a.GraphCommits()

	// A new commit and a rewritten graph (git renames a new file over
	// the old one).
	if err := os.WriteFile(filepath.Join(dir, "late"), []byte("late\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sb.Git(dir, "add", "-A")
	sb.Git(dir, "commit", "-q", "-m", "late")
	sb.Git(dir, "commit-graph", "write", "--reachable")
	head := strings.TrimSpace(sb.Git(dir, "rev-parse", "HEAD"))
	c := repo.NewTreeReader()
	defer c.Close()
	if got := c.GraphCommits(); got != before+1 {
		t.Fatalf("after git rewrote the graph: %d commits, want %d", got, before+1)
	}
	if !c.InCommitGraph(head) {
		t.Fatal("the rewritten graph does not list the new commit")
	}
	if c.graph() == a.graph() {
		t.Fatal("the old parse was kept for the rewritten file")
	}
	if a.GraphCommits() != before {
		t.Fatal("a reader's graph changed under it")
	}

	// Damaged in place is read again too (a new size).
	if err := os.Chmod(graph, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(graph, []byte("not a commit-graph"), 0o644); err != nil {
		t.Fatal(err)
	}
	d := repo.NewTreeReader()
	defer d.Close()
	if d.graph() != nil {
		t.Fatal("a damaged file was used")
	}
	if err := os.Remove(graph); err != nil {
		t.Fatal(err)
	}
	e := repo.NewTreeReader()
	defer e.Close()
	if e.graph() != nil || e.HasCommitGraph() {
		t.Fatal("a removed file was used")
	}
}

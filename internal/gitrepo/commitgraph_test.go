package gitrepo

import (
	"crypto/sha1"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/internal/gitrepo/gitrepotest"
	"github.com/go-git/go-git/v5/plumbing"
)

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

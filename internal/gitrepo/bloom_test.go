package gitrepo

import (
	"bufio"
	"crypto/sha1"
	"encoding/binary"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/internal/gitrepo/gitrepotest"
	"github.com/go-git/go-git/v5/plumbing"
)

// TestMurmur3Vectors: the hash is MurmurHash3 x86_32, checked against
// its published test vectors (git's bloom.c uses it with two seeds).
func TestMurmur3Vectors(t *testing.T) {
	for _, tc := range []struct {
		seed uint32
		data string
		want uint32
	}{
		{0, "", 0},
		{1, "", 0x514e28b7},
		{0xffffffff, "", 0x81f16f39},
		{0, "\x00\x00\x00\x00", 0x2362f9de},
		{0, "\xff\xff\xff\xff", 0x76293b50},
		{0, "\x21\x43\x65\x87", 0xf55b516b},
		{0, "\x21\x43\x65", 0x7e4a8634},
		{0, "\x21\x43", 0xa0f7b07a},
		{0, "\x21", 0x72661cf4},
		{0x9747b28c, "aaaa", 0x5a97808a},
		{0x9747b28c, "Hello, world!", 0x24884cba},
		{0x9747b28c, "The quick brown fox jumps over the lazy dog", 0x2fa826cd},
		{0, "The quick brown fox jumps over the lazy dog", 0x2e4ff723},
	} {
		if got := murmur3(tc.seed, []byte(tc.data)); got != tc.want {
			t.Errorf("murmur3(%#x, %q) = %#x, want %#x", tc.seed, tc.data, got, tc.want)
		}
	}
}

// bdat builds a BDAT chunk: header then data.
func bdat(version, hashes, bitsPer uint32, data []byte) []byte {
	b := make([]byte, bloomHeaderSize, bloomHeaderSize+len(data))
	binary.BigEndian.PutUint32(b, version)
	binary.BigEndian.PutUint32(b[4:], hashes)
	binary.BigEndian.PutUint32(b[8:], bitsPer)
	return append(b, data...)
}

func bidx(ends ...uint32) []byte {
	b := make([]byte, 4*len(ends))
	for i, e := range ends {
		binary.BigEndian.PutUint32(b[4*i:], e)
	}
	return b
}

// TestParseBloom: the chunk shapes that are used and those that are not.
func TestParseBloom(t *testing.T) {
	for _, tc := range []struct {
		name           string
		idx, dat       []byte
		haveIdx, haveD bool
		n              int
		ok, none       bool
	}{
		{"absent", nil, nil, false, false, 2, false, true},
		{"v1", bidx(1, 3), bdat(1, 7, 10, []byte{1, 2, 3}), true, true, 2, true, false},
		{"v2", bidx(1, 3), bdat(2, 7, 10, []byte{1, 2, 3}), true, true, 2, true, false},
		{"index only", bidx(1, 3), nil, true, false, 2, false, false},
		{"data only", nil, bdat(1, 7, 10, nil), false, true, 2, false, false},
		{"index too short", bidx(1), bdat(1, 7, 10, []byte{1}), true, true, 2, false, false},
		{"index too long", bidx(1, 1, 1), bdat(1, 7, 10, []byte{1}), true, true, 2, false, false},
		{"header truncated", bidx(0, 0), []byte{0, 0, 0, 1, 0, 0}, true, true, 2, false, false},
		{"version 0", bidx(0, 0), bdat(0, 7, 10, nil), true, true, 2, false, false},
		{"version 3", bidx(0, 0), bdat(3, 7, 10, nil), true, true, 2, false, false},
		{"no hashes", bidx(0, 0), bdat(1, 0, 10, nil), true, true, 2, false, false},
		{"too many hashes", bidx(0, 0), bdat(1, 1000, 10, nil), true, true, 2, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := parseBloom(tc.idx, tc.dat, tc.haveIdx, tc.haveD, tc.n)
			switch {
			case tc.none && (b != nil || err != nil):
				t.Fatalf("absent chunks: %v, %v", b, err)
			case tc.ok && (b == nil || err != nil):
				t.Fatalf("refused: %v", err)
			case !tc.ok && !tc.none && err == nil:
				t.Fatal("accepted")
			}
		})
	}
}

// TestBloomFilterBounds: a commit's filter is used only when its offsets
// are in order, within the data, and it is not empty; otherwise every
// path is "maybe".
func TestBloomFilterBounds(t *testing.T) {
	b, err := parseBloom(bidx(2, 2, 1, 9, 4), bdat(2, 7, 10, []byte{0, 0, 0, 0}), true, true, 5)
	if err != nil {
		t.Fatal(err)
	}
	for pos, want := range []bool{true, false, false, false, false} {
		f, ok := b.filter(pos)
		if ok != want {
			t.Errorf("filter %d usable = %v, want %v", pos, ok, want)
		}
		if ok && len(f) != 2 {
			t.Errorf("filter %d has %d bytes", pos, len(f))
		}
	}
	if _, ok := b.filter(5); ok {
		t.Error("a position past the index is usable")
	}
	if _, ok := b.filter(-1); ok {
		t.Error("a negative position is usable")
	}
}

// TestBloomContains: a key added as git's add_key_to_filter adds it is
// found; an all-zero filter finds nothing; an all-ones filter (git's
// "too many changes" filter) finds everything.
func TestBloomContains(t *testing.T) {
	b := &bloomFilters{version: 2, hashes: 7}
	key := func(p string) bloomKey {
		return bloomKey{murmur3(bloomSeed0, []byte(p)), murmur3(bloomSeed1, []byte(p))}
	}
	f := make([]byte, 4)
	for _, p := range []string{"a", "a/b.go"} {
		k := key(p)
		for i := uint32(0); i < 7; i++ {
			h := uint64(k.h0+i*k.h1) % 32
			f[h/8] |= 1 << (h % 8)
		}
	}
	for _, p := range []string{"a", "a/b.go"} {
		if !b.mayContain(f, key(p)) {
			t.Errorf("%s added but not found", p)
		}
	}
	if b.mayContain(make([]byte, 4), key("a")) {
		t.Error("an empty filter contains a key")
	}
	if !b.mayContain([]byte{0xff}, key("anything")) {
		t.Error("the all-ones filter lacks a key")
	}
}

// bloomRepo builds a history that changes paths in nested directories,
// deletes and renames files, changes a mode, turns a file into a
// directory, makes one commit of more than 512 changes (git's filter
// limit: an all-ones filter), merges a branch, and has paths with bytes
// above 0x7f; then writes the commit-graph with changed-path filters.
func bloomRepo(t *testing.T) (*gitrepotest.Sandbox, string) {
	sb := gitrepotest.New(t)
	dir := sb.Init(filepath.Join(t.TempDir(), "repo"))
	rnd := gitrepotest.NewRand(18)
	dirs := []string{"", "src", "src/a", "src/a/deep", "docs", "d\u00e9j\u00e0", "x/y/z"}
	n := 0
	write := func(p string) {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		n++
		if err := os.WriteFile(full, []byte(fmt.Sprintf("content %d\n", n)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	commit := func(msg string) {
		sb.Git(dir, "add", "-A")
		sb.Git(dir, "commit", "-q", "--allow-empty", "-m", msg)
	}
	name := func() string {
		return path.Join(gitrepotest.Pick(rnd, dirs), fmt.Sprintf("f%d.txt", rnd.Intn(12)))
	}
	write("README")
	commit("root")
	for i := 0; i < 40; i++ {
		switch rnd.Intn(5) {
		case 0, 1, 2:
			write(name())
		case 3:
			out := strings.Fields(sb.Git(dir, "-c", "core.quotePath=false", "ls-files"))
			if len(out) > 1 {
				sb.Git(dir, "rm", "-q", gitrepotest.Pick(rnd, out))
			}
		case 4:
			out := strings.Fields(sb.Git(dir, "-c", "core.quotePath=false", "ls-files"))
			if len(out) > 1 {
				to := path.Join(gitrepotest.Pick(rnd, dirs), fmt.Sprintf("moved%d", i))
				if err := os.MkdirAll(filepath.Join(dir, filepath.FromSlash(path.Dir(to))), 0o755); err != nil {
					t.Fatal(err)
				}
				sb.Git(dir, "mv", gitrepotest.Pick(rnd, out), to)
			}
		}
		commit(fmt.Sprint("step ", i))
	}
	commit("empty")
	write("tool.sh")
	commit("tool")
	if err := os.Chmod(filepath.Join(dir, "tool.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	commit("mode change")
	write("thing")
	commit("thing is a file")
	sb.Git(dir, "rm", "-q", "thing")
	write("thing/inside")
	commit("thing is a directory")
	for i := 0; i < 600; i++ {
		write(fmt.Sprintf("many/m%03d", i))
	}
	commit("many")
	sb.Git(dir, "checkout", "-q", "-b", "side", "HEAD~3")
	write("side/only.txt")
	write("src/a/side.txt")
	commit("side")
	sb.Git(dir, "checkout", "-q", "main")
	write("docs/main.txt")
	commit("main")
	sb.Git(dir, "merge", "-q", "--no-edit", "side")
	sb.Git(dir, "commit-graph", "write", "--reachable", "--changed-paths")
	return sb, dir
}

// firstParentDiff lists the files commit c changes against its first
// parent (all its files for a root), as git diff-tree -r names them.
func firstParentDiff(sb *gitrepotest.Sandbox, dir, c string) string {
	args := []string{"-c", "core.quotePath=false", "diff-tree", "--no-commit-id", "-r", "--name-only"}
	if parents := strings.Fields(sb.Git(dir, "rev-list", "--parents", "-n", "1", c))[1:]; len(parents) > 0 {
		return sb.Git(dir, append(args, parents[0], c)...)
	}
	return sb.Git(dir, append(args, "--root", c)...)
}

// TestBloomFiltersAgreeWithGit: on a commit-graph git wrote with
// --changed-paths, the filters never say "not" for a path (or a directory
// above it) that a commit changed against its first parent, as git
// diff-tree lists the changes; ChangedFromFirstParent, which checks every
// "maybe" against the trees, gives exactly git's answer for every path
// the history ever had; and the filters do answer "not" (they are read).
func TestBloomFiltersAgreeWithGit(t *testing.T) {
	sb, dir := bloomRepo(t)
	repo, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	tr := repo.NewTreeReader()
	defer tr.Close()
	if !tr.HasChangedPathFilters() {
		t.Fatal("the filters git wrote were not read")
	}
	commits := strings.Fields(sb.Git(dir, "rev-list", "--all"))
	changed := map[string]map[string]bool{}
	universe := map[string]bool{}
	for _, c := range commits {
		out := firstParentDiff(sb, dir, c)
		set := map[string]bool{}
		sc := bufio.NewScanner(strings.NewReader(out))
		for sc.Scan() {
			for p := sc.Text(); p != "." && p != ""; p = path.Dir(p) {
				set[p] = true
				universe[p] = true
			}
		}
		changed[c] = set
	}
	var paths []string
	for p := range universe {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	keys := map[string]*BloomPath{}
	for _, p := range paths {
		keys[p] = tr.BloomPath(p)
	}
	nots := 0
	for _, c := range commits {
		hc, err := tr.CommitHeader(c)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range paths {
			maybe := tr.MaybeChanged(c, keys[p])
			if changed[c][p] && !maybe {
				t.Errorf("commit %s changed %s but its filter says not", c[:7], p)
			}
			if !maybe {
				nots++
			}
			got, err := tr.ChangedFromFirstParent(hc, keys[p])
			if err != nil {
				t.Fatal(err)
			}
			if got != changed[c][p] {
				t.Errorf("commit %s, %s: changed = %v, git says %v", c[:7], p, got, changed[c][p])
			}
		}
	}
	if nots == 0 {
		t.Fatal("the filters never said not: they are not used")
	}
	// A path with a byte above 0x7f in a version 1 file is never "not".
	if k := tr.BloomPath("d\u00e9j\u00e0/f1.txt"); k.keys != nil {
		t.Error("a version 1 filter is trusted for a path with a byte above 0x7f")
	}
}

// TestBloomFallback: without filters (a commit-graph written without
// --changed-paths, or none) every answer is "maybe" and
// ChangedFromFirstParent still gives git's answers.
func TestBloomFallback(t *testing.T) {
	sb, dir := bloomRepo(t)
	for _, graph := range []bool{true, false} {
		os.Remove(filepath.Join(dir, ".git", "objects", "info", "commit-graph"))
		if graph {
			sb.Git(dir, "commit-graph", "write", "--reachable")
		}
		repo, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		tr := repo.NewTreeReader()
		if tr.HasChangedPathFilters() {
			t.Fatal("filters read where git wrote none")
		}
		for _, c := range strings.Fields(sb.Git(dir, "rev-list", "-n", "10", "main")) {
			hc, err := tr.CommitHeader(c)
			if err != nil {
				t.Fatal(err)
			}
			out := firstParentDiff(sb, dir, c)
			for _, p := range []string{"README", "docs/main.txt", "side/only.txt", "many", "thing/inside"} {
				k := tr.BloomPath(p)
				if !tr.MaybeChanged(c, k) {
					t.Fatalf("no filters, yet %s is \"not\" in %s", p, c[:7])
				}
				got, err := tr.ChangedFromFirstParent(hc, k)
				if err != nil {
					t.Fatal(err)
				}
				want := false
				for _, l := range strings.Split(out, "\n") {
					if l == p || strings.HasPrefix(l, p+"/") {
						want = true
					}
				}
				if got != want {
					t.Errorf("%s in %s: %v, git %v", p, c[:7], got, want)
				}
			}
		}
		tr.Close()
	}
}

// TestBloomDamagedChunks: a commit-graph whose BDAT header names an
// unknown hash version still serves commits, without filters.
func TestBloomDamagedChunks(t *testing.T) {
	_, dir := bloomRepo(t)
	file := filepath.Join(dir, ".git", "objects", "info", "commit-graph")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	g, err := parseCommitGraph(data)
	if err != nil || g.bloom == nil {
		t.Fatalf("git's file: %v, filters %v", err, g != nil && g.bloom != nil)
	}
	// Find BDAT in the chunk table and set its version to 9.
	chunks := int(data[6])
	for i := 0; i < chunks; i++ {
		e := data[8+i*12:]
		if binary.BigEndian.Uint32(e) == cgChunkBloomData {
			off := binary.BigEndian.Uint64(e[4:])
			binary.BigEndian.PutUint32(data[off:], 9)
		}
	}
	sum := sha1.Sum(data[:len(data)-20])
	copy(data[len(data)-20:], sum[:])
	g, err = parseCommitGraph(data)
	if err != nil {
		t.Fatalf("the graph itself is refused: %v", err)
	}
	if g.bloom != nil {
		t.Fatal("filters of an unknown hash version are used")
	}
}

// TestCommitHeaderPrefix: without a commit-graph, CommitHeader reads a
// packed commit's first bytes only; a header longer than that prefix (an
// octopus merge of 12 branches) and a long message after a short header
// give the same tree, parents and date as the whole commit decoded.
func TestCommitHeaderPrefix(t *testing.T) {
	sb := gitrepotest.New(t)
	dir := sb.Init(filepath.Join(t.TempDir(), "repo"))
	long := strings.Repeat("a long message line\n", 100)
	sb.Git(dir, "commit", "-q", "--allow-empty", "-m", "root")
	var branches []string
	for i := 0; i < 12; i++ {
		b := fmt.Sprintf("b%02d", i)
		sb.Git(dir, "checkout", "-q", "-b", b, "main")
		if err := os.WriteFile(filepath.Join(dir, b), []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
		sb.Git(dir, "add", b)
		sb.Git(dir, "commit", "-q", "-m", b+"\n\n"+long)
		branches = append(branches, b)
	}
	sb.Git(dir, "checkout", "-q", "main")
	sb.Git(dir, append([]string{"merge", "-q", "--no-edit"}, branches...)...)
	sb.Git(dir, "repack", "-a", "-d", "-q")
	repo, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	tr := repo.NewTreeReader()
	defer tr.Close()
	if tr.graph() != nil {
		t.Fatal("a commit-graph was written")
	}
	octopus := false
	for _, c := range strings.Fields(sb.Git(dir, "rev-list", "--all")) {
		h, err := tr.CommitHeader(c)
		if err != nil {
			t.Fatal(err)
		}
		full, err := tr.Commit(c)
		if err != nil {
			t.Fatal(err)
		}
		if h.Tree != full.Tree || strings.Join(h.Parents, " ") != strings.Join(full.Parents, " ") || !h.CommitDate.Equal(full.CommitDate) {
			t.Fatalf("%s: header %+v, commit %+v", c[:7], h, full)
		}
		if len(full.Parents) == 12 {
			octopus = true
		}
	}
	if !octopus {
		t.Fatal("no 12-parent merge in the history")
	}
	data, ok := tr.fast.commitPrefix(plumbingHash(t, sb.Git(dir, "rev-parse", "main")), commitPrefixBytes)
	if !ok || len(data) != commitPrefixBytes {
		t.Fatalf("prefix of the octopus merge: %v, %d bytes", ok, len(data))
	}
}

func plumbingHash(t *testing.T, hex string) []byte {
	h := plumbing.NewHash(strings.TrimSpace(hex))
	return h[:]
}

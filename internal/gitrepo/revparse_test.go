package gitrepo

import (
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/internal/gitrepo/gitrepotest"
	"github.com/git-echoes/git-echoes/internal/testenv"
)

// revRepo builds a history with the shapes revision syntax walks: a merge
// of two parents and an octopus of three, commits of distinct dates and
// messages (for ^{/REGEX}), annotated tags (one of a tag, one of a blob),
// a branch and a tag of one name, remote-tracking refs with a symbolic
// origin/HEAD, packed refs, a branch named like an abbreviated commit id,
// and two commits and a blob that share the first 4 hex digits of their
// ids (abbreviated ids: ambiguous, and disambiguated for a commit).
func revRepo(t testing.TB) (*gitrepotest.Sandbox, string, map[string]string) {
	sb := gitrepotest.New(t)
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	top := sb.Init(filepath.Join(tmp, "repo"))
	day := 0
	commit := func(msg string) string {
		day++
		date := fmt.Sprintf("2020-01-%02dT00:00:00Z", day)
		testenv.WriteFile(t, filepath.Join(top, fmt.Sprintf("f%02d.txt", day)), msg+"\n")
		sb.Git(top, "add", ".")
		if _, err := sb.Run(top, []string{"GIT_COMMITTER_DATE=" + date, "GIT_AUTHOR_DATE=" + date}, nil, "commit", "-qm", msg); err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(sb.Git(top, "rev-parse", "HEAD"))
	}
	ids := map[string]string{}
	ids["root"] = commit("root: fix nasty bug")
	commit("second")
	sb.Git(top, "checkout", "-qb", "side")
	commit("side one")
	ids["side"] = commit("side two: fix typo")
	sb.Git(top, "checkout", "-qb", "other", "main")
	commit("other one")
	sb.Git(top, "checkout", "-q", "main")
	commit("third")
	sb.Git(top, "merge", "-q", "--no-ff", "-m", "merge side", "side")
	// An octopus of three parents, made with plumbing.
	octo := sb.Git(top, "commit-tree", "-p", "main", "-p", "other", "-p", "side~1", "-m", "octopus", "main^{tree}")
	sb.Git(top, "update-ref", "refs/heads/octo", strings.TrimSpace(octo))
	commit("fourth")
	sb.Git(top, "tag", "light", "HEAD~1")
	sb.Git(top, "tag", "-a", "-m", "annotated", "v1", "HEAD~2")
	sb.Git(top, "tag", "-a", "-m", "tag of a tag", "v1-outer", "v1")
	blob := strings.TrimSpace(sb.Git(top, "rev-parse", "HEAD:f01.txt"))
	sb.Git(top, "tag", "-a", "-m", "a blob", "blobtag", blob)
	sb.Git(top, "tag", "side", ids["root"]) // refs/tags/side beats refs/heads/side
	sb.Git(top, "update-ref", "refs/remotes/origin/main", "HEAD~1")
	sb.Git(top, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/main")
	sb.Git(top, "pack-refs", "--all")
	sb.Git(top, "update-ref", "refs/heads/loose", "HEAD~3")

	// Two commits whose ids share 4 hex digits, and a blob sharing them.
	tree := strings.TrimSpace(sb.Git(top, "rev-parse", "HEAD^{tree}"))
	byPrefix := map[string]string{}
	var pair [2]string
	for n := 0; pair[0] == ""; n++ {
		body := fmt.Sprintf("tree %s\nauthor T <t@e> 1577836800 +0000\ncommitter T <t@e> 1577836800 +0000\n\nfiller %d\n", tree, n)
		id := objectID("commit", body)
		if prev, ok := byPrefix[id[:4]]; ok {
			pair = [2]string{prev, body}
			break
		}
		byPrefix[id[:4]] = body
	}
	var twins []string
	for _, body := range pair {
		out, err := sb.Run(top, nil, []byte(body), "hash-object", "-t", "commit", "-w", "--stdin")
		if err != nil {
			t.Fatal(err)
		}
		twins = append(twins, strings.TrimSpace(out))
	}
	ids["twin0"], ids["twin1"] = twins[0], twins[1]
	// A blob with the 4 first digits of the side commit: a commit-ish
	// lookup ignores it.
	for n := 0; ; n++ {
		body := fmt.Sprintf("blob %d\n", n)
		if id := objectID("blob", body); id[:4] == ids["side"][:4] {
			if _, err := sb.Run(top, nil, []byte(body), "hash-object", "-w", "--stdin"); err != nil {
				t.Fatal(err)
			}
			ids["blob-like-side"] = id
			break
		}
	}
	// A branch named like the root commit's abbreviated id: git takes
	// the reference.
	sb.Git(top, "branch", ids["root"][:7], "HEAD~2")
	return sb, top, ids
}

func objectID(typ, body string) string {
	h := sha1.Sum([]byte(fmt.Sprintf("%s %d\x00%s", typ, len(body), body)))
	return hex.EncodeToString(h[:])
}

// TestResolveCommitAgainstGit resolves each revision with ResolveCommit
// and with `git rev-parse --verify REV^{commit}`: where git answers, the
// ids are equal; where git refuses, ResolveCommit fails. Revisions in the
// syntax the resolver does not implement fail with ErrRevisionSyntax
// whatever git says. It would catch a wrong rule order (ref before
// abbreviated id, tags before heads), a wrong parent for ^N, a wrong walk
// order for ^{/REGEX}, an ambiguous id resolved silently, and syntax
// answered for another revision (go-git ignored @{...} and :path).
func TestResolveCommitAgainstGit(t *testing.T) {
	sb, top, ids := revRepo(t)
	r, err := OpenLazy(top)
	if err != nil {
		t.Fatal(err)
	}
	revs := []string{
		"HEAD", "@", "main", "heads/main", "refs/heads/main", "side", "heads/side", "refs/heads/side",
		"tags/side", "light", "v1", "v1-outer", "tags/v1", "refs/tags/v1-outer", "blobtag", "loose",
		"origin/main", "origin", "remotes/origin/main", "refs/remotes/origin/HEAD", "other",
		"HEAD~", "HEAD~0", "HEAD~1", "HEAD~2", "HEAD~3", "HEAD~4", "HEAD~40", "HEAD~~", "HEAD~1~1",
		"HEAD^", "HEAD^0", "HEAD^1", "HEAD^^", "HEAD~1^2", "HEAD~1^3", "HEAD~1^4", "HEAD~2^2", "HEAD~2^2~1",
		"octo^", "octo^2", "octo^3", "octo^4", "octo^3~1", "octo~1^2",
		"v1^", "v1~1", "v1-outer^0", "v1^{}", "v1^{commit}", "v1-outer^{}", "v1^{object}", "HEAD^{commit}",
		"light^{}~1", "origin/main^2", "main~1^2^", "blobtag^{}", "HEAD^{tree}", "HEAD^{blob}",
		"HEAD^{/fix}", "HEAD^{/fix typo}", "HEAD^{/^root}", "HEAD^{/nothing matches}", "HEAD^{/!-fourth}",
		"HEAD^{/side (one|two)}", "HEAD^{/fix}~1", "HEAD~1^{/one}",
		ids["root"], strings.ToUpper(ids["root"]), ids["root"][:4], ids["root"][:5], ids["root"][:7],
		ids["side"][:4], ids["side"][:6], ids["twin0"][:4], ids["twin0"][:5], ids["twin0"],
		ids["blob-like-side"], ids["blob-like-side"][:12],
		strings.Repeat("0", 40), "abc", "deadbeef", "no-such-branch", "main~x", "~1", "^", "",
		"refs/heads/../HEAD", "../../HEAD", "main.lock", ".main", "ma in", "main/",
	}
	unsupported := []string{
		"HEAD@{0}", "@{0}", "main@{upstream}", "@{u}", "@{-1}", "HEAD:f01.txt", ":f01.txt", ":/fix",
		"HEAD^{tag}", "^HEAD", "main..side", "main...side", "HEAD^{/!bad}",
	}
	for _, rev := range revs {
		want, gitErr := sb.Run(top, nil, nil, "rev-parse", "--verify", "-q", rev+"^{commit}")
		want = strings.TrimSpace(want)
		got, err := r.ResolveCommit(rev)
		switch {
		case gitErr != nil && err == nil:
			t.Errorf("ResolveCommit(%q) = %s; git rev-parse refuses it", rev, got)
		case gitErr == nil && err != nil:
			t.Errorf("ResolveCommit(%q): %v; git rev-parse gives %s", rev, err, want)
		case gitErr == nil && got != want:
			t.Errorf("ResolveCommit(%q) = %s, git rev-parse gives %s", rev, got, want)
		}
	}
	for _, rev := range unsupported {
		if got, err := r.ResolveCommit(rev); !errors.Is(err, ErrRevisionSyntax) {
			t.Errorf("ResolveCommit(%q) = %q, %v; want ErrRevisionSyntax", rev, got, err)
		}
	}
	// A revision the rules would read as a path outside the refs.
	if err := os.WriteFile(filepath.Join(filepath.Dir(top), "outside"), []byte(ids["root"]+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, rev := range []string{"../../outside", "../outside", "refs/../../outside"} {
		if got, err := r.ResolveCommit(rev); err == nil {
			t.Errorf("ResolveCommit(%q) = %s, read a file outside the refs", rev, got)
		}
	}
}

// FuzzResolveCommit feeds arbitrary revisions to the resolver over the
// revRepo history: it must never panic, and an answer must be a commit
// that git also gives for the same revision.
func FuzzResolveCommit(f *testing.F) {
	for _, s := range []string{"HEAD", "HEAD~2^2", "v1^{}", "HEAD^{/fix}", "main@{0}", "abcd", "side~1^0", "HEAD^{/a{2}}", "@", "~^{}"} {
		f.Add(s)
	}
	sb, top, _ := revRepo(f)
	r, err := OpenLazy(top)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, rev string) {
		got, err := r.ResolveCommit(rev)
		if err != nil || strings.ContainsAny(rev, "\x00\n") || strings.HasPrefix(rev, "-") {
			return
		}
		want, gitErr := sb.Run(top, nil, nil, "rev-parse", "--verify", "-q", "--end-of-options", rev+"^{commit}")
		if gitErr != nil || strings.TrimSpace(want) != got {
			t.Fatalf("ResolveCommit(%q) = %s; git rev-parse: %q, %v", rev, got, want, gitErr)
		}
	})
}

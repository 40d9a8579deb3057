package review

import (
	"fmt"
	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/gitvault/setup"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/internal/gitrepo/gitrepotest"
	"github.com/git-echoes/git-echoes/internal/testenv"
)

// reviewRepo builds histories for the review tests and runs git on them
// as the referee.
type reviewRepo struct {
	t     *testing.T
	sb    *gitrepotest.Sandbox
	dir   string
	e     *gitvault.Engine
	clock int
	r     *gitrepotest.Rand
}

func newReviewRepo(t *testing.T, seed uint64) *reviewRepo {
	t.Helper()
	sb := gitrepotest.New(t)
	dir := sb.Init(filepath.Join(t.TempDir(), "repo"))
	e, err := gitvault.Open(gitvault.Options{Workspace: dir})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := setup.Install(e, "init"); err != nil {
		t.Fatal(err)
	}
	rr := &reviewRepo{t: t, sb: sb, dir: dir, e: e, r: gitrepotest.NewRand(seed)}
	rr.commit("init")
	return rr
}

func (rr *reviewRepo) git(args ...string) string {
	rr.t.Helper()
	return rr.sb.Git(rr.dir, args...)
}

// commit commits everything with a date that usually advances (and now
// and then repeats, to exercise the walk's tie order).
func (rr *reviewRepo) commit(msg string) {
	rr.t.Helper()
	if rr.r.Intn(5) != 0 {
		rr.clock++
	}
	date := fmt.Sprintf("2021-01-01T00:%02d:%02dZ", rr.clock/60%60, rr.clock%60)
	rr.git("add", "-A")
	if _, err := rr.sb.Run(rr.dir, []string{"GIT_AUTHOR_DATE=" + date, "GIT_COMMITTER_DATE=" + date}, nil,
		"commit", "-q", "--allow-empty", "--no-verify", "-m", msg); err != nil {
		rr.t.Fatal(err)
	}
}

func (rr *reviewRepo) write(rel, content string) {
	testenv.WriteFile(rr.t, filepath.Join(rr.dir, filepath.FromSlash(rel)), content)
}

func (rr *reviewRepo) read(rel string) string {
	data, err := os.ReadFile(filepath.Join(rr.dir, filepath.FromSlash(rel)))
	if err != nil {
		rr.t.Fatal(err)
	}
	return string(data)
}

func reviewPage(name, status string, lines []string) string {
	return "---\ntype: note\nstack: [go]\nstatus: " + status + "\nsummary: About " + name + ".\n---\n\n# " + name + "\n\n" +
		strings.Join(lines, "\n") + "\n"
}

func (rr *reviewRepo) pages() []string {
	entries, _ := os.ReadDir(filepath.Join(rr.dir, "EchoesVault/pages"))
	var out []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".md") {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out
}

// randomStep makes one random change to memory on the current branch.
func (rr *reviewRepo) randomStep(i int) {
	r := rr.r
	pages := rr.pages()
	switch op := r.Intn(10); {
	case op < 3 || len(pages) < 3:
		name := fmt.Sprintf("p%d.md", i)
		var lines []string
		for k := 0; k < 6+r.Intn(8); k++ {
			lines = append(lines, fmt.Sprintf("line %d of %s: %x", k, name, r.Uint64()))
		}
		rr.write("EchoesVault/pages/"+name, reviewPage(name, "active", lines))
	case op < 6:
		p := gitrepotest.Pick(r, pages)
		text := rr.read("EchoesVault/pages/" + p)
		lines := strings.Split(text, "\n")
		k := 8 + r.Intn(max(1, len(lines)-9))
		if k < len(lines) {
			lines[k] = fmt.Sprintf("edited %x", r.Uint64())
		}
		if r.Intn(2) == 0 {
			lines = append(lines[:len(lines)-1], fmt.Sprintf("added %x", r.Uint64()), "")
		}
		rr.write("EchoesVault/pages/"+p, strings.Join(lines, "\n"))
	case op < 7:
		p := gitrepotest.Pick(r, pages)
		to := fmt.Sprintf("r%d.md", i)
		if err := os.Rename(filepath.Join(rr.dir, "EchoesVault/pages", p), filepath.Join(rr.dir, "EchoesVault/pages", to)); err != nil {
			rr.t.Fatal(err)
		}
		if r.Intn(2) == 0 {
			rr.write("EchoesVault/pages/"+to, rr.read("EchoesVault/pages/"+to)+fmt.Sprintf("moved %x\n", r.Uint64()))
		}
	case op < 8:
		p := gitrepotest.Pick(r, pages)
		rr.write("EchoesVault/pages/"+p, strings.Replace(rr.read("EchoesVault/pages/"+p), "status: active", "status: deprecated", 1))
	case op < 9:
		stamp := fmt.Sprintf("20210101T0000%02d%06dZ", i%60, i)
		rr.write(fmt.Sprintf("EchoesVault/daily/2021-01-01/%s-session-agent%d-%08x.md", stamp, i%3, i),
			fmt.Sprintf("### Session — 2021-01-01T00:00:%02d+00:00\n\nAgent: `agent%d`\n\nDid thing %d.\nSecond line.\n", i%60, i%3, i))
	default:
		p := gitrepotest.Pick(r, pages)
		if err := os.Remove(filepath.Join(rr.dir, "EchoesVault/pages", p)); err != nil {
			rr.t.Fatal(err)
		}
	}
}

// nameStatus is git diff --name-status -M over the reviewed trees.
func (rr *reviewRepo) nameStatus(a, b string) []string {
	out := rr.git("diff", "--name-status", "-M", a, b, "--", "EchoesVault", ".ecc/memory")
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if l != "" {
			lines = append(lines, l)
		}
	}
	sort.Strings(lines)
	return lines
}

func ourNameStatus(res *DiffResult) []string {
	var lines []string
	for _, f := range res.Files {
		if f.Status == "R" {
			lines = append(lines, fmt.Sprintf("R%03d\t%s\t%s", f.Similarity, f.OldPath, f.Path))
		} else {
			lines = append(lines, f.Status+"\t"+f.Path)
		}
	}
	sort.Strings(lines)
	return lines
}

// numstat is git diff --numstat -M for the pages: new path -> "+a -r".
func (rr *reviewRepo) numstat(a, b string) map[string]string {
	out := rr.git("diff", "--numstat", "-M", "-z", a, b, "--", "EchoesVault/pages")
	m := map[string]string{}
	fields := strings.Split(out, "\x00")
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		if f == "" {
			continue
		}
		parts := strings.SplitN(f, "\t", 3)
		path := parts[2]
		if path == "" { // rename: the two paths follow
			path = fields[i+2]
			i += 2
		}
		m[path] = "+" + parts[0] + " -" + parts[1]
	}
	return m
}

func TestDiffAgreesWithGit(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		t.Run("seed"+strconv.FormatUint(seed, 10), func(t *testing.T) {
			rr := newReviewRepo(t, seed)
			var commits []string
			for i := 0; i < 40; i++ {
				rr.randomStep(i)
				if rr.r.Intn(4) == 0 {
					rr.randomStep(1000 + i)
				}
				rr.commit(fmt.Sprintf("step %d", i))
				commits = append(commits, strings.TrimSpace(rr.git("rev-parse", "HEAD")))
			}
			renames, deprecations := 0, 0
			defer func() {
				// The histories must exercise what the test is about.
				if renames == 0 || deprecations == 0 {
					t.Errorf("no renames (%d) or deprecations (%d) compared: the generator is broken", renames, deprecations)
				}
			}()
			for k := 0; k < 25; k++ {
				a, b := gitrepotest.Pick(rr.r, commits), gitrepotest.Pick(rr.r, commits)
				res, err := Diff(rr.e, RevRange{A: a, B: b})
				if err != nil {
					t.Fatal(err)
				}
				want, got := rr.nameStatus(a, b), ourNameStatus(res)
				if strings.Join(want, "\n") != strings.Join(got, "\n") {
					t.Fatalf("diff %s %s:\ngit:\n%s\nours:\n%s", a[:7], b[:7], strings.Join(want, "\n"), strings.Join(got, "\n"))
				}
				ns := rr.numstat(a, b)
				for _, p := range res.Pages {
					if p.Change == "renamed" {
						renames++
					}
					if p.Deprecated() {
						deprecations++
					}
					if p.Change == "removed" {
						continue
					}
					if g := fmt.Sprintf("+%d -%d", p.LinesAdded, p.LinesRemoved); ns[p.Path] != g {
						t.Errorf("diff %s %s: %s lines %s, git numstat %s", a[:7], b[:7], p.Path, g, ns[p.Path])
					}
				}
			}
		})
	}
}

// branchyHistory builds a history with branches and merges (including a
// rename on one side of a merge) on top of random steps.
func branchyHistory(t *testing.T, seed uint64) *reviewRepo {
	rr := newReviewRepo(t, seed)
	for i := 0; i < 6; i++ {
		rr.randomStep(i)
		rr.commit(fmt.Sprintf("base %d", i))
	}
	for round := 0; round < 4; round++ {
		br := fmt.Sprintf("b%d", round)
		rr.git("checkout", "-q", "-b", br)
		for i := 0; i < 4; i++ {
			rr.randomStep(100*round + 10 + i)
			rr.commit(fmt.Sprintf("%s %d", br, i))
		}
		rr.git("checkout", "-q", "main")
		for i := 0; i < 3; i++ {
			rr.randomStep(100*round + 50 + i)
			rr.commit(fmt.Sprintf("main %d.%d", round, i))
		}
		rr.clock++
		date := fmt.Sprintf("2021-01-01T00:%02d:%02dZ", rr.clock/60%60, rr.clock%60)
		if _, err := rr.sb.Run(rr.dir, []string{"GIT_AUTHOR_DATE=" + date, "GIT_COMMITTER_DATE=" + date}, nil,
			"merge", "-q", "--no-edit", "--no-verify", "--no-ff", br); err != nil {
			// A conflict: take the branch's side of every path, or
			// delete the path where the branch deleted it; the result
			// differs from both parents, so the merge is shown.
			for _, p := range strings.Fields(rr.git("diff", "--name-only", "--diff-filter=U")) {
				if out, err := rr.sb.Run(rr.dir, nil, nil, "show", ":3:"+p); err == nil {
					rr.write(p, out)
				} else {
					os.Remove(filepath.Join(rr.dir, filepath.FromSlash(p)))
				}
			}
			rr.git("add", "-A")
			if _, err := rr.sb.Run(rr.dir, []string{"GIT_AUTHOR_DATE=" + date, "GIT_COMMITTER_DATE=" + date}, nil,
				"commit", "-q", "--no-edit", "--no-verify"); err != nil {
				t.Fatal(err)
			}
		}
	}
	return rr
}

// everyPagePath lists every page path any commit held.
func (rr *reviewRepo) everyPagePath() []string {
	out := rr.git("log", "--all", "--format=", "--name-only", "--", "EchoesVault/pages")
	set := map[string]bool{}
	for _, l := range strings.Split(out, "\n") {
		if strings.HasSuffix(l, ".md") {
			set[l] = true
		}
	}
	var paths []string
	for p := range set {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	return paths
}

func TestLogAgreesWithGit(t *testing.T) {
	followedRenames, merges := 0, 0
	defer func() {
		// The histories must exercise what the test is about.
		if followedRenames == 0 || merges == 0 {
			t.Errorf("no renames followed (%d) or merges shown (%d): the generator is broken", followedRenames, merges)
		}
	}()
	for seed := uint64(1); seed <= 4; seed++ {
		t.Run("seed"+strconv.FormatUint(seed, 10), func(t *testing.T) {
			rr := branchyHistory(t, seed)
			for _, p := range rr.everyPagePath() {
				for _, follow := range []bool{false, true} {
					args := []string{"log", "--format=%H", "--name-status", "-M"}
					if follow {
						args = append(args, "--follow")
					}
					want := strings.Fields(strings.TrimSpace(rr.git(append(args, "--", p)...)))
					res, err := Log(rr.e, LogOptions{Target: p, Follow: follow})
					if err != nil {
						t.Fatal(err)
					}
					var got []string
					for _, e := range res.Entries {
						if c, _ := openRepoCommit(rr.e, e.Commit); len(c) > 1 {
							merges++
						}
						if e.Status == "R" {
							followedRenames++
						}
						got = append(got, e.Commit)
						switch e.Status {
						case "R":
							// git prints R<score> old new; the score is checked by the diff test.
							got = append(got, "R", e.OldPath, e.Path)
						default:
							got = append(got, e.Status, e.Path)
						}
					}
					for i, w := range want {
						if strings.HasPrefix(w, "R") && len(w) == 4 {
							want[i] = "R"
						}
					}
					// git log --name-status lists nothing for a merge; our
					// entry names the change against the first parent, so
					// histories with merges compare by commit.
					if strings.Join(want, " ") != strings.Join(got, " ") {
						if !follow && sameCommits(want, got) {
							continue
						}
						t.Fatalf("log follow=%v %s:\ngit:  %s\nours: %s", follow, p, strings.Join(want, " "), strings.Join(got, " "))
					}
				}
			}
		})
	}
}

// sameCommits compares only the commit ids of two token lists (40-hex
// tokens), for merges, whose name-status git omits.
func sameCommits(a, b []string) bool {
	ids := func(xs []string) string {
		var out []string
		for _, x := range xs {
			if len(x) == 40 && strings.Trim(x, "0123456789abcdef") == "" {
				out = append(out, x)
			}
		}
		return strings.Join(out, " ")
	}
	return ids(a) == ids(b)
}

// openRepoCommit returns a commit's parents.
func openRepoCommit(e *gitvault.Engine, hash string) ([]string, error) {
	repo, err := openRepo(e)
	if err != nil {
		return nil, err
	}
	c, err := repo.CommitInfo(hash)
	if err != nil {
		return nil, err
	}
	return c.Parents, nil
}

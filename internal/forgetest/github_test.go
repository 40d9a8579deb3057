package forgetest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/git-echoes/git-echoes/internal/testenv"
)

const goodPage = "---\ntype: note\nstack: go\nstatus: active\nsummary: %s\n---\n%s\n"

// secretValue is a GitHub token shape, built at run time so that this file
// holds no credential-looking literal.
var secretValue = "ghp_" + strings.Repeat("aB3dE", 7) + "x"

// fixture is an upstream repository with a pull request, as GitHub has it:
// main (the base), the branch memory (the head) and refs/pull/7/merge.
type fixture struct {
	t                      *testing.T
	g                      *testenv.Git
	bin, upstream          string
	base, head, merge      string
	eventPath, apiURL, tmp string
}

func (f *fixture) git(dir string, args ...string) string {
	f.t.Helper()
	r := runCmd(f.t, f.g, dir, []string{"GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z"}, "git", args...)
	if r.Code != 0 {
		f.t.Fatalf("git %s: %s", strings.Join(args, " "), r)
	}
	return strings.TrimSpace(r.Stdout)
}

// newFixture builds the upstream. head(dir) writes the pull request's
// changes into the work tree of the branch memory; vault false leaves the
// repository without a vault.
func newFixture(t *testing.T, vault bool, head func(dir string)) *fixture {
	requireTools(t)
	f := &fixture{t: t, g: testenv.TempGit(t), bin: binary(t), tmp: t.TempDir()}
	up := filepath.Join(t.TempDir(), "upstream")
	f.upstream = up
	os.MkdirAll(up, 0o755)
	f.git(up, "init", "-q", "-b", "main")
	if vault {
		if r := runCmd(t, f.g, up, nil, f.bin, "init"); r.Code != 0 {
			t.Fatalf("git echoes init: %s", r)
		}
		writeFile(t, filepath.Join(up, "EchoesVault/pages/auth-flow.md"), []byte(fmt.Sprintf(goodPage, "Tokens are validated in the middleware.", "Body.")))
	} else {
		writeFile(t, filepath.Join(up, "README.md"), []byte("# app\n"))
	}
	f.git(up, "add", "-A")
	f.git(up, "commit", "-qm", "base")
	f.git(up, "checkout", "-qb", "memory")
	head(up)
	f.git(up, "add", "-A")
	f.git(up, "commit", "-qm", "memory changes")
	f.head = f.git(up, "rev-parse", "HEAD")
	// main moves on after the branch left it: base.sha is main's tip, not
	// the merge base.
	f.git(up, "checkout", "-q", "main")
	writeFile(t, filepath.Join(up, "src/main.go"), []byte("package main\n"))
	f.git(up, "add", "-A")
	f.git(up, "commit", "-qm", "main moves on")
	f.base = f.git(up, "rev-parse", "HEAD")
	f.git(up, "checkout", "-q", "--detach")
	f.git(up, "merge", "-q", "--no-ff", "-m", "Merge memory into main", "memory")
	f.merge = f.git(up, "rev-parse", "HEAD")
	f.git(up, "update-ref", "refs/pull/7/merge", f.merge)
	f.git(up, "update-ref", "refs/pull/7/head", f.head)
	f.git(up, "checkout", "-q", "main")
	f.eventPath = f.event(false)
	return f
}

// event writes a pull_request event payload (testdata/pull_request.json,
// the shape GitHub delivers) and returns its path.
func (f *fixture) event(fork bool) string {
	raw, err := os.ReadFile(filepath.Join(repoRoot(), "internal/forgetest/testdata/pull_request.json"))
	if err != nil {
		f.t.Fatal(err)
	}
	headRepo, owner := "acme/app", "acme"
	if fork {
		headRepo, owner = "octocat/app", "octocat"
	}
	s := strings.NewReplacer("{{HEAD}}", f.head, "{{BASE}}", f.base, "{{MERGE}}", f.merge, "{{REPO}}", "acme/app",
		"{{HEAD_REPO}}", headRepo, "{{HEAD_OWNER}}", owner, "{{FORK}}", strconv.FormatBool(fork)).Replace(string(raw))
	var probe any
	if err := json.Unmarshal([]byte(s), &probe); err != nil {
		f.t.Fatalf("event payload: %v", err)
	}
	p := filepath.Join(f.t.TempDir(), "event.json")
	writeFile(f.t, p, []byte(s))
	return p
}

// checkout does what actions/checkout does by default for a pull request:
// fetch refs/pull/7/merge at depth 1 and check it out, detached.
func (f *fixture) checkout(depth string) string {
	dir := filepath.Join(f.t.TempDir(), "work")
	os.MkdirAll(dir, 0o755)
	f.git(dir, "init", "-q")
	f.git(dir, "remote", "add", "origin", "file://"+filepath.ToSlash(f.upstream))
	args := []string{"fetch", "-q", "--no-tags"}
	if depth != "0" {
		args = append(args, "--depth="+depth)
	}
	f.git(dir, append(args, "origin", "+refs/pull/7/merge:refs/remotes/pull/7/merge")...)
	f.git(dir, "checkout", "-q", "--detach", "refs/remotes/pull/7/merge")
	return dir
}

// action runs scripts/forge/github.sh in dir as action.yml's run step does,
// with a runner's environment; it returns the result, the outputs and the
// job summary.
func (f *fixture) action(dir string, env ...string) (result, map[string]string, string) {
	f.t.Helper()
	run := f.t.TempDir()
	out, sum := filepath.Join(run, "output"), filepath.Join(run, "summary")
	base := []string{
		"GE_BIN=" + f.bin,
		"GITHUB_EVENT_NAME=pull_request",
		"GITHUB_EVENT_PATH=" + f.eventPath,
		"GITHUB_SHA=" + f.merge,
		"GITHUB_REPOSITORY=acme/app",
		"GITHUB_OUTPUT=" + out,
		"GITHUB_STEP_SUMMARY=" + sum,
		"GITHUB_API_URL=" + f.apiURL,
		"RUNNER_TEMP=" + run,
	}
	r := runScript(f.t, f.g, dir, append(base, env...), "github.sh")
	summary, _ := os.ReadFile(sum)
	if strings.Contains(r.Stdout+r.Stderr+string(summary), secretValue) {
		f.t.Fatalf("the secret's value was printed")
	}
	if len(summary) > 1<<20 {
		f.t.Fatalf("job summary is %d bytes, over GitHub's 1 MiB", len(summary))
	}
	return r, readOutputs(f.t, out), string(summary)
}

// expectCounts runs check --format json on the head and counts severities:
// the referee for the action's outputs.
func (f *fixture) expectCounts() (errors, warnings int) {
	r := runCmd(f.t, f.g, f.upstream, nil, f.bin, "check", "--rev", f.head, "--format", "json")
	var res struct {
		Findings []struct{ Severity string } `json:"findings"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &res); err != nil {
		f.t.Fatalf("check json: %v: %s", err, r)
	}
	for _, x := range res.Findings {
		if x.Severity == "warning" {
			warnings++
		} else {
			errors++
		}
	}
	return
}

// badHead: an updated page, a new good page, an invalid page, a page with a
// credential and a broken link.
func badHead(dir string) {
	os.WriteFile(filepath.Join(dir, "EchoesVault/pages/auth-flow.md"), []byte(fmt.Sprintf(goodPage, "Tokens are validated and rotated.", "See [[rotation]].")), 0o644)
	os.WriteFile(filepath.Join(dir, "EchoesVault/pages/rotation.md"), []byte(fmt.Sprintf(goodPage, "Keys rotate monthly.", "Body.")), 0o644)
	os.WriteFile(filepath.Join(dir, "EchoesVault/pages/bad.md"), []byte("---\nsummary: no type\n---\nLinks to [[nowhere]].\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "EchoesVault/pages/ci-token.md"), []byte(fmt.Sprintf(goodPage, "The CI token.", "token: "+secretValue)), 0o644)
}

func goodHead(dir string) {
	os.WriteFile(filepath.Join(dir, "EchoesVault/pages/rotation.md"), []byte(fmt.Sprintf(goodPage, "Keys rotate monthly.", "Body.")), 0o644)
}

// commentAPI is GitHub's issue-comments API for pull request 7 of
// acme/app, enough of it for scripts/forge/comment.sh: a token "write" may
// comment, "read" is a fork's read-only token (403 on writes).
type commentAPI struct {
	mu       sync.Mutex
	comments []map[string]any
	next     int
}

func (c *commentAPI) serve(t *testing.T) string {
	c.next = 100
	mux := http.NewServeMux()
	mux.HandleFunc("/repos/acme/app/issues/7/comments", func(w http.ResponseWriter, r *http.Request) {
		c.mu.Lock()
		defer c.mu.Unlock()
		tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		switch r.Method {
		case http.MethodGet:
			page, _ := strconv.Atoi(r.URL.Query().Get("page"))
			per, _ := strconv.Atoi(r.URL.Query().Get("per_page"))
			lo, hi := (page-1)*per, page*per
			lo, hi = min(lo, len(c.comments)), min(hi, len(c.comments))
			json.NewEncoder(w).Encode(c.comments[lo:hi])
		case http.MethodPost:
			if tok != "write" {
				w.WriteHeader(http.StatusForbidden)
				io.WriteString(w, `{"message":"Resource not accessible by integration"}`)
				return
			}
			var body map[string]any
			json.NewDecoder(r.Body).Decode(&body)
			c.next++
			cm := map[string]any{"id": c.next, "body": body["body"], "user": map[string]any{"login": "github-actions[bot]", "type": "Bot"}}
			c.comments = append(c.comments, cm)
			w.WriteHeader(http.StatusCreated)
			json.NewEncoder(w).Encode(cm)
		}
	})
	mux.HandleFunc("/repos/acme/app/issues/comments/", func(w http.ResponseWriter, r *http.Request) {
		c.mu.Lock()
		defer c.mu.Unlock()
		if r.Method != http.MethodPatch || strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ") != "write" {
			w.WriteHeader(http.StatusForbidden)
			return
		}
		id, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/repos/acme/app/issues/comments/"))
		var body map[string]any
		json.NewDecoder(r.Body).Decode(&body)
		for _, cm := range c.comments {
			if cm["id"] == id || cm["id"] == float64(id) {
				cm["body"] = body["body"]
				json.NewEncoder(w).Encode(cm)
				return
			}
		}
		http.NotFound(w, r)
	})
	s := httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s.URL
}

func TestGitHubPullRequest(t *testing.T) {
	f := newFixture(t, true, badHead)
	api := &commentAPI{}
	// Someone else's comment quoting the marker is never edited.
	api.comments = append(api.comments, map[string]any{"id": 1, "body": "<!-- git-echoes:pull-request-report -->\nquoted", "user": map[string]any{"login": "octocat"}})
	f.apiURL = api.serve(t)
	wantErrors, wantWarnings := f.expectCounts()
	if wantErrors < 2 || wantWarnings < 1 {
		t.Fatalf("fixture: %d errors, %d warnings", wantErrors, wantWarnings)
	}

	// actions/checkout's default: depth 1 of the merge commit. The head and
	// base are fetched by the script, the history deepened to the merge base.
	dir := f.checkout("1")
	r, out, summary := f.action(dir, "GE_COMMENT=true", "GE_TOKEN=write", "GE_STALE=true")
	if r.Code != 1 {
		t.Fatalf("a pull request with a bad page and a secret must fail the gate: %s", r)
	}
	for _, want := range []string{
		"::error file=EchoesVault/pages/bad.md,title=page-invalid::",
		"::error file=EchoesVault/pages/ci-token.md,line=7,title=secret::",
		"::warning file=EchoesVault/pages/bad.md,line=4,title=wikilink-missing::",
	} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("no annotation %q: %s", want, r)
		}
	}
	if out["result"] != "failed" || out["errors"] != strconv.Itoa(wantErrors) || out["warnings"] != strconv.Itoa(wantWarnings) || out["vault"] != "true" {
		t.Errorf("outputs %v, want failed, %d errors, %d warnings", out, wantErrors, wantWarnings)
	}
	if !strings.Contains(r.Stderr, "fetching "+f.head) {
		t.Errorf("the head was not fetched into the shallow clone: %s", r)
	}
	for _, want := range []string{
		"<!-- git-echoes:pull-request-report -->",
		"**Gate failed** on `" + f.head[:12] + "`",
		fmt.Sprintf("%d errors, %s", wantErrors, map[bool]string{true: "1 warning", false: fmt.Sprintf("%d warnings", wantWarnings)}[wantWarnings == 1]),
		"### Memory review (`" + f.base[:12] + "..." + f.head[:12] + "`)",
		"rotation.md",
		"| error | EchoesVault/pages/ci-token.md | 7 | secret |",
		// The binary under test has `git echoes stale` (issue 18): its
		// markdown report is in the summary.
		"### Stale memory",
		"### Memory freshness at `" + f.head[:7] + "`",
	} {
		if !strings.Contains(summary, want) {
			t.Errorf("summary lacks %q:\n%s", want, summary)
		}
	}
	if out["review"] == "" {
		t.Errorf("no review output")
	} else if review, err := os.ReadFile(out["review"]); err != nil || !strings.Contains(summary, string(review)) {
		t.Errorf("the review file is not the summary's review: %v", err)
	}
	if out["comment"] != "created" || len(api.comments) != 2 {
		t.Fatalf("comment: %s, %d comments: %s", out["comment"], len(api.comments), r)
	}

	// The next push: the same comment, updated.
	r, out, _ = f.action(dir, "GE_COMMENT=true", "GE_TOKEN=write")
	if r.Code != 1 || out["comment"] != "updated" || len(api.comments) != 2 {
		t.Fatalf("second run: comment %s, %d comments: %s", out["comment"], len(api.comments), r)
	}
	if api.comments[0]["body"] != "<!-- git-echoes:pull-request-report -->\nquoted" {
		t.Errorf("another author's comment was edited")
	}
	if body := api.comments[1]["body"].(string); len(body) > 65536 || !strings.Contains(body, "**Gate failed**") {
		t.Errorf("comment body (%d bytes) is not the report", len(body))
	}

	// A fork's read-only token: the comment is skipped with a message, the
	// gate's result is the same.
	f.eventPath = f.event(true)
	r, out, _ = f.action(dir, "GE_COMMENT=true", "GE_TOKEN=read")
	if r.Code != 1 || out["comment"] != "skipped" || out["result"] != "failed" ||
		!strings.Contains(r.Stderr, "HTTP 403") || !strings.Contains(r.Stderr, "fork octocat/app") {
		t.Errorf("read-only token: %s, outputs %v", r, out)
	}
	// No token at all.
	r, out, _ = f.action(dir, "GE_COMMENT=true")
	if r.Code != 1 || out["comment"] != "skipped" || !strings.Contains(r.Stderr, "skipped: no token") {
		t.Errorf("no token: %s, outputs %v", r, out)
	}
	// --strict changes nothing for errors; the merge commit can be gated too.
	r, out, _ = f.action(dir, "GE_STRICT=true", "GE_REV="+f.merge, "GE_REVIEW=false")
	if r.Code != 1 || out["result"] != "failed" {
		t.Errorf("merge commit, strict: %s", r)
	}
}

func TestGitHubPassingAndPush(t *testing.T) {
	api := &commentAPI{}
	f := newFixture(t, true, goodHead)
	f.apiURL = api.serve(t)
	dir := f.checkout("1")
	r, out, summary := f.action(dir, "GE_COMMENT=true", "GE_TOKEN=read")
	if r.Code != 0 || out["result"] != "passed" || out["errors"] != "0" || out["comment"] != "skipped" {
		t.Fatalf("good pull request with a read-only token: %s, outputs %v", r, out)
	}
	if !strings.Contains(summary, "**Gate passed**") || !strings.Contains(summary, "rotation.md") {
		t.Errorf("summary:\n%s", summary)
	}
	// A push: the pushed commit is gated; no review without a base.
	push := filepath.Join(t.TempDir(), "push.json")
	writeFile(t, push, []byte(fmt.Sprintf(`{"ref":"refs/heads/main","before":%q,"after":%q,"repository":{"full_name":"acme/app"}}`, f.base, f.head)))
	f.eventPath = push
	r, out, summary = f.action(dir, "GITHUB_EVENT_NAME=push", "GITHUB_SHA="+f.head, "GE_COMMENT=true")
	if r.Code != 0 || out["result"] != "passed" || !strings.Contains(summary, "No pull request in this event (push)") ||
		!strings.Contains(r.Stderr, "comment: skipped: no pull request") {
		t.Errorf("push: %s\n%s", r, summary)
	}
}

func TestGitHubNoVault(t *testing.T) {
	f := newFixture(t, false, func(dir string) { os.WriteFile(filepath.Join(dir, "README.md"), []byte("# app, v2\n"), 0o644) })
	r, out, summary := f.action(f.checkout("1"))
	if r.Code != 0 || out["result"] != "passed" || out["vault"] != "false" || !strings.Contains(r.Stderr, "no EchoesVault in "+f.head[:12]) ||
		!strings.Contains(summary, "No EchoesVault in this commit") {
		t.Fatalf("no vault: %s, %v\n%s", r, out, summary)
	}
}

// A shallow clone whose origin cannot give more history: the gate still
// runs and fails on the bad page, and the job fails saying what to set.
func TestGitHubShallowWithoutMergeBase(t *testing.T) {
	f := newFixture(t, true, badHead)
	dir := f.checkout("1")
	f.git(dir, "fetch", "-q", "--no-tags", "--depth=1", "origin", f.head, f.base)
	f.git(dir, "remote", "set-url", "origin", "file://"+filepath.ToSlash(filepath.Join(t.TempDir(), "gone")))
	r, out, _ := f.action(dir)
	if r.Code != 2 || out["result"] != "error" || !strings.Contains(r.Stderr, "set fetch-depth: 0 on actions/checkout") {
		t.Fatalf("shallow without merge base: %s, outputs %v", r, out)
	}
	if !strings.Contains(r.Stdout, "title=secret::") {
		t.Errorf("the gate's findings were not reported before the review failed: %s", r)
	}
	// Without the head commit at all: the same advice, and no gate result.
	dir = f.checkout("1")
	f.git(dir, "remote", "set-url", "origin", "file://"+filepath.ToSlash(filepath.Join(t.TempDir(), "gone")))
	r, out, _ = f.action(dir)
	if r.Code != 2 || out["result"] != "error" || !strings.Contains(r.Stderr, "commit "+f.head+" is not in the clone") {
		t.Fatalf("head missing: %s, outputs %v", r, out)
	}
}

// A pull request with so many findings that the table cannot fit GitHub's
// 1 MiB summary: the summary stays under it and says how many it left out.
func TestGitHubSummaryLimit(t *testing.T) {
	const links = 15000
	f := newFixture(t, true, func(dir string) {
		var b strings.Builder
		for i := range links {
			fmt.Fprintf(&b, "- [[missing-page-number-%05d]]\n", i)
		}
		os.WriteFile(filepath.Join(dir, "EchoesVault/pages/links.md"), []byte(fmt.Sprintf(goodPage, "Many links.", b.String())), 0o644)
	})
	r, out, summary := f.action(f.checkout("0"), "GE_STRICT=true")
	if r.Code != 1 || out["warnings"] != strconv.Itoa(links) || out["result"] != "failed" {
		t.Fatalf("strict with %d warnings: %s, outputs %v", links, r, out)
	}
	shown := strings.Count(summary, "| warning | EchoesVault/pages/links.md |")
	want := fmt.Sprintf("**%d more findings not shown** (%d of %d fit in the size limit)", links-shown, shown, links)
	if shown == 0 || shown >= links || !strings.Contains(summary, want) {
		t.Fatalf("summary of %d bytes shows %d rows, lacks %q", len(summary), shown, want)
	}
	if len(summary) < 1<<20-8192 {
		t.Errorf("summary of %d bytes leaves more than 8 KiB of the limit unused", len(summary))
	}
	if !strings.Contains(summary, "### Memory review") {
		t.Errorf("the review was dropped for the findings")
	}
	// Without --strict, warnings do not fail the gate.
	if r, out, _ := f.action(f.checkout("0")); r.Code != 0 || out["result"] != "passed" {
		t.Errorf("warnings only: %s", r)
	}
}

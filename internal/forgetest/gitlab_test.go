package forgetest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// gitlabJob reads templates/git-echoes/template.yml as GitLab does: the
// spec document, then the jobs with $[[ inputs.NAME ]] replaced by the
// given inputs or the spec's defaults. It returns the job's variables and
// its script joined as the runner runs it (one shell, each line checked).
func gitlabJob(t *testing.T, inputs map[string]string) (map[string]string, string) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(repoRoot(), "templates/git-echoes/template.yml"))
	if err != nil {
		t.Fatal(err)
	}
	docs := bytes.SplitN(raw, []byte("\n---\n"), 2)
	if len(docs) != 2 {
		t.Fatal("template.yml: want a spec document, ---, and the jobs")
	}
	var spec struct {
		Spec struct {
			Inputs map[string]struct {
				Default any    `yaml:"default"`
				Type    string `yaml:"type"`
			} `yaml:"inputs"`
		} `yaml:"spec"`
	}
	if err := yaml.Unmarshal(docs[0], &spec); err != nil {
		t.Fatalf("spec: %v", err)
	}
	body := regexp.MustCompile(`\$\[\[ *inputs\.([a-z-]+) *\]\]`).ReplaceAllStringFunc(string(docs[1]), func(m string) string {
		name := regexp.MustCompile(`inputs\.([a-z-]+)`).FindStringSubmatch(m)[1]
		in, ok := spec.Spec.Inputs[name]
		if !ok {
			t.Fatalf("template uses undeclared input %s", name)
		}
		if v, ok := inputs[name]; ok {
			return v
		}
		if in.Default == nil {
			t.Fatalf("input %s has no default and none was given", name)
		}
		return fmt.Sprint(in.Default)
	})
	var jobs map[string]struct {
		Variables map[string]string `yaml:"variables"`
		Script    []string          `yaml:"script"`
		Artifacts struct {
			Reports map[string]string `yaml:"reports"`
			Paths   []string          `yaml:"paths"`
		} `yaml:"artifacts"`
	}
	if err := yaml.Unmarshal([]byte(body), &jobs); err != nil {
		t.Fatalf("jobs: %v", err)
	}
	job, ok := jobs["git-echoes"]
	if !ok {
		t.Fatal("no job git-echoes")
	}
	if job.Artifacts.Reports["codequality"] != "gl-code-quality-report.json" {
		t.Fatalf("the Code Quality report is not declared: %+v", job.Artifacts)
	}
	return job.Variables, strings.Join(job.Script, "\n")
}

func TestGitLabTemplate(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the GitLab template installs the Linux release (GitLab runs jobs in Linux images)")
	}
	rel := hostRelease(t)
	s := newServer(t, rel.Root)
	f := newFixture(t, true, badHead)
	dir := f.checkout("0")
	f.git(dir, "fetch", "-q", "origin", f.head)
	f.git(dir, "checkout", "-q", "--detach", f.head)

	job := func(inputs map[string]string, env ...string) result {
		t.Helper()
		vars, script := gitlabJob(t, inputs)
		e := []string{
			"CI=true", "GITLAB_CI=true", "CI_PIPELINE_SOURCE=merge_request_event",
			"CI_COMMIT_SHA=" + f.head, "CI_MERGE_REQUEST_DIFF_BASE_SHA=" + f.git(f.upstream, "merge-base", f.base, f.head),
			"CI_PROJECT_DIR=" + dir,
		}
		for k, v := range vars {
			e = append(e, k+"="+v)
		}
		for _, name := range []string{"gl-code-quality-report.json", "git-echoes-review.md", "git-echoes-check.txt"} {
			os.Remove(filepath.Join(dir, name))
		}
		return runCmd(t, f.g, dir, append(e, env...), "sh", "-c", script)
	}
	inputs := map[string]string{"version": rel.Tag, "download-url": s.URL + "/download"}

	r := job(inputs)
	if r.Code != 1 {
		t.Fatalf("merge request with a bad page and a secret: %s", r)
	}
	report, err := os.ReadFile(filepath.Join(dir, "gl-code-quality-report.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := ValidateCodeQuality(report); err != nil {
		t.Fatalf("%v\n%s", err, report)
	}
	for _, want := range []string{`"check_name": "secret"`, `"path": "EchoesVault/pages/ci-token.md"`, `"check_name": "page-invalid"`, `"severity": "blocker"`} {
		if !strings.Contains(string(report), want) {
			t.Errorf("report lacks %s:\n%s", want, report)
		}
	}
	if strings.Contains(string(report)+r.Stdout+r.Stderr, secretValue) {
		t.Fatal("the secret's value was printed")
	}
	review, err := os.ReadFile(filepath.Join(dir, "git-echoes-review.md"))
	if err != nil || !strings.Contains(string(review), "rotation.md") {
		t.Errorf("review artifact: %v\n%s", err, review)
	}
	if text, _ := os.ReadFile(filepath.Join(dir, "git-echoes-check.txt")); !strings.Contains(string(text), "ci-token.md:7: secret:") {
		t.Errorf("check log artifact:\n%s", text)
	}

	// stale: the binary under test has `git echoes stale` (issue 18), so
	// its markdown report is the job's git-echoes-stale.md artifact.
	os.Remove(filepath.Join(dir, "git-echoes-stale.md"))
	in := map[string]string{"version": rel.Tag, "download-url": s.URL + "/download", "stale": "true"}
	if r := job(in); r.Code != 1 || strings.Contains(r.Stdout, "stale: not available") {
		t.Errorf("stale: %s", r)
	}
	if md, err := os.ReadFile(filepath.Join(dir, "git-echoes-stale.md")); err != nil || !strings.Contains(string(md), "Memory freshness at") {
		t.Errorf("stale artifact: %v\n%s", err, md)
	}
	// Unknown version, tampered archive: refused, exit 2, no report.
	if r := job(map[string]string{"version": "v9.9.9", "download-url": s.URL + "/download"}); r.Code != 2 || !strings.Contains(r.Stderr, "unknown version v9.9.9") {
		t.Errorf("unknown version: %s", r)
	}
	archive := filepath.Join(rel.Root, rel.Tag, "git-echoes_"+rel.Version+"_linux_"+runtime.GOARCH+".tar.gz")
	data, err := os.ReadFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/3] ^= 0x80
	writeFile(t, archive, data)
	if r := job(inputs); r.Code != 2 || !strings.Contains(r.Stderr, "checksum mismatch") {
		t.Errorf("tampered archive: %s", r)
	}
	if _, err := os.Stat(filepath.Join(dir, "gl-code-quality-report.json")); !os.IsNotExist(err) {
		t.Errorf("a refused install still wrote a report")
	}
}

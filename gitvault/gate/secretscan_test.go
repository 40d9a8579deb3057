package gate

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/internal/pyjson"
	"github.com/git-echoes/git-echoes/internal/secretscan/secrettest"
	"github.com/git-echoes/git-echoes/internal/testenv"
)

// secretPlaces are where the gate looks for credentials (issue 22): a
// page, a daily entry, a team memory, a raw source and a text asset of
// other types than .md.
type secretPlace struct {
	path string
	wrap func(text string) string
}

func secretPlaces(i int) []secretPlace {
	n := strconv.Itoa(i)
	page := func(text string) string {
		return "---\ntype: note\nstack: go\nstatus: active\nsummary: Case " + n + ".\n---\n\n" + text + "\n"
	}
	return []secretPlace{
		{"EchoesVault/pages/case-" + n + ".md", page},
		{"EchoesVault/daily/2026-01-01/case-" + n + ".md", func(text string) string { return "### Scratchpad\n\n" + text + "\n" }},
		{".ecc/memory/team/notes/mem_case" + n + ".md", func(text string) string {
			return memDoc("mem_case"+n, "note", "team", "Seen in a failing request:\n"+text+"\nend.")
		}},
		{"EchoesVault/raw/case-" + n + ".txt", func(text string) string { return "captured log\n" + text + "\n" }},
		{"EchoesVault/assets/case-" + n + ".env", func(text string) string { return "# env\n" + text + "\n" }},
	}
}

// lineOf is the 1-based line where needle starts in content.
func lineOf(t *testing.T, content, needle string) int {
	t.Helper()
	i := strings.Index(content, needle)
	if i < 0 {
		t.Fatalf("%q not in content", needle)
	}
	return strings.Count(content[:i], "\n") + 1
}

// assertNoValue fails when out holds a value or any 8 bytes of it.
func assertNoValue(t *testing.T, what, out string, secrets []string) {
	t.Helper()
	for _, s := range secrets {
		for i := 0; i+8 <= len(s); i++ {
			if strings.Contains(out, s[i:i+8]) {
				t.Errorf("%s holds %q, 8 bytes of a credential", what, s[i:i+8])
				return
			}
		}
	}
}

// Every family of the corpus is reported in every place and every source,
// at its line, by its gitleaks rule id; near misses in the same places
// pass; no finding, and no JSON report, holds a value.
func TestCheckSecretCorpusEverySource(t *testing.T) {
	sb, e := checkRepo(t)
	root := e.WS.Root
	type want struct {
		path, rule string
		line       int
	}
	var wants []want
	var secrets []string
	for i, c := range secrettest.Cases() {
		secrets = append(secrets, c.Secret)
		for _, p := range secretPlaces(i) {
			content := p.wrap(c.Text)
			testenv.WriteFile(t, filepath.Join(root, filepath.FromSlash(p.path)), content)
			wants = append(wants, want{p.path, c.RuleID, lineOf(t, content, c.Text)})
		}
	}
	misses := strings.Join(secrettest.NearMisses(), "\n")
	for _, p := range secretPlaces(999) {
		testenv.WriteFile(t, filepath.Join(root, filepath.FromSlash(p.path)), p.wrap(misses))
	}
	sb.Git(root, "add", "-A")
	sb.Git(root, "commit", "--no-verify", "-qm", "corpus")
	for _, src := range []CheckSource{CheckWorkTree, CheckStaged, CheckRev} {
		res := mustCheck(t, e, CheckOptions{Source: src, Rev: "HEAD"})
		got := map[string]string{}
		for _, f := range res.Findings {
			if f.Rule != ruleSecret {
				continue
			}
			got[f.Path+":"+strconv.Itoa(f.Line)] = f.Message
			if strings.Contains(f.Path, "999") {
				t.Errorf("%v: near miss reported: %s:%d %s", src, f.Path, f.Line, f.Message)
			}
		}
		for _, w := range wants {
			msg, ok := got[w.path+":"+strconv.Itoa(w.line)]
			if !ok || !strings.Contains(msg, "("+w.rule) && !strings.Contains(msg, " "+w.rule+",") && !strings.Contains(msg, " "+w.rule+")") {
				t.Errorf("%v: %s:%d: want %s, got %q (found=%v)", src, w.path, w.line, w.rule, msg, ok)
			}
		}
		var all strings.Builder
		for _, f := range res.Findings {
			all.WriteString(f.Path + " " + f.Message + "\n")
		}
		assertNoValue(t, src.String()+" findings", all.String(), secrets)
		assertNoValue(t, src.String()+" JSON", pyjson.Pretty(res.JSON()), secrets)
	}
}

// A repository accepts findings with .gitleaksignore fingerprints and its
// .gitleaks.toml allowlists, read from the checked source; a line that is
// not a fingerprint is itself a finding.
func TestCheckSecretAllowlists(t *testing.T) {
	sb, e := checkRepo(t)
	root := e.WS.Root
	cs := secrettest.Cases()
	w := func(p, content string) { testenv.WriteFile(t, filepath.Join(root, filepath.FromSlash(p)), content) }
	w("EchoesVault/pages/a.md", "---\ntype: note\nstack: go\nstatus: active\nsummary: A.\n---\n\n"+cs[0].Text+"\n"+cs[1].Text+"\n")
	w("EchoesVault/pages/b.md", "---\ntype: note\nstack: go\nstatus: active\nsummary: B.\n---\n\n"+cs[4].Text+"\n")
	w("EchoesVault/raw/docs/c.txt", cs[18].Text+"\n")
	sb.Git(root, "add", "-A")
	sb.Git(root, "commit", "--no-verify", "-qm", "secrets")
	secretsOf := func(res *CheckResult) []string {
		var out []string
		for _, f := range res.Findings {
			if f.Rule == ruleSecret {
				out = append(out, f.Path+":"+strconv.Itoa(f.Line))
			}
		}
		return out
	}
	all := []string{"EchoesVault/pages/a.md:8", "EchoesVault/pages/a.md:9", "EchoesVault/pages/b.md:8", "EchoesVault/raw/docs/c.txt:1"}
	if got := secretsOf(mustCheck(t, e, CheckOptions{Source: CheckWorkTree})); strings.Join(got, " ") != strings.Join(all, " ") {
		t.Fatalf("without allowlists: %v", got)
	}
	head := strings.TrimSpace(sb.Git(root, "rev-parse", "HEAD"))
	w(".gitleaksignore", "# accepted\nEchoesVault/pages/a.md:gitlab-pat:8\nEchoesVault/pages/b.md:secret:8\n"+
		head+":EchoesVault/pages/a.md:npm-access-token:9\n")
	w(".gitleaks.toml", "[allowlist]\npaths = ['''^EchoesVault/raw/docs/''']\n")
	// Work tree: the files on disk; the commit fingerprint does not apply.
	if got := secretsOf(mustCheck(t, e, CheckOptions{Source: CheckWorkTree})); strings.Join(got, " ") != "EchoesVault/pages/a.md:9" {
		t.Errorf("work tree: %v", got)
	}
	// Staged: not yet in the index, so nothing is allowed.
	if got := secretsOf(mustCheck(t, e, CheckOptions{Source: CheckStaged})); len(got) != 4 {
		t.Errorf("staged before add: %v", got)
	}
	sb.Git(root, "add", ".gitleaksignore", ".gitleaks.toml")
	if got := secretsOf(mustCheck(t, e, CheckOptions{Source: CheckStaged})); strings.Join(got, " ") != "EchoesVault/pages/a.md:9" {
		t.Errorf("staged: %v", got)
	}
	// Rev: HEAD does not hold the files; the next commit does, and the
	// commit fingerprint names HEAD~1 there, not that commit.
	if got := secretsOf(mustCheck(t, e, CheckOptions{Source: CheckRev, Rev: "HEAD"})); len(got) != 4 {
		t.Errorf("rev without files: %v", got)
	}
	sb.Git(root, "commit", "--no-verify", "-qm", "allow")
	if got := secretsOf(mustCheck(t, e, CheckOptions{Source: CheckRev, Rev: "HEAD"})); strings.Join(got, " ") != "EchoesVault/pages/a.md:9" {
		t.Errorf("rev: %v", got)
	}
	w(".gitleaksignore", head+":EchoesVault/pages/a.md:npm-access-token:9\nnonsense\n")
	sb.Git(root, "add", ".gitleaksignore")
	sb.Git(root, "commit", "--no-verify", "-qm", "fp")
	// The commit fingerprint holds for its own commit only.
	res := mustCheck(t, e, CheckOptions{Source: CheckRev, Rev: head})
	if got := secretsOf(res); len(got) != 4 {
		t.Errorf("rev %s (no allowlist files there): %v", head, got)
	}
	res = mustCheck(t, e, CheckOptions{Source: CheckRev, Rev: "HEAD"})
	got := secretsOf(res)
	if strings.Join(got, " ") != ".gitleaksignore:2 EchoesVault/pages/a.md:8 EchoesVault/pages/a.md:9 EchoesVault/pages/b.md:8" {
		t.Errorf("rev with a bad fingerprint line: %v", got)
	}
	w(".gitleaks.toml", "[allowlist\n")
	res = mustCheck(t, e, CheckOptions{Source: CheckWorkTree})
	if res.OK() || !strings.Contains(strings.Join(secretsOf(res), " "), ".gitleaks.toml:0") {
		t.Errorf("invalid .gitleaks.toml: %v", secretsOf(res))
	}
}

// TestGateScannerCompiles: every rule of the gate's scanner, the memory
// vault's families included, compiles; they compile on first use, so
// without this a broken family would surface only in the scan that asks
// for it (failing closed there).
func TestGateScannerCompiles(t *testing.T) {
	s, err := baseSecretScanner()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Compile(); err != nil {
		t.Fatal(err)
	}
}

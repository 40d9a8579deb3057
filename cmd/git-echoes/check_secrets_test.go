package main

import (
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/gitvault/memory"
	"github.com/git-echoes/git-echoes/internal/secretscan/secrettest"
	"github.com/git-echoes/git-echoes/internal/testenv"
)

// leakedBytes returns the first run of 8 bytes of a secret that out holds
// ("" for none): 8 bytes is shorter than every family's fixed prefix plus
// any random part, so no value nor a usable prefix of one is shown.
func leakedBytes(out string, secrets []string) string {
	for _, s := range secrets {
		for i := 0; i+8 <= len(s); i++ {
			if strings.Contains(out, s[i:i+8]) {
				return s[i : i+8]
			}
		}
	}
	return ""
}

// TestCheckSecretOutputsHoldNoValue (issue 22): with the corpus's
// credentials of every family in a page, a daily entry, a raw source, a
// text asset and a team memory, check in every source and every format
// (text, json, github ::error annotations, codequality) reports each
// credential by its rule, at its file and line, and no byte of its output
// streams holds 8 bytes of any value. The near misses, in the same places,
// are not reported.
func TestCheckSecretOutputsHoldNoValue(t *testing.T) {
	e := newMCPEnv(t)
	var secrets []string
	type want struct{ file, rule string }
	var wants []want
	for i, c := range secrettest.Cases() {
		secrets = append(secrets, c.Secret)
		n := strconv.Itoa(i)
		places := map[string]string{
			"EchoesVault/pages/case-" + n + ".md":            echoesPage("Case "+n+".", c.Text+"\n"),
			"EchoesVault/daily/2026-01-01/case-" + n + ".md": "### Scratchpad\n\n" + c.Text + "\n",
			"EchoesVault/raw/case-" + n + ".txt":             "captured log\n" + c.Text + "\n",
			"EchoesVault/assets/case-" + n + ".env":          "# env\n" + c.Text + "\n",
			".ecc/memory/team/notes/mem_case" + n + ".md":    teamMemory("mem_case"+n, "Seen in a failing request:\n"+c.Text+"\nend."),
		}
		for p, content := range places {
			testenv.WriteFile(t, filepath.Join(e.repo, filepath.FromSlash(p)), content)
			wants = append(wants, want{p, c.RuleID})
		}
	}
	misses := strings.Join(secrettest.NearMisses(), "\n") + "\n"
	testenv.WriteFile(t, filepath.Join(e.repo, "EchoesVault", "pages", "near-misses.md"), echoesPage("Near misses.", misses))
	testenv.WriteFile(t, filepath.Join(e.repo, "EchoesVault", "raw", "near-misses.txt"), misses)
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = e.repo, e.vars
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("add", "-A")
	git("-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "--no-verify", "-qm", "corpus")
	for _, src := range [][]string{nil, {"--staged"}, {"--rev", "HEAD"}} {
		for _, format := range []string{"text", "json", "github", "codequality"} {
			args := append(append([]string{"check"}, src...), "--format", format)
			cmd := exec.Command(mcpBinary(t), args...)
			cmd.Dir, cmd.Env = e.repo, e.vars
			outb, err := cmd.CombinedOutput()
			out := string(outb)
			if err == nil {
				t.Errorf("%v: passed with credentials in the vault", args)
			}
			if leak := leakedBytes(out, secrets); leak != "" {
				t.Errorf("%v: output holds %q, 8 bytes of a credential", args, leak)
			}
			if strings.Contains(out, "near-misses") {
				t.Errorf("%v: a near miss is reported:\n%s", args, out)
			}
			for _, w := range wants {
				if !strings.Contains(out, w.file) || !strings.Contains(out, w.rule) {
					t.Errorf("%v: %s (%s) not reported", args, w.file, w.rule)
				}
			}
			if format == "github" {
				n := 0
				for _, line := range strings.Split(out, "\n") {
					if strings.HasPrefix(line, "::error file=") && strings.Contains(line, "title=secret::") {
						n++
					}
				}
				if n < len(wants) {
					t.Errorf("%v: %d ::error secret annotations, want at least %d", args, n, len(wants))
				}
			}
		}
	}
}

// teamMemory is a valid team-scope ECC memory document.
func teamMemory(id, body string) string {
	m := &memory.Memory{Schema: memory.Schema, ID: id, Title: "Title of " + id, Kind: "note", Scope: "team",
		Trust: "unreviewed", Status: "active", SourceHarness: "codex", TargetHarnesses: []string{"all"},
		CreatedAt: "2026-07-26T20:00:00.000Z", UpdatedAt: "2026-07-26T20:00:00.000Z", Body: body}
	return string(m.Serialize())
}

// TestMCPMemorySaveSecrets (issue 22, interop): memory_save refuses
// exactly what the reference's families find (memory.SecretLines, not the
// gate's wider gitleaks set, so a memory the reference engine would save
// saves here too), and a refusal's tool result holds no byte run of the
// value.
func TestMCPMemorySaveSecrets(t *testing.T) {
	e := newMCPEnv(t)
	s := e.serve(t, serveOpts{memory: true})
	refused := 0
	for i, c := range secrettest.Cases() {
		body := "Seen in a failing request:\n" + c.Text + "\nend."
		res, err := call(t, s, "memory_save", map[string]any{"title": "case " + strconv.Itoa(i), "body": body})
		if err != nil {
			t.Fatalf("%s: %v", c.Family, err)
		}
		text := resultText(res)
		wantRefused := len(memory.SecretLines(body)) > 0
		if res.IsError != wantRefused {
			t.Errorf("%s: refused %v, the reference's families find %v: %s", c.Family, res.IsError, wantRefused, text)
		}
		if res.IsError {
			refused++
			if leak := leakedBytes(text, []string{c.Secret}); leak != "" {
				t.Errorf("%s: the refusal holds %q, 8 bytes of the value", c.Family, leak)
			}
		}
	}
	if refused < 8 {
		t.Errorf("%d corpus families refused by memory_save, want the reference's (at least 8 of them in the corpus)", refused)
	}
}

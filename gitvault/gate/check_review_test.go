package gate

import (
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/gitvault/memory"
	"github.com/git-echoes/git-echoes/internal/testenv"
)

// Fake credentials, assembled at run time so that no scanner mistakes this
// file for a leak.
var (
	fakeGitHub = "gh" + "p_" + strings.Repeat("A1b2", 9)
	fakeAWS    = "AK" + "IA" + "ABCDEFGHIJKLMNOP"
	fakeSk     = "sk" + "-" + strings.Repeat("x9", 12)
)

// memDoc is a valid ecc.memory.v1 document (the writer's bytes).
func memDoc(id, kind, scope, body string, links ...string) string {
	m := &memory.Memory{Schema: memory.Schema, ID: id, Title: "Title of " + id, Kind: kind, Scope: scope,
		Trust: "unreviewed", Status: "active", SourceHarness: "codex", TargetHarnesses: []string{"all"},
		Links: links, CreatedAt: "2026-07-26T20:00:00.000Z", UpdatedAt: "2026-07-26T20:00:00.000Z", Body: body}
	return string(m.Serialize())
}

const linksPage = "---\ntype: note\nstack: go\nstatus: active\nsummary: Links.\n---\n" + // lines 1-6
	"See [[good]], [[Good|the good page]], [[good#Heading]] and [[#local]].\n" + // 7
	"Broken: [[missing-page]]; in code `[[in-code]]` and ``a `[[x]]` b``.\n" + // 8
	"```go\n[[in-fence]]\n```\n" + // 9-11
	"~~~~\n![[fence.png]]\n~~~~\n" + // 12-14
	"![[logo.png]] ![[assets/logo.png|100]] ![[gone.png]] ![[good]] \\[[escaped]]\n" + // 15
	"[[daily/2026-01-01/entry]] [[missing-page|again]] [[raw-note]] [[index]]\n" // 16

func reviewFindings() []string {
	return []string{
		".ecc/memory/project/notes/mem_proj1.md:0:memory-project-committed",
		".ecc/memory/team/facts/bad.md:0:memory-invalid",
		".ecc/memory/team/facts/wrongplace.md:0:memory-invalid",
		".ecc/memory/team/notes/dup.md:0:memory-duplicate-id",
		".ecc/memory/team/notes/mem_alpha.md:0:memory-broken-link",
		".ecc/memory/team/notes/mem_beta.md:0:memory-duplicate-id",
		".ecc/memory/team/notes/secret.md:0:memory-invalid",
		".ecc/memory/team/notes/secret.md:17:secret",
		"EchoesVault/daily/2026-01-01/entry.md:3:secret",
		"EchoesVault/daily/2026-01-01/entry.md:4:wikilink-missing",
		"EchoesVault/pages/links.md:8:wikilink-missing",
		"EchoesVault/pages/links.md:15:asset-missing",
		"EchoesVault/pages/secret.md:8:secret",
	}
}

func lineRules(res *CheckResult) []string {
	var out []string
	for _, f := range res.Findings {
		out = append(out, f.Path+":"+strconv.Itoa(f.Line)+":"+f.Rule)
	}
	return out
}

// The review rules (issue 9) hold in every source: credentials by line and
// family, team memories as the memory readers and doctor read them,
// project memories refused, wikilinks and embeds resolved; code spans and
// fences hold no links; no finding prints a credential.
func TestCheckReviewRulesEverySource(t *testing.T) {
	sb, e := checkRepo(t)
	root := e.WS.Root
	w := func(p, content string) { testenv.WriteFile(t, filepath.Join(root, filepath.FromSlash(p)), content) }
	w("EchoesVault/pages/links.md", linksPage)
	w("EchoesVault/pages/secret.md", "---\ntype: note\nstack: go\nstatus: active\nsummary: Has a token.\n---\n\ntoken = "+fakeGitHub+"\n")
	w("EchoesVault/daily/2026-01-01/entry.md", "### Scratchpad\n\nAWS "+fakeAWS+" here\nsee [[nowhere]] and [[good]]\n")
	w("EchoesVault/assets/logo.png", "png")
	w("EchoesVault/raw/raw-note.md", "a raw source with [[not-checked]]\n")
	w(".ecc/memory/team/notes/mem_alpha.md", memDoc("mem_alpha", "note", "team", "Links to b and a missing one.", "mem_beta", "mem_missing"))
	w(".ecc/memory/team/notes/mem_beta.md", memDoc("mem_beta", "note", "team", "B."))
	w(".ecc/memory/team/notes/dup.md", memDoc("mem_beta", "note", "team", "Another b."))
	w(".ecc/memory/team/facts/bad.md", "---\nschema: \"ecc.memory.v1\"\n---\n\nno\n")
	w(".ecc/memory/team/facts/wrongplace.md", memDoc("mem_gamma", "note", "team", "A note in facts/."))
	w(".ecc/memory/team/notes/secret.md", memDoc("mem_secret", "note", "team", "key: "+fakeSk))
	w(".ecc/memory/team/notes/.hidden.md", "not read\n")
	w(".ecc/memory/team/.drafts/x.md", "not read\n")
	w(".ecc/memory/team/README.txt", "not a memory\n")
	w(".ecc/memory/project/.gitignore", "*\n!.gitignore\n")
	w(".ecc/memory/project/notes/mem_proj1.md", memDoc("mem_proj1", "note", "project", "Local context."))
	w(".ecc/memory/project/notes/mem_proj2.md", memDoc("mem_proj2", "note", "project", "Never added."))
	sb.Git(root, "add", "-A")
	sb.Git(root, "add", "-f", ".ecc/memory/project/notes/mem_proj1.md")
	sb.Git(root, "commit", "--no-verify", "-qm", "review")
	want := reviewFindings()
	for _, src := range []CheckSource{CheckWorkTree, CheckStaged, CheckRev} {
		res := mustCheck(t, e, CheckOptions{Source: src, Rev: "HEAD"})
		if got := lineRules(res); !reflect.DeepEqual(got, want) {
			t.Errorf("%v: findings\n got %q\nwant %q", src, got, want)
		}
		for _, f := range res.Findings {
			for _, v := range []string{fakeGitHub, fakeAWS, fakeSk} {
				if strings.Contains(f.Message, v) || strings.Contains(f.Message, v[:8]) {
					t.Errorf("%v: %s prints a credential: %q", src, f.Path, f.Message)
				}
			}
		}
		if res.OK() || res.Errors() != 9 || res.Warnings() != 4 {
			t.Errorf("%v: ok=%v errors=%d warnings=%d", src, res.OK(), res.Errors(), res.Warnings())
		}
		if res.Memories != 6 {
			t.Errorf("%v: %d team memory files, want 6", src, res.Memories)
		}
	}
	res := mustCheck(t, e, CheckOptions{Source: CheckRev, Rev: "HEAD"})
	msgs := map[string]string{}
	for _, f := range res.Findings {
		msgs[f.Path+":"+f.Rule] = f.Message
	}
	for k, want := range map[string]string{
		"EchoesVault/pages/secret.md:secret":                              "suspected credential (GitHub token [ecc-github-token]); the value is not shown. Remove it and rotate the credential: once committed it stays in Git history (or accept it: .gitleaksignore <file>:<rule-id>:<line>)",
		"EchoesVault/daily/2026-01-01/entry.md:secret":                    "suspected credential (aws-access-token); the value is not shown. Remove it and rotate the credential: once committed it stays in Git history (or accept it: .gitleaksignore <file>:<rule-id>:<line>)",
		"EchoesVault/pages/links.md:wikilink-missing":                     "link '[[missing-page]]' names no page of the vault",
		"EchoesVault/pages/links.md:asset-missing":                        "embed '![[gone.png]]' names a file missing from EchoesVault/assets/",
		".ecc/memory/team/notes/mem_alpha.md:memory-broken-link":          "ECC memory 'mem_alpha' links to 'mem_missing', which no team memory of this snapshot holds",
		".ecc/memory/team/notes/dup.md:memory-duplicate-id":               "ECC memory id 'mem_beta' is also held by .ecc/memory/team/notes/mem_beta.md; reads of it fail as duplicated",
		".ecc/memory/team/notes/secret.md:memory-invalid":                 "ECC memory 'mem_secret' is quarantined by the memory readers (suspected provider API key); memory readers skip it and every memory read becomes incomplete",
		".ecc/memory/team/facts/bad.md:memory-invalid":                    "ECC memory document is invalid or unreadable (ecc.memory.v1); memory readers skip it and every memory read becomes incomplete",
		".ecc/memory/project/notes/mem_proj1.md:memory-project-committed": "project-scope ECC memory is committed; project memories are local operator context and must never be committed (run: git rm --cached -- .ecc/memory/project/notes/mem_proj1.md)",
	} {
		if msgs[k] != want {
			t.Errorf("%s: message\n got %q\nwant %q", k, msgs[k], want)
		}
	}
	// Warnings alone pass, and fail with Strict.
	for _, p := range []string{"EchoesVault/pages/secret.md", ".ecc/memory/team/notes/dup.md", ".ecc/memory/team/notes/secret.md",
		".ecc/memory/team/facts/bad.md", ".ecc/memory/team/facts/wrongplace.md"} {
		sb.Git(root, "rm", "-q", p)
	}
	sb.Git(root, "rm", "-q", "--cached", ".ecc/memory/project/notes/mem_proj1.md")
	w("EchoesVault/daily/2026-01-01/entry.md", "### Scratchpad\n\nsee [[nowhere]]\n")
	sb.Git(root, "add", "-A")
	sb.Git(root, "commit", "--no-verify", "-qm", "fix the errors")
	for _, src := range []CheckSource{CheckWorkTree, CheckStaged, CheckRev} {
		res := mustCheck(t, e, CheckOptions{Source: src, Rev: "HEAD"})
		if !res.OK() || res.Errors() != 0 || res.Warnings() != 4 {
			t.Errorf("%v after the fixes: %q", src, lineRules(res))
		}
		if res := mustCheck(t, e, CheckOptions{Source: src, Rev: "HEAD", Strict: true}); res.OK() {
			t.Errorf("%v strict: warnings passed", src)
		}
	}
}

// Every rule has a severity, the pre-existing ones (windows-name included)
// are errors, and an unknown rule fails closed as an error.
func TestCheckRuleSeverities(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range CheckRules {
		if seen[r.Name] {
			t.Errorf("rule %s listed twice", r.Name)
		}
		seen[r.Name] = true
	}
	for _, r := range []string{rulePageInvalid, ruleNameCollision, ruleConflictMarker, ruleUnmergedPath, ruleLocalOnlyCommitted,
		ruleMarkerInvalid, ruleMarkerMissing, ruleUntrackedDurable, ruleWindowsName, ruleUnsafeName, ruleSecret,
		ruleMemoryInvalid, ruleMemoryDuplicateID, ruleMemoryTruncated, ruleMemoryProjectCommitted} {
		if !seen[r] || (Finding{Rule: r}).Severity() != SeverityError {
			t.Errorf("%s: not an error rule", r)
		}
	}
	for _, r := range []string{ruleMemoryBrokenLink, ruleMemorySymlink, ruleWikilinkMissing, ruleAssetMissing} {
		if !seen[r] || (Finding{Rule: r}).Severity() != SeverityWarning {
			t.Errorf("%s: not a warning rule", r)
		}
	}
	if (Finding{Rule: "no-such-rule"}).Severity() != SeverityError {
		t.Error("an unknown rule is not an error")
	}
}

// Team-vault symlinks (never followed by readers) are warnings and too-deep
// directories truncate the scan (an error), from the index and a commit
// (plumbing: no symlink on disk needed) and from the work tree where the
// OS can make one.
func TestCheckTeamMemorySymlinkAndDepth(t *testing.T) {
	sb, e := checkRepo(t)
	root := e.WS.Root
	deep := ".ecc/memory/team/notes/1/2/3/4/5/6/7/8/mem_deep1.md"
	testenv.WriteFile(t, filepath.Join(root, filepath.FromSlash(deep)), memDoc("mem_deep1", "note", "team", "Deep."))
	okDeep := ".ecc/memory/team/notes/1/2/3/4/5/6/7/mem_deep2.md" // 8 levels: read
	testenv.WriteFile(t, filepath.Join(root, filepath.FromSlash(okDeep)), memDoc("mem_deep2", "note", "team", "Deep enough."))
	sb.Git(root, "add", "-A")
	blob, err := sb.Run(root, nil, []byte("mem_deep2.md"), "hash-object", "-w", "--stdin")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sb.Run(root, nil, []byte("120000 "+strings.TrimSpace(blob)+"\t.ecc/memory/team/notes/link.md\n"), "update-index", "--index-info"); err != nil {
		t.Fatal(err)
	}
	sb.Git(root, "commit", "--no-verify", "-qm", "deep")
	want := []string{".ecc/memory/team:0:memory-truncated", ".ecc/memory/team/notes/link.md:0:memory-symlink"}
	sources := []CheckSource{CheckStaged, CheckRev}
	if runtime.GOOS != "windows" {
		if err := os.Symlink("mem_deep2.md", filepath.Join(root, ".ecc/memory/team/notes/link.md")); err != nil {
			t.Fatal(err)
		}
		sources = append(sources, CheckWorkTree)
	}
	for _, src := range sources {
		res := mustCheck(t, e, CheckOptions{Source: src, Rev: "HEAD"})
		if got := lineRules(res); !reflect.DeepEqual(got, want) {
			t.Errorf("%v: findings %q, want %q", src, got, want)
		}
	}
}

// A team memory path that cannot exist on Windows is a windows-name
// finding like a vault path (staged with plumbing: no such file on disk).
func TestCheckTeamMemoryWindowsName(t *testing.T) {
	sb, e := checkRepo(t)
	root := e.WS.Root
	blob, err := sb.Run(root, nil, []byte(memDoc("mem_winname", "note", "team", "Aux.")), "hash-object", "-w", "--stdin")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sb.Run(root, nil, []byte("100644 "+strings.TrimSpace(blob)+"\t.ecc/memory/team/notes/aux.md\n"), "update-index", "--index-info"); err != nil {
		t.Fatal(err)
	}
	sb.Git(root, "commit", "--no-verify", "-qm", "aux")
	want := []Finding{{Path: ".ecc/memory/team/notes/aux.md", Rule: ruleWindowsName,
		Message: "name cannot exist on Windows: 'aux.md' (reserved device name AUX); git checkout fails for every Windows clone, so rename it"}}
	for _, src := range []CheckSource{CheckStaged, CheckRev} {
		if res := mustCheck(t, e, CheckOptions{Source: src, Rev: "HEAD"}); !reflect.DeepEqual(res.Findings, want) {
			t.Errorf("%v: %#v", src, res.Findings)
		}
	}
}

// An unmerged team memory is reported once (not validated stage by
// stage), like an unmerged vault path.
func TestCheckTeamMemoryUnmerged(t *testing.T) {
	sb, e := checkRepo(t)
	root := e.WS.Root
	p := filepath.Join(root, ".ecc/memory/team/notes/mem_conflict.md")
	testenv.WriteFile(t, p, memDoc("mem_conflict", "note", "team", "Base."))
	sb.Git(root, "add", "-A")
	sb.Git(root, "commit", "-qm", "base")
	sb.Git(root, "checkout", "-qb", "side")
	testenv.WriteFile(t, p, memDoc("mem_conflict", "note", "team", "Side."))
	sb.Git(root, "commit", "-qam", "side")
	sb.Git(root, "checkout", "-q", "main")
	testenv.WriteFile(t, p, memDoc("mem_conflict", "note", "team", "Main."))
	sb.Git(root, "commit", "-qam", "main")
	if _, err := sb.Run(root, nil, nil, "merge", "side"); err == nil {
		t.Fatal("merge should conflict")
	}
	res := mustCheck(t, e, CheckOptions{Source: CheckStaged})
	if got := lineRules(res); !reflect.DeepEqual(got, []string{".ecc/memory/team/notes/mem_conflict.md:0:unmerged-path"}) {
		t.Errorf("staged: %q", got)
	}
	// The work tree holds the conflict markers, in the body, where the
	// readers would take them for text; the index still says unmerged.
	res = mustCheck(t, e, CheckOptions{Source: CheckWorkTree})
	if got := lineRules(res); !reflect.DeepEqual(got, []string{".ecc/memory/team/notes/mem_conflict.md:0:unmerged-path",
		".ecc/memory/team/notes/mem_conflict.md:17:conflict-marker", ".ecc/memory/team/notes/mem_conflict.md:19:conflict-marker",
		".ecc/memory/team/notes/mem_conflict.md:21:conflict-marker"}) {
		t.Errorf("work tree: %q", got)
	}
}

package gate

import (
	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/internal/workpool"
	"path"
	"runtime"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/git-echoes/git-echoes/gitvault/memory"
	"github.com/git-echoes/git-echoes/internal/secretscan"
)

// The secret rule (protocol §17: credentials MUST NOT be stored) runs
// gitleaks' maintained rule set (internal/secretscan, issue 22) and, beside
// it, the memory vault's own ten families (ecc-conformance §10.1), so the
// gate refuses everything a memory save refuses. A repository accepts a
// finding with the files gitleaks teams already keep at the top of the
// workspace (gitvault.GitleaksIgnoreFile, gitvault.GitleaksConfigFile), read
// with the snapshot from its source (gitvault/snapshot_secrets.go):
//
//   - .gitleaksignore: fingerprints "file:rule-id:line" (any source) and
//     "commit:file:rule-id:line" (check --rev of that commit); rule-id is a
//     gitleaks rule id, an ecc-* family id, or "secret" for every family
//     of that line;
//   - .gitleaks.toml: its allowlists (secretscan.Scanner.WithTeamConfig).

// eccKeywords are the pre-filter keywords of the memory vault's families:
// lowercase literals that every match of the family's patterns holds.
var eccKeywords = map[string][]string{
	"provider API key":   {"sk-"},
	"Stripe key":         {"_live_"},
	"npm token":          {"npm_"},
	"Hugging Face token": {"hf_"},
	"GitHub token":       {"ghp_", "gho_", "ghr_", "ghs_", "github_pat_"},
	"Google API key":     {"aiza"},
	"Slack token":        {"xox"},
	"AWS access key":     {"akia", "asia"},
	"private key":        {"-----begin "},
}

// eccLabels maps a memory family's rule id back to its label. Built on
// first use: it compiles the memory patterns, which no process should pay
// at init (issue 19, TestInitAllowlist).
var eccLabels = sync.OnceValue(func() map[string]string {
	m := map[string]string{}
	for _, p := range memory.SecretPatterns() {
		m[eccRuleID(p.Label)] = p.Label
	}
	return m
})

// eccAllowlists names the gitleaks rule whose allowlists (documentation
// examples such as AWS's ...EXAMPLE keys) a memory family shares.
var eccAllowlists = map[string]string{
	"AWS access key": "aws-access-token",
	"Google API key": "gcp-api-key",
}

// eccRuleID is the rule id of a memory family in findings and
// fingerprints: "ecc-" and the label in lowercase words joined by '-'.
func eccRuleID(label string) string {
	return "ecc-" + strings.Join(strings.Fields(strings.ToLower(label)), "-")
}

var (
	gateScannerOnce sync.Once
	gateScanner     *secretscan.Scanner
	gateScannerErr  error
)

// baseSecretScanner is gitleaks' rules plus the memory families, built once
// per process.
func baseSecretScanner() (*secretscan.Scanner, error) {
	gateScannerOnce.Do(func() {
		s, err := secretscan.Default()
		if err != nil {
			gateScannerErr = err
			return
		}
		var extra []secretscan.ExtraRule
		index := map[string]int{}
		for _, p := range memory.SecretPatterns() {
			if i, ok := index[p.Label]; ok { // a second pattern of the family
				extra[i].Regex = "(?:" + extra[i].Regex + ")|(?:" + p.Regex + ")"
				continue
			}
			index[p.Label] = len(extra)
			extra = append(extra, secretscan.ExtraRule{ID: eccRuleID(p.Label), Regex: p.Regex,
				Keywords: eccKeywords[p.Label], AllowlistsOf: eccAllowlists[p.Label], Fallback: true})
		}
		gateScanner, gateScannerErr = s.WithRules(extra)
	})
	return gateScanner, gateScannerErr
}

// secretGate is the secret rule of one snapshot.
type secretGate struct {
	scanner  *secretscan.Scanner
	ignore   *secretscan.Ignore
	commit   string
	findings []Finding // problems of the allowlist files themselves
}

func newSecretGate(s *gitvault.Snapshot) *secretGate {
	g := &secretGate{commit: s.Gate.Secrets.Commit}
	sc, err := baseSecretScanner()
	if err != nil {
		// Fail closed: a rule set that cannot run reports every file.
		g.findings = append(g.findings, Finding{Path: gitvault.VaultPrefix, Rule: ruleSecret,
			Message: "the secret scanner cannot run: " + err.Error()})
		return g
	}
	g.scanner = sc
	if data := s.Gate.Secrets.TOML; data != nil {
		team, err := sc.WithTeamConfig(string(data))
		if err != nil {
			g.findings = append(g.findings, Finding{Path: gitvault.GitleaksConfigFile, Rule: ruleSecret,
				Message: "gitleaks configuration is invalid, so none of its allowlists apply: " + err.Error()})
		} else {
			g.scanner = team
		}
	}
	if data := s.Gate.Secrets.Ignore; data != nil {
		ig, invalid := secretscan.ParseIgnore(string(data))
		g.ignore = ig
		for _, n := range invalid {
			g.findings = append(g.findings, Finding{Path: gitvault.GitleaksIgnoreFile, Line: n, Rule: ruleSecret,
				Message: "not a gitleaks fingerprint (file:rule-id:line or commit:file:rule-id:line); it allows nothing"})
		}
	}
	return g
}

// scan reports the lines of text (the file at p) holding credentials, one
// finding per line naming its rule ids, never the value.
func (g *secretGate) scan(p, text string) []Finding {
	if g == nil || g.scanner == nil {
		if g != nil {
			return []Finding{{Path: p, Rule: ruleSecret, Message: "not scanned for credentials: the secret scanner cannot run"}}
		}
		return nil
	}
	found, err := g.scanner.Scan(p, g.commit, text)
	if err != nil {
		return []Finding{{Path: p, Rule: ruleSecret, Message: "not scanned for credentials: " + err.Error()}}
	}
	var out []Finding
	var ids []string
	flush := func(line int) {
		if len(ids) > 0 && !g.ignore.Allows(g.commit, p, ruleSecret, line) {
			out = append(out, Finding{Path: p, Line: line, Rule: ruleSecret, Message: secretMessage(ids)})
		}
		ids = nil
	}
	for i, f := range found {
		if i > 0 && found[i-1].Line != f.Line {
			flush(found[i-1].Line)
		}
		if g.ignore.Allows(g.commit, p, f.RuleID, f.Line) {
			continue
		}
		ids = append(ids, f.RuleID)
	}
	if n := len(found); n > 0 {
		flush(found[n-1].Line)
	}
	return out
}

// isScannedText reports whether data is text for the secret rule: UTF-8
// without NUL bytes (an image or archive in assets/ is not scanned, as
// gitleaks skips binary files).
func isScannedText(data []byte) bool {
	return utf8.Valid(data) && !strings.Contains(string(data), "\x00")
}

// otherSecretFindings scans the vault's regular files that contentFindings
// does not read (only *.md files are pages, daily entries, raw sources or
// the protocol file): text assets, raw sources of other types, the
// marker. index.md is generated and local-only (reported as such).
func otherSecretFindings(s *gitvault.Snapshot, g *secretGate) []Finding {
	var todo []int
	for i, f := range s.Files {
		if f.Regular && !gitvault.IsPageFileName(path.Base(f.Path)) {
			todo = append(todo, i)
		}
	}
	results := make([][]Finding, len(todo))
	workpool.Each(len(todo), runtime.GOMAXPROCS(0), func() func(int) {
		return func(k int) {
			f := s.Files[todo[k]]
			data, err := f.Read()
			if err != nil {
				results[k] = []Finding{{Path: f.Path, Rule: ruleSecret, Message: "not scanned for credentials: cannot read it: " + gitvault.ReadDetail(err)}}
				return
			}
			if isScannedText(data) {
				results[k] = g.scan(f.Path, string(data))
			}
		}
	})
	var out []Finding
	for _, r := range results {
		out = append(out, r...)
	}
	return out
}

// teamSecretFindings scans the team memories that CheckFiles read (data
// indexed like s.gate.team; nil: not read) with the gate's scanner, in
// place of CheckFiles' own line scan of the ten families.
func teamSecretFindings(s *gitvault.Snapshot, g *secretGate, read [][]byte) []Finding {
	var out []Finding
	for i, data := range read {
		if data != nil {
			out = append(out, g.scan(s.Gate.Team[i].Path, string(data))...)
		}
	}
	return out
}

// secretMessage names each rule of a line: a gitleaks rule by its id
// (which names the provider and the credential, "gitlab-pat"), a memory
// family by its label and id ("GitHub token [ecc-github-token]").
func secretMessage(ids []string) string {
	names := make([]string, len(ids))
	for i, id := range ids {
		names[i] = id
		if label, ok := eccLabels()[id]; ok {
			names[i] = label + " [" + id + "]"
		}
	}
	return "suspected credential (" + strings.Join(names, ", ") + "); the value is not shown. Remove it and rotate the credential: " +
		"once committed it stays in Git history (or accept it: " + gitvault.GitleaksIgnoreFile + " " +
		"<file>:<rule-id>:<line>)"
}

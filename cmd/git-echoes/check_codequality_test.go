package main

import (
	"encoding/json"
	"github.com/git-echoes/git-echoes/gitvault/gate"
	"testing"

	"github.com/git-echoes/git-echoes/internal/forgetest"
)

// decodeCQ renders res as a Code Quality report, checks it against the
// documented schema and decodes it.
func decodeCQ(t *testing.T, res *gate.CheckResult) []codeQualityIssue {
	t.Helper()
	out := renderCodeQuality(res)
	if err := forgetest.ValidateCodeQuality([]byte(out)); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var issues []codeQualityIssue
	if err := json.Unmarshal([]byte(out), &issues); err != nil {
		t.Fatal(err)
	}
	return issues
}

func TestCodeQualityReport(t *testing.T) {
	link := gate.Finding{Path: "EchoesVault/pages/a.md", Line: 4, Rule: "wikilink-missing", Message: "link '[[x]]' names no page of the vault"}
	secret := gate.Finding{Path: "EchoesVault/pages/a.md", Line: 9, Rule: "secret", Message: "suspected credential (GitHub token); the value is not shown"}
	page := gate.Finding{Path: "EchoesVault/pages/a.md", Rule: "page-invalid", Message: "Invalid page a.md"}

	// An empty report is an empty array, not null: GitLab parses it.
	if out := renderCodeQuality(&gate.CheckResult{}); out != "[]\n" {
		t.Fatalf("clean snapshot: %q, want []", out)
	}

	base := decodeCQ(t, &gate.CheckResult{Findings: []gate.Finding{page, link, secret}})
	want := []struct{ sev, rule string }{{"blocker", "page-invalid"}, {"minor", "wikilink-missing"}, {"blocker", "secret"}}
	for i, w := range want {
		if base[i].Severity != w.sev || base[i].CheckName != w.rule {
			t.Errorf("issue %d: severity %s check %s, want %s %s", i, base[i].Severity, base[i].CheckName, w.sev, w.rule)
		}
	}
	if base[0].Location.Lines.Begin != 1 || base[1].Location.Lines.Begin != 4 {
		t.Errorf("lines: %+v %+v (a whole-file finding is line 1)", base[0].Location, base[1].Location)
	}

	// --strict: a warning fails the gate, so it is more than minor.
	strict := decodeCQ(t, &gate.CheckResult{Strict: true, Findings: []gate.Finding{link}})
	if strict[0].Severity != "major" {
		t.Errorf("strict warning severity %s, want major", strict[0].Severity)
	}

	// Lines inserted above the findings move them; their fingerprints stay,
	// so GitLab does not report them as resolved and new.
	moved := link
	moved.Line += 10
	movedSecret := secret
	movedSecret.Line += 10
	after := decodeCQ(t, &gate.CheckResult{Findings: []gate.Finding{page, moved, movedSecret}})
	for i := range base {
		if base[i].Fingerprint != after[i].Fingerprint {
			t.Errorf("issue %d: fingerprint changed when its line moved", i)
		}
	}

	// The same problem twice in one file is two issues (distinct
	// fingerprints, checked by the schema validation); another file or rule
	// is another fingerprint.
	other := link
	other.Path = "EchoesVault/pages/b.md"
	twice := decodeCQ(t, &gate.CheckResult{Findings: []gate.Finding{link, moved, other}})
	if twice[0].Fingerprint != base[1].Fingerprint {
		t.Errorf("the first of two identical findings keeps the fingerprint of one alone")
	}
	if twice[2].Fingerprint == twice[0].Fingerprint {
		t.Errorf("same finding in another file has the same fingerprint")
	}
}

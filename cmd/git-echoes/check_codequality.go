package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"github.com/git-echoes/git-echoes/gitvault/gate"
	"strconv"
	"strings"
)

// `check --format codequality` (issue 20): the gate's findings as a GitLab
// Code Quality report, the JSON GitLab reads from `artifacts: reports:
// codequality:` (GitLab docs, "Code Quality", "Code Quality report format":
// an array of objects with description, check_name, fingerprint, severity,
// location.path and location.lines.begin). The exit status is the gate's,
// as for every other format.

// codeQualityIssue is one entry of the report, in the documented field order.
type codeQualityIssue struct {
	Description string              `json:"description"`
	CheckName   string              `json:"check_name"`
	Fingerprint string              `json:"fingerprint"`
	Severity    string              `json:"severity"`
	Location    codeQualityLocation `json:"location"`
}

type codeQualityLocation struct {
	Path  string           `json:"path"`
	Lines codeQualityLines `json:"lines"`
}

type codeQualityLines struct {
	Begin int `json:"begin"`
}

// codeQualitySeverity maps the gate's two severities onto GitLab's five
// (info, minor, major, critical, blocker): an error fails the gate, so it
// blocks the merge ("blocker"); a warning does not, unless --strict made it
// fail the gate too ("major"), else it is "minor".
func codeQualitySeverity(f gate.Finding, strict bool) string {
	if f.Severity() != gate.SeverityWarning {
		return "blocker"
	}
	if strict {
		return "major"
	}
	return "minor"
}

// codeQualityFingerprint identifies a finding across commits. GitLab
// compares the fingerprints of the source and target branches' reports to
// show which findings a merge request adds and which it resolves, so the
// fingerprint must survive edits that do not touch the problem:
//
//   - not the line number: a line inserted above a broken link would make
//     it "resolved" and a "new" one appear;
//   - not the line's content: for a secret that is the credential itself,
//     and a hash of a high-value line lets anyone who can read the report
//     confirm a guessed value; the message already names what is wrong
//     (the link target, the missing keys, the credential family) and never
//     the value;
//   - rule, path and message, plus the finding's rank among the findings
//     with that same rule, path and message (two identical broken links in
//     one page stay two issues; removing the first makes the second take
//     its fingerprint, which is the same issue still being there).
//
// A renamed file gets new fingerprints: to GitLab its issues are new.
func codeQualityFingerprint(f gate.Finding, rank int) string {
	h := sha256.New()
	for _, part := range []string{"git-echoes check", f.Rule, f.Path, f.Message, strconv.Itoa(rank)} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// renderCodeQuality renders the report: always an array, empty when the
// snapshot is clean (GitLab then shows no issues rather than a parse error).
func renderCodeQuality(res *gate.CheckResult) string {
	issues := make([]codeQualityIssue, 0, len(res.Findings))
	seen := map[[3]string]int{}
	for _, f := range res.Findings {
		key := [3]string{f.Rule, f.Path, f.Message}
		rank := seen[key]
		seen[key] = rank + 1
		begin := f.Line
		if begin < 1 {
			begin = 1 // a whole-file finding: GitLab needs a line, the first
		}
		issues = append(issues, codeQualityIssue{
			Description: f.Message,
			CheckName:   f.Rule,
			Fingerprint: codeQualityFingerprint(f, rank),
			Severity:    codeQualitySeverity(f, res.Strict),
			Location:    codeQualityLocation{Path: f.Path, Lines: codeQualityLines{Begin: begin}},
		})
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(issues); err != nil {
		// Only strings and ints: encoding cannot fail.
		panic(err)
	}
	return b.String()
}

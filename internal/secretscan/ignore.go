package secretscan

import (
	"strconv"
	"strings"
)

// Ignore is a parsed .gitleaksignore: fingerprints of findings a
// repository accepts, in gitleaks' format (detect.go AddGitleaksIgnore):
// "file:rule-id:line" for any source, "commit:file:rule-id:line" for one
// commit. Blank lines and lines starting with '#' are skipped; a
// backslash in the file part reads as '/'. Lines of another shape are
// returned by ParseIgnore as invalid, so a caller can report them rather
// than silently allowing nothing.
type Ignore struct {
	global map[string]bool // file:rule:line
	commit map[string]bool // commit:file:rule:line, commit lowercased
}

// ParseIgnore parses the text of a .gitleaksignore file. invalid lists the
// 1-based numbers of the lines that are not fingerprints.
func ParseIgnore(text string) (ig *Ignore, invalid []int) {
	ig = &Ignore{global: map[string]bool{}, commit: map[string]bool{}}
	for n, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.Split(line, ":")
		switch len(parts) {
		case 3:
			if _, err := strconv.Atoi(parts[2]); err != nil || parts[0] == "" || parts[1] == "" {
				invalid = append(invalid, n+1)
				continue
			}
			parts[0] = strings.ReplaceAll(parts[0], `\`, "/")
			ig.global[strings.Join(parts, ":")] = true
		case 4:
			if _, err := strconv.Atoi(parts[3]); err != nil || parts[0] == "" || parts[1] == "" || parts[2] == "" {
				invalid = append(invalid, n+1)
				continue
			}
			parts[0] = strings.ToLower(parts[0])
			parts[1] = strings.ReplaceAll(parts[1], `\`, "/")
			ig.commit[strings.Join(parts, ":")] = true
		default:
			invalid = append(invalid, n+1)
		}
	}
	return ig, invalid
}

// Allows reports whether the fingerprint of a finding is listed: its
// global form, or (commit not "") its commit form.
func (ig *Ignore) Allows(commit, file, ruleID string, line int) bool {
	if ig == nil {
		return false
	}
	fp := file + ":" + ruleID + ":" + strconv.Itoa(line)
	if ig.global[fp] {
		return true
	}
	return commit != "" && ig.commit[strings.ToLower(commit)+":"+fp]
}

// Len is the number of fingerprints.
func (ig *Ignore) Len() int {
	if ig == nil {
		return 0
	}
	return len(ig.global) + len(ig.commit)
}

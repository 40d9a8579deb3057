package memory

import (
	"strings"
)

// GateFile is one file of a scope as a Git snapshot (an index or a commit
// tree) or a work tree holds it, for CheckFiles.
type GateFile struct {
	Rel string // slash-separated, relative to the scope root
	// Symlink marks a symbolic link, which readers never follow and doctor
	// reports (ecc-conformance §11.2).
	Symlink bool
	// Regular marks a regular file; anything else that is not a symlink
	// (a submodule) is ignored, as the walk ignores FIFOs and sockets.
	Regular bool
	Read    func() ([]byte, error)
}

// Gate issue codes beyond the scan's diagnostic codes (DiagInvalidDocument,
// DiagLocationMismatch, DiagSuspectedSecret).
const (
	GateDuplicateID = "duplicate-id"
	GateBrokenLink  = "broken-link"
	GateSymlink     = "symlink"
	GateTruncated   = "truncated"
	// GateSecret is a line of a document holding a known credential shape
	// (SecretLines over the raw text, which also finds what the read-time
	// rule misses at the start of a body line, ecc-conformance §10.2).
	GateSecret = "secret"
)

// GateIssue is one problem CheckFiles found. It never carries file content:
// secrets are named by their family only.
type GateIssue struct {
	Rel  string // the file (for GateTruncated: "")
	Code string
	// ID is the memory's id (duplicate-id, broken-link).
	ID string
	// Target is the missing link target (broken-link).
	Target string
	// Others are the other files holding the same id (duplicate-id), in
	// walk order.
	Others []string
	// Labels are the credential families of DiagSuspectedSecret and
	// GateSecret.
	Labels []string
	// Line is the 1-based line of GateSecret.
	Line int
}

// CheckFiles validates the files of one scope exactly as the scan reads
// them (ecc-conformance §11: dot entries and non-.md files skipped,
// symlinks skipped and reported, at most MaxScanDepth levels, the
// document rules of ecc-conformance §6 and ecc-conformance §7, the location check, the
// read-time secret rule of ecc-conformance §10.2), then applies doctor's
// duplicate-id and broken-link rules (ecc-conformance §14) to the valid
// documents of that scope alone: a link into another scope counts as
// broken, as doctor counts links into scopes it did not scan. files must
// be sorted by Rel; the issues come in that order (the duplicate and link
// issues after the per-file ones), with GateTruncated last when the scope
// exceeds the scan's entry or byte budget, which makes every read of it
// incomplete (ecc-conformance §13.1). documents counts the files read as
// memory documents.
func CheckFiles(scope string, files []GateFile) (issues []GateIssue, documents int) {
	var out []GateIssue
	entries := map[string]bool{} // entries the walk visits, for the budget
	type valid struct {
		rel string
		m   *Memory
	}
	var docs []valid
	truncated := false
	bytes := 0
	for _, f := range files {
		rel := f.Rel
		reached, deep := walkFate(rel, entries)
		if deep {
			truncated = true
		}
		if !reached {
			continue
		}
		name := rel[strings.LastIndexByte(rel, '/')+1:]
		switch {
		case f.Symlink:
			out = append(out, GateIssue{Rel: rel, Code: GateSymlink})
			continue
		case !f.Regular || strings.HasPrefix(name, ".") || !strings.HasSuffix(name, ".md"):
			continue
		}
		documents++
		data, err := f.Read()
		if err != nil || len(data) > MaxDocumentBytes {
			out = append(out, GateIssue{Rel: rel, Code: DiagInvalidDocument})
			continue
		}
		text, ok := DecodeUTF8Fatal(data)
		if !ok {
			out = append(out, GateIssue{Rel: rel, Code: DiagInvalidDocument})
			continue
		}
		bytes += len(text)
		for _, l := range SecretLines(text) {
			out = append(out, GateIssue{Rel: rel, Code: GateSecret, Line: l.Line, Labels: l.Labels})
		}
		switch m, code := judge(text, scope, rel); code {
		case "":
			docs = append(docs, valid{rel, m})
		case DiagInvalidDocument:
			out = append(out, GateIssue{Rel: rel, Code: code})
		case DiagSuspectedSecret:
			out = append(out, GateIssue{Rel: rel, Code: code, ID: m.ID, Labels: secretsOnRead(m)})
		default:
			out = append(out, GateIssue{Rel: rel, Code: code, ID: m.ID})
		}
	}
	byID := map[string][]string{}
	for _, d := range docs {
		byID[d.m.ID] = append(byID[d.m.ID], d.rel)
	}
	for _, d := range docs {
		if paths := byID[d.m.ID]; len(paths) > 1 {
			var others []string
			for _, p := range paths {
				if p != d.rel {
					others = append(others, p)
				}
			}
			out = append(out, GateIssue{Rel: d.rel, Code: GateDuplicateID, ID: d.m.ID, Others: others})
		}
	}
	for _, d := range docs {
		for _, l := range d.m.Links {
			if _, ok := byID[l]; !ok {
				out = append(out, GateIssue{Rel: d.rel, Code: GateBrokenLink, ID: d.m.ID, Target: l})
			}
		}
	}
	if truncated || len(entries) > MaxScanEntries || bytes > MaxScanBytes {
		out = append(out, GateIssue{Code: GateTruncated})
	}
	return out, documents
}

// walkFate follows the scan's walk (ecc-conformance §11.2) to the file at
// rel: reached is whether the walk lists it (no directory on the way starts
// with '.' or sits deeper than MaxScanDepth), deep whether a too-deep
// directory on the way truncates the scan. It records in entries every
// entry the walk visits on the way, for the entry budget.
func walkFate(rel string, entries map[string]bool) (reached, deep bool) {
	for i := 0; ; {
		j := strings.IndexByte(rel[i:], '/')
		if j < 0 {
			entries[rel] = true
			return true, false
		}
		dir := rel[:i+j]
		entries[dir] = true
		depth := strings.Count(dir, "/") + 1
		if strings.HasPrefix(rel[i:], ".") {
			return false, false // a dot directory: listed, never entered
		}
		if depth > MaxScanDepth {
			return false, true
		}
		i += j + 1
	}
}

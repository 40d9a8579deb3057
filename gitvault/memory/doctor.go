package memory

import (
	"sort"

	"github.com/git-echoes/git-echoes/internal/jsjson"
)

// DoctorSchema is the doctor report's schemaVersion.
const DoctorSchema = "ecc.memory.doctor.v1"

// DoctorOptions select the scopes (nil: project and team) and an optional
// harness filter ("" for none; an MCP server passes its identity, and then
// links to memories hidden from it count as broken, as in the reference).
type DoctorOptions struct {
	Scopes        []string
	TargetHarness string
}

// DuplicateID is one id held by several visible files (paths in scan order).
type DuplicateID struct {
	ID    string
	Paths []string
}

// BrokenLink is a link whose target is not a visible memory.
type BrokenLink struct {
	SourceID string
	TargetID string
	Path     string
}

// DoctorReport is the read-only audit of a vault (ecc-conformance §14).
type DoctorReport struct {
	OK                   bool
	MemoryCount          int
	InvalidFiles         []InvalidFile
	InvalidFileCount     int
	DuplicateIDs         []DuplicateID
	DuplicateIDCount     int
	BrokenLinks          []BrokenLink
	BrokenLinkCount      int
	SkippedSymlinks      []string
	SkippedSymlinkCount  int
	ScannedBytes         int
	Truncated            bool
	DiagnosticsTruncated bool
}

// JSON returns the full report in the reference's key order.
func (d *DoctorReport) JSON() jsjson.Object {
	inv := make([]any, len(d.InvalidFiles))
	for i, f := range d.InvalidFiles {
		inv[i] = f
	}
	dups := make([]any, len(d.DuplicateIDs))
	for i, g := range d.DuplicateIDs {
		dups[i] = jsjson.Object{{Key: "id", Value: g.ID}, {Key: "paths", Value: g.Paths}}
	}
	broken := make([]any, len(d.BrokenLinks))
	for i, b := range d.BrokenLinks {
		broken[i] = jsjson.Object{{Key: "sourceId", Value: b.SourceID}, {Key: "targetId", Value: b.TargetID}, {Key: "path", Value: b.Path}}
	}
	return jsjson.Object{
		{Key: "schemaVersion", Value: DoctorSchema}, {Key: "ok", Value: d.OK}, {Key: "memoryCount", Value: d.MemoryCount},
		{Key: "invalidFiles", Value: inv}, {Key: "invalidFileCount", Value: d.InvalidFileCount},
		{Key: "duplicateIds", Value: dups}, {Key: "duplicateIdCount", Value: d.DuplicateIDCount},
		{Key: "brokenLinks", Value: broken}, {Key: "brokenLinkCount", Value: d.BrokenLinkCount},
		{Key: "skippedSymlinks", Value: nonNil(d.SkippedSymlinks)}, {Key: "skippedSymlinkCount", Value: d.SkippedSymlinkCount},
		{Key: "scannedBytes", Value: d.ScannedBytes}, {Key: "truncated", Value: d.Truncated},
		{Key: "diagnosticsTruncated", Value: d.DiagnosticsTruncated},
	}
}

// CountsJSON returns the counts-only form an MCP server returns, which
// avoids revealing other harnesses' file paths.
func (d *DoctorReport) CountsJSON() jsjson.Object {
	return jsjson.Object{
		{Key: "schemaVersion", Value: DoctorSchema}, {Key: "ok", Value: d.OK}, {Key: "memoryCount", Value: d.MemoryCount},
		{Key: "invalidFileCount", Value: d.InvalidFileCount}, {Key: "duplicateIdCount", Value: d.DuplicateIDCount},
		{Key: "brokenLinkCount", Value: d.BrokenLinkCount}, {Key: "skippedSymlinkCount", Value: d.SkippedSymlinkCount},
		{Key: "scannedBytes", Value: d.ScannedBytes}, {Key: "truncated", Value: d.Truncated},
		{Key: "diagnosticsTruncated", Value: d.DiagnosticsTruncated},
	}
}

// Doctor audits the requested scopes without changing anything. It fails
// only on option validation, root-safety errors and directory I/O errors
// (CodeIncomplete); vault problems are reported, with OK false.
func Doctor(r *Roots, opts DoctorOptions) (*DoctorReport, error) {
	scopes, err := ValidateScopes(opts.Scopes)
	if err != nil {
		return nil, err
	}
	harness := opts.TargetHarness
	if harness != "" {
		if harness, err = ValidateSlug("target harness", harness); err != nil {
			return nil, err
		}
	}
	sr, err := scan(r, scopes)
	if err != nil {
		return nil, err
	}
	var visible []Entry
	for _, e := range sr.Entries {
		if targets(e.Memory, harness) {
			visible = append(visible, e)
		}
	}
	d := &DoctorReport{
		MemoryCount: len(visible), InvalidFiles: sr.InvalidFiles, InvalidFileCount: sr.InvalidFileCount,
		SkippedSymlinks: sr.SkippedSymlinks, SkippedSymlinkCount: sr.SkippedSymlinkCount,
		ScannedBytes: sr.ScannedBytes, Truncated: sr.Truncated,
		DuplicateIDs: []DuplicateID{}, BrokenLinks: []BrokenLink{},
	}
	byID := map[string][]string{}
	var order []string
	for _, e := range visible {
		if _, seen := byID[e.Memory.ID]; !seen {
			order = append(order, e.Memory.ID)
		}
		byID[e.Memory.ID] = append(byID[e.Memory.ID], e.Path)
	}
	var dups []DuplicateID
	for _, id := range order {
		if len(byID[id]) > 1 {
			dups = append(dups, DuplicateID{ID: id, Paths: byID[id]})
		}
	}
	sort.SliceStable(dups, func(i, j int) bool { return localeCompare(dups[i].ID, dups[j].ID) < 0 })
	d.DuplicateIDCount = len(dups)
	if len(dups) > MaxDiagnostics {
		dups = dups[:MaxDiagnostics]
	}
	if dups != nil {
		d.DuplicateIDs = dups
	}
	for _, e := range visible {
		for _, l := range e.Memory.Links {
			if _, ok := byID[l]; ok {
				continue
			}
			d.BrokenLinkCount++
			if len(d.BrokenLinks) < MaxDiagnostics {
				d.BrokenLinks = append(d.BrokenLinks, BrokenLink{SourceID: e.Memory.ID, TargetID: l, Path: e.Path})
			}
		}
	}
	sort.SliceStable(d.BrokenLinks, func(i, j int) bool {
		return localeCompare(d.BrokenLinks[i].SourceID, d.BrokenLinks[j].SourceID) < 0
	})
	d.OK = d.InvalidFileCount == 0 && d.DuplicateIDCount == 0 && d.BrokenLinkCount == 0 &&
		d.SkippedSymlinkCount == 0 && !d.Truncated
	d.DiagnosticsTruncated = sr.DiagnosticsTruncated || d.DuplicateIDCount > len(d.DuplicateIDs) ||
		d.BrokenLinkCount > len(d.BrokenLinks)
	return d, nil
}

package memory

import "sort"

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
func (d *DoctorReport) JSON() Object {
	inv := make([]any, len(d.InvalidFiles))
	for i, f := range d.InvalidFiles {
		inv[i] = f
	}
	dups := make([]any, len(d.DuplicateIDs))
	for i, g := range d.DuplicateIDs {
		dups[i] = Object{{"id", g.ID}, {"paths", g.Paths}}
	}
	broken := make([]any, len(d.BrokenLinks))
	for i, b := range d.BrokenLinks {
		broken[i] = Object{{"sourceId", b.SourceID}, {"targetId", b.TargetID}, {"path", b.Path}}
	}
	return Object{
		{"schemaVersion", DoctorSchema}, {"ok", d.OK}, {"memoryCount", d.MemoryCount},
		{"invalidFiles", inv}, {"invalidFileCount", d.InvalidFileCount},
		{"duplicateIds", dups}, {"duplicateIdCount", d.DuplicateIDCount},
		{"brokenLinks", broken}, {"brokenLinkCount", d.BrokenLinkCount},
		{"skippedSymlinks", nonNil(d.SkippedSymlinks)}, {"skippedSymlinkCount", d.SkippedSymlinkCount},
		{"scannedBytes", d.ScannedBytes}, {"truncated", d.Truncated},
		{"diagnosticsTruncated", d.DiagnosticsTruncated},
	}
}

// CountsJSON returns the counts-only form an MCP server returns, which
// avoids revealing other harnesses' file paths.
func (d *DoctorReport) CountsJSON() Object {
	return Object{
		{"schemaVersion", DoctorSchema}, {"ok", d.OK}, {"memoryCount", d.MemoryCount},
		{"invalidFileCount", d.InvalidFileCount}, {"duplicateIdCount", d.DuplicateIDCount},
		{"brokenLinkCount", d.BrokenLinkCount}, {"skippedSymlinkCount", d.SkippedSymlinkCount},
		{"scannedBytes", d.ScannedBytes}, {"truncated", d.Truncated},
		{"diagnosticsTruncated", d.DiagnosticsTruncated},
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

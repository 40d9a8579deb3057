package memory

import "sort"

// ReadOptions select the scopes of a direct read (nil: project and team)
// and an optional harness filter ("" for none; an MCP server passes its
// identity).
type ReadOptions struct {
	Scopes        []string
	TargetHarness string
}

// ReadResult is one memory with its derived backlinks.
type ReadResult struct {
	Memory *Memory
	Path   string
	// Backlinks are the active memories linking to it, sorted by id, at
	// most MaxBacklinks (summaries; callers present them without body).
	Backlinks          []*Memory
	BacklinksTruncated bool
}

// Read looks up one memory by id (ecc-conformance §13). It never returns a
// partial answer: a truncated scan, or a scan with any invalid file, fails
// with CodeIncomplete before matching, because absence, uniqueness and
// complete backlinks cannot be proven. Missing ids fail with CodeNotFound,
// ids held by several files with CodeDuplicated. Status is not filtered.
func Read(r *Roots, id string, opts ReadOptions) (*ReadResult, error) {
	id, err := ValidateID(id)
	if err != nil {
		return nil, err
	}
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
	sr, err := scanShared(r, scopes) // read only: never modified here
	if err != nil {
		return nil, err
	}
	if sr.Truncated || sr.InvalidFileCount > 0 {
		return nil, incomplete(nil)
	}
	// On a kept scan the index names the candidates (scanmemo.go); the
	// filters and the order are the same as over every entry.
	entries, indexed := sr.Entries, false
	var ofID, linking []int32
	if x := sr.index; x != nil {
		x.build()
		entries, indexed, ofID, linking = x.entries, true, x.byID[id], x.linkedBy[id]
	}
	var matches []Entry
	for i := range each(indexed, ofID, len(entries)) {
		if e := entries[i]; e.Memory.ID == id && targets(e.Memory, harness) {
			matches = append(matches, e)
		}
	}
	switch {
	case len(matches) == 0:
		return nil, newErr(CodeNotFound, "Memory "+id+" was not found.")
	case len(matches) > 1:
		return nil, newErr(CodeDuplicated, "Memory "+id+" is duplicated in "+itoa(len(matches))+" files.")
	}
	var back []*Memory
	for i := range each(indexed, linking, len(entries)) {
		if e := entries[i]; e.Memory.Status == "active" && targets(e.Memory, harness) && contains(e.Memory.Links, id) {
			back = append(back, e.Memory)
		}
	}
	sort.SliceStable(back, func(i, j int) bool { return localeCompare(back[i].ID, back[j].ID) < 0 })
	res := &ReadResult{Memory: matches[0].Memory, Path: matches[0].Path, Backlinks: back}
	if len(back) > MaxBacklinks {
		res.Backlinks = back[:MaxBacklinks]
		res.BacklinksTruncated = true
	}
	if res.Backlinks == nil {
		res.Backlinks = []*Memory{}
	}
	return res, nil
}

// each yields the indices idx names, in order, when indexed, else every
// index 0…n-1.
func each(indexed bool, idx []int32, n int) func(yield func(int) bool) {
	return func(yield func(int) bool) {
		if !indexed {
			for i := range n {
				if !yield(i) {
					return
				}
			}
			return
		}
		for _, i := range idx {
			if !yield(int(i)) {
				return
			}
		}
	}
}

// BacklinksJSON returns the backlink summaries as a JSON array.
func (r *ReadResult) BacklinksJSON() []any {
	out := make([]any, len(r.Backlinks))
	for i, m := range r.Backlinks {
		out[i] = m.Summary()
	}
	return out
}

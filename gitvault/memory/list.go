package memory

import "sort"

// ListOptions select the scopes of a listing (nil: project and team) and an
// optional harness filter ("" for none), as for Read.
type ListOptions struct {
	Scopes        []string
	TargetHarness string
}

// ListResult is every valid memory of a scan, with the scan's diagnostics.
// Like SearchResponse it is not a complete inventory when
// Diagnostics.Truncated or InvalidFileCount say otherwise.
type ListResult struct {
	Entries     []Entry
	Diagnostics Diagnostics
}

// List is Scan (ecc-conformance §11: the same bounded scan as search,
// doctor and read) filtered by target harness and sorted by id. It is
// read-only, like every other reader of this package; a viewer uses it to
// browse the vault and derive links and backlinks.
func List(r *Roots, opts ListOptions) (*ListResult, error) {
	scopes, err := ValidateScopes(opts.Scopes) // before the harness, as Read does
	if err != nil {
		return nil, err
	}
	harness := opts.TargetHarness
	if harness != "" {
		if harness, err = ValidateSlug("target harness", harness); err != nil {
			return nil, err
		}
	}
	entries, diag, err := Scan(r, scopes)
	if err != nil {
		return nil, err
	}
	out := make([]Entry, 0, len(entries))
	for _, e := range entries {
		if targets(e.Memory, harness) {
			out = append(out, e)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return localeCompare(out[i].Memory.ID, out[j].Memory.ID) < 0 })
	return &ListResult{Entries: out, Diagnostics: diag}, nil
}

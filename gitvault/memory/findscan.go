package memory

// Scan is the bounded vault scan that search and doctor run
// (ecc-conformance §11): the scopes in order (nil: project and team), each
// file read with the guarded reader, invalid, misplaced and quarantined
// documents reported in the diagnostics, never returned. The ranked-search
// index (gitvault/find, issue 12) indexes exactly these entries, so it
// applies the memory vault's rules exactly, not a copy of them.
func Scan(r *Roots, scopes []string) ([]Entry, Diagnostics, error) {
	scopes, err := ValidateScopes(scopes)
	if err != nil {
		return nil, Diagnostics{}, err
	}
	sr, err := scan(r, scopes)
	if err != nil {
		return nil, Diagnostics{}, err
	}
	return sr.Entries, sr.Diagnostics, nil
}

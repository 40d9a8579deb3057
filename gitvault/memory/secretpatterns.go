package memory

// SecretPattern is one of the reference's credential shapes
// (ecc-conformance §10.1) as text, for scanners that run them beside
// their own rules (the gate's secret rule, issue 22). Reading them does
// not change what save refuses or what the readers quarantine.
type SecretPattern struct {
	Label string // the family, as save's refusal names it
	Regex string // RE2 syntax, exactly the pattern save runs
}

// SecretPatterns lists the reference's patterns in their order; a family
// may have more than one. Listing them compiles none.
func SecretPatterns() []SecretPattern {
	src := secretSources()
	out := make([]SecretPattern, len(src))
	for i, p := range src {
		out[i] = SecretPattern{Label: p.label, Regex: p.expr}
	}
	return out
}

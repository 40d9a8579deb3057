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
// may have more than one.
func SecretPatterns() []SecretPattern {
	out := make([]SecretPattern, len(secretPatterns()))
	for i, p := range secretPatterns() {
		out[i] = SecretPattern{Label: p.Label, Regex: p.re.String()}
	}
	return out
}

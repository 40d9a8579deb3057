package gitvault

// stateWriterAgent is the lastWriter agent of append and end: the reference
// normalizes the already-normalized agent a second time when it writes the
// state (echoes-conformance §14.3 Parity), so a trailing '-' or '.' that the
// 40-code-point truncation left (echoes-conformance §13.3) is stripped in state.json while the
// daily file name keeps it. Normalizing is otherwise idempotent, and a
// normalized name never normalizes to nothing (it starts with neither '-'
// nor '.'), so the error is only passed on.
func stateWriterAgent(agent *string) (*string, error) {
	if agent == nil {
		return nil, nil
	}
	a, err := NormalizeAgent(*agent)
	if err != nil {
		return nil, err
	}
	return &a, nil
}

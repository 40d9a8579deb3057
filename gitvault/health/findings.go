package health

// Finding is one non-empty health problem list with its status-card label
// (echoes-conformance §18.1, echoes-conformance §19), for readers that show
// the findings themselves (git echoes serve) rather than the card's counts.
type Finding struct {
	Label string
	Items []string
}

// Findings returns the non-empty problem lists in key order, then the
// state-file, lock and irregular-file problems the card also counts.
func (h *Health) Findings() []Finding {
	var out []Finding
	for _, p := range h.problems() {
		if len(p.items) > 0 {
			out = append(out, Finding{Label: p.label, Items: p.items})
		}
	}
	if !h.StateFile.Valid {
		item := "state file missing or invalid"
		if h.StateFile.Error != "" {
			item = h.StateFile.Error
		}
		out = append(out, Finding{Label: "invalid runtime state", Items: []string{item}})
	}
	if h.Lock != nil && h.Lock.Problem != "" {
		out = append(out, Finding{Label: "unusable lock", Items: []string{h.Lock.Problem}})
	}
	if len(h.IrregularFiles) > 0 {
		out = append(out, Finding{Label: "files that are not regular files", Items: h.IrregularFiles})
	}
	return out
}

package health

import (
	"github.com/git-echoes/git-echoes/gitvault"
	"strconv"
	"strings"

	"github.com/git-echoes/git-echoes/internal/pyjson"
)

// Status card texts (echoes-conformance §19).
const (
	cardActions      = "Actions: **Initialize or restore** · **Show vault status** · **Save this session**"
	cardScaleAlert   = "> Scale alert: more than 200 pages; prefer targeted search."
	cardLegacy       = "Legacy vault detected. Choose **Initialize or restore EchoesVault** to migrate it."
	cardUninit       = "Choose **Initialize or restore EchoesVault** to create local Markdown memory."
	cardHealthyProto = "Protocol: 1.0.0 · engine: 1.1.1 · adapters ready."
	cardHealthyInteg = "Integrity: generated index, structure, metadata, and local paths are consistent."
	cardProto        = "Protocol: 1.0.0 · engine: 1.1.1."
)

// Card renders the Markdown status card, byte for byte as the reference
// prints it (echoes-conformance §19), with a final newline.
func (in *Inspection) Card() string {
	h := &in.Health
	lines := []string{
		"### EchoesVault · " + h.badge(),
		"",
		"| Storage | Knowledge | Session |",
		"|---|---|---|",
		"| " + formatBytes(h.Storage.TotalBytes) + " · " + strconv.Itoa(h.Storage.TotalFiles) + " files | " +
			strconv.Itoa(h.TotalPages) + " pages · " + strconv.Itoa(h.TotalDailyLogs) + " logs | " + sessionLabel(in.State) + " |",
		"",
	}
	switch {
	case h.LegacyVaultDetected && !h.Initialized:
		lines = append(lines, cardLegacy)
	case !h.Initialized:
		lines = append(lines, cardUninit)
	case h.Healthy:
		lines = append(lines, cardHealthyProto, "", cardHealthyInteg)
	default:
		var details []string
		for _, p := range h.problems() {
			if len(p.items) > 0 {
				details = append(details, p.label+": "+strconv.Itoa(len(p.items)))
			}
		}
		if !h.StateFile.Valid {
			details = append(details, "invalid runtime state")
		}
		if h.Lock != nil && h.Lock.Problem != "" {
			details = append(details, "unusable lock")
		}
		if len(h.IrregularFiles) > 0 {
			details = append(details, "files that are not regular files: "+strconv.Itoa(len(h.IrregularFiles)))
		}
		lines = append(lines, cardProto, "", "Integrity: "+strings.Join(details, "; ")+".")
	}
	if h.ScaleAlert {
		lines = append(lines, "", cardScaleAlert)
	}
	if h.Lock != nil {
		lines = append(lines, "", h.Lock.cardLine()) // only with a lock present (issue 11 item 2)
	}
	lines = append(lines, "", cardActions)
	return strings.Join(lines, "\n") + "\n"
}

func (h *Health) badge() string {
	switch {
	case h.LegacyVaultDetected && !h.Initialized:
		return "△ Legacy vault detected"
	case !h.Initialized:
		return "○ Not initialized"
	case h.Healthy:
		return "✓ Healthy"
	}
	return "△ Needs attention (" + strconv.Itoa(h.IssueCount) + ")"
}

func sessionLabel(st *gitvault.State) string {
	switch {
	case !pyjson.Truthy(st.Started):
		return "not started"
	case pyjson.Truthy(st.Saved):
		return "saved"
	}
	return "active"
}

// formatBytes prints a size as the card does: "<n> B" below 1024, else one
// correctly rounded decimal in KB, MB, GB or TB (1024 → "1.0 KB",
// 1048575 → "1024.0 KB": the unit is chosen before rounding).
func formatBytes(n int64) string {
	if n < 1024 {
		return strconv.FormatInt(n, 10) + " B"
	}
	v := float64(n)
	for _, unit := range []string{"B", "KB", "MB", "GB", "TB"} {
		if v < 1024 || unit == "TB" {
			return strconv.FormatFloat(v, 'f', 1, 64) + " " + unit
		}
		v /= 1024
	}
	panic("unreachable")
}

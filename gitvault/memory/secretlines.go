package memory

import "strings"

// SecretLine is one line of a text holding known credential shapes: its
// 1-based number and the families found (SecretLabels order). It never
// holds the value.
type SecretLine struct {
	Line   int
	Labels []string
}

// SecretLines scans text line by line with the secret patterns
// (ecc-conformance §10.1) and returns the lines that match. Lines end at
// "\r\n", "\r" or "\n" (universal newlines, as the page checks count
// them). No pattern can match across a line break (their classes hold only
// letters, digits, '_', '-' and ' '), and a line's edges are non-word
// boundaries as the text's are, so the union of the lines' labels is
// DetectSecrets(text). A text without any match costs one DetectSecrets
// pass.
func SecretLines(text string) []SecretLine {
	if len(DetectSecrets(text)) == 0 {
		return nil
	}
	var out []SecretLine
	for n, rest := 1, text; ; n++ {
		i := strings.IndexAny(rest, "\r\n")
		line := rest
		if i >= 0 {
			line = rest[:i]
		}
		if labels := DetectSecrets(line); len(labels) > 0 {
			out = append(out, SecretLine{Line: n, Labels: labels})
		}
		if i < 0 {
			return out
		}
		if rest[i] == '\r' && i+1 < len(rest) && rest[i+1] == '\n' {
			i++
		}
		rest = rest[i+1:]
	}
}

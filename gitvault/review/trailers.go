package review

import (
	"strings"
)

// Trailer is one "Key: value" line of a commit message's trailer block.
type Trailer struct{ Key, Value string }

// ParseTrailers returns the trailers of a commit message as git
// interpret-trailers finds them, simplified: the last paragraph (after a
// blank line, never the subject paragraph) when every line of it is a
// "Token: value" trailer or an indented continuation. Tokens are letters,
// digits and '-'; values are trimmed; continuations are joined with a
// space. Lines starting with '#' (comments) are ignored.
func ParseTrailers(msg string) []Trailer {
	msg = strings.ReplaceAll(msg, "\r\n", "\n")
	lines := strings.Split(strings.TrimRight(msg, " \t\n"), "\n")
	// The last paragraph starts after the last blank line.
	start := -1
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.TrimSpace(lines[i]) == "" {
			start = i + 1
			break
		}
	}
	if start <= 0 || start >= len(lines) {
		return nil // a single paragraph is the subject, not trailers
	}
	var out []Trailer
	for _, l := range lines[start:] {
		if strings.HasPrefix(l, "#") {
			continue
		}
		if l != "" && (l[0] == ' ' || l[0] == '\t') {
			if len(out) == 0 {
				return nil
			}
			out[len(out)-1].Value = strings.TrimSpace(out[len(out)-1].Value + " " + strings.TrimSpace(l))
			continue
		}
		key, value, ok := strings.Cut(l, ":")
		if !ok || !isTrailerToken(strings.TrimRight(key, " \t")) {
			return nil
		}
		out = append(out, Trailer{Key: strings.TrimRight(key, " \t"), Value: strings.TrimSpace(value)})
	}
	return out
}

func isTrailerToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// trailerValues returns the values of the trailers named key
// (case-insensitive, as git compares trailer keys).
func trailerValues(ts []Trailer, key string) []string {
	var out []string
	for _, t := range ts {
		if strings.EqualFold(t.Key, key) && t.Value != "" {
			out = append(out, t.Value)
		}
	}
	return out
}

// coAuthorName is the name part of "Name <email>".
func coAuthorName(v string) string {
	if i := strings.IndexByte(v, '<'); i > 0 {
		return strings.TrimSpace(v[:i])
	}
	return strings.TrimSpace(v)
}

package gitvault

import "strings"

// hasConflictMarker reports whether the multiline regex
// ^(?:<<<<<<<(?: .*)?|=======|>>>>>>>(?: .*)?)$ matches text, with ^ at the
// start and after each "\n" and $ before each "\n" and at the end: exactly
// Python's re.MULTILINE semantics used by the reference (CONFORMANCE-echoes
// §9 step 3). It scans bytes instead of running a regexp because it runs over
// every page of the vault on each index render.
func hasConflictMarker(text string) bool {
	for i := 0; i < len(text); {
		// i is at a line start.
		rest := text[i:]
		if len(rest) >= 7 {
			switch rest[0] {
			case '<', '>':
				if strings.HasPrefix(rest, strings.Repeat(rest[:1], 7)) && (len(rest) == 7 || rest[7] == '\n' || rest[7] == ' ') {
					return true
				}
			case '=':
				if strings.HasPrefix(rest, "=======") && (len(rest) == 7 || rest[7] == '\n') {
					return true
				}
			}
		}
		nl := strings.IndexByte(rest, '\n')
		if nl < 0 {
			return false
		}
		i += nl + 1
	}
	return false
}

// hasConflictMarkerAnyNewline also checks the universal-newline form, so a
// proposed page with "=======\r\n" (which the reference accepts and then can
// never index again) is refused.
func hasConflictMarkerAnyNewline(text string) bool {
	if hasConflictMarker(text) {
		return true
	}
	if !strings.ContainsRune(text, '\r') {
		return false
	}
	return hasConflictMarker(strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\r", "\n"))
}

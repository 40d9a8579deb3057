package memory

import (
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/git-echoes/git-echoes/internal/jsjson"
	"github.com/git-echoes/git-echoes/internal/jstext"
)

// frontmatterKeys are the 13 on-disk keys, in written order.
var frontmatterKeys = [13]string{"schema", "id", "title", "kind", "scope", "trust", "status",
	"source_harness", "target_harnesses", "tags", "links", "created_at", "updated_at"}

var errDocument = errors.New("memory document is invalid")

// findClosing returns the start of the leftmost match of the regular
// expression `\r?\n---(?:\r?\n|$)` in s, or -1. It is a hand-written
// scanner with the regex's exact semantics (differential-tested against
// it): every match contains one '\n' followed by "---", then "\n", "\r\n"
// or the end of s; it starts one byte earlier when a '\r' precedes that
// '\n'. Matches ordered by their '\n' are ordered by start, so the first
// qualifying '\n' gives the leftmost match.
func findClosing(s string) int {
	for off := 0; ; {
		i := strings.IndexByte(s[off:], '\n')
		if i < 0 {
			return -1
		}
		j := off + i
		off = j + 1
		if !strings.HasPrefix(s[j+1:], "---") {
			continue
		}
		k := j + 4
		if k == len(s) || s[k] == '\n' || (s[k] == '\r' && k+1 < len(s) && s[k+1] == '\n') {
			if j > 0 && s[j-1] == '\r' {
				return j - 1
			}
			return j
		}
	}
}

// nextLine splits s like regexp `\r?\n`.Split(s, -1) does, one line at a
// time: it returns the text before the first '\n' (minus one '\r' right
// before it), the text after it, and whether a '\n' was found. The last
// line is the remainder (possibly empty), even for an empty s.
func nextLine(s string) (line, rest string, more bool) {
	i := strings.IndexByte(s, '\n')
	if i < 0 {
		return s, "", false
	}
	line = s[:i]
	if i > 0 && s[i-1] == '\r' {
		line = s[:i-1]
	}
	return line, s[i+1:], true
}

// DecodeUTF8Fatal applies the reference's fatal UTF-8 decoding: invalid UTF-8
// is an error and one leading BOM is removed.
func DecodeUTF8Fatal(raw []byte) (string, bool) {
	if !utf8.Valid(raw) {
		return "", false
	}
	s := string(raw)
	return strings.TrimPrefix(s, "\uFEFF"), true
}

// ParseDocument parses and validates decoded document text with exactly
// the reference's acceptance rules (ecc-conformance §6). It does not check the
// file's location or scan for secrets; the vault scan does both. Errors
// are *Error values with CodeInvalid; their messages are internal detail
// that the scan never shows.
func ParseDocument(text string) (*Memory, error) {
	var open int
	switch {
	case strings.HasPrefix(text, "---\n"):
		open = 4
	case strings.HasPrefix(text, "---\r\n"):
		open = 5
	default:
		return nil, &Error{Code: CodeInvalid, Message: "memory document must start with frontmatter.", Err: errDocument}
	}
	if len(text) > MaxDocumentBytes {
		return nil, &Error{Code: CodeInvalid, Message: "memory document is too large.", Err: errDocument}
	}
	rest := text[open:]
	closing := findClosing(rest)
	if closing < 0 {
		return nil, &Error{Code: CodeInvalid, Message: "memory document frontmatter is not closed.", Err: errDocument}
	}
	// values[i] holds frontmatterKeys[i]; seen marks the keys present.
	var values [13]any
	var seen [13]bool
	for lines, more := rest[:closing], true; more; {
		var line string
		line, lines, more = nextLine(lines)
		colon := strings.IndexByte(line, ':')
		if colon <= 0 {
			return nil, &Error{Code: CodeInvalid, Message: "memory frontmatter line is malformed.", Err: errDocument}
		}
		key := jstext.Trim(line[:colon])
		k := frontmatterKeyIndex(key)
		if k < 0 {
			return nil, &Error{Code: CodeInvalid, Message: "memory frontmatter key is not supported.", Err: errDocument}
		}
		if seen[k] {
			return nil, &Error{Code: CodeInvalid, Message: "memory frontmatter key is repeated.", Err: errDocument}
		}
		v, err := jsjson.Parse(jstext.Trim(line[colon+1:]))
		if err != nil {
			return nil, &Error{Code: CodeInvalid, Message: "memory frontmatter value is not JSON.", Err: err}
		}
		values[k], seen[k] = v, true
	}
	for i, k := range frontmatterKeys {
		if !seen[i] {
			return nil, &Error{Code: CodeInvalid, Message: "memory frontmatter is missing " + k + ".", Err: errDocument}
		}
	}
	body := rest[closing:]
	body = body[strings.Index(body, "---")+3:]
	body = trimOneLineBreak(body)
	return normalize(rawMemory{
		Schema: values[0], ID: values[1], Title: values[2], Kind: values[3],
		Scope: values[4], Trust: values[5], Status: values[6],
		SourceHarness: values[7], TargetHarnesses: values[8],
		Tags: values[9], Links: values[10], CreatedAt: values[11],
		UpdatedAt: values[12], Body: body,
	}, false)
}

// trimOneLineBreak removes at most one leading and one trailing \r?\n.
func trimOneLineBreak(s string) string {
	if strings.HasPrefix(s, "\r\n") {
		s = s[2:]
	} else if strings.HasPrefix(s, "\n") {
		s = s[1:]
	}
	if strings.HasSuffix(s, "\r\n") {
		s = s[:len(s)-2]
	} else if strings.HasSuffix(s, "\n") {
		s = s[:len(s)-1]
	}
	return s
}

// frontmatterKeyIndex is k's index in frontmatterKeys, or -1.
func frontmatterKeyIndex(k string) int {
	for i, f := range frontmatterKeys {
		if k == f {
			return i
		}
	}
	return -1
}

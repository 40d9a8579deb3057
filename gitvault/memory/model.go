package memory

import (
	"strconv"
	"time"

	"github.com/git-echoes/git-echoes/internal/jsjson"
)

// Schema is the document schema identifier.
const Schema = "ecc.memory.v1"

// Limits (ecc-conformance §1).
const (
	MaxDocumentBytes  = 131072
	MaxBodyBytes      = 65536
	MaxTitleUnits     = 200
	MaxSlugUnits      = 64
	MaxIDUnits        = 132
	MaxTargets        = 32
	MaxTags           = 32
	MaxLinks          = 64
	MaxQueryUnits     = 500
	DefaultLimit      = 20
	MaxLimit          = 100
	MaxBacklinks      = 100
	MaxDiagnostics    = 100
	MaxScanEntries    = 5000
	MaxScanDepth      = 8
	MaxScanBytes      = 16 * 1024 * 1024
	MaxOverrideUnits  = 4096
	timestampLayout   = "2006-01-02T15:04:05.000Z"
	gitignoreContents = "*\n!.gitignore\n"
)

// Kinds in their fixed order; a kind's directory is the kind plus "s".
var Kinds = []string{"context", "decision", "fact", "handoff", "lesson", "note", "preference", "runbook"}

// Scopes in their fixed order.
var Scopes = []string{"project", "team", "user"}

// DefaultScopes are scanned when a caller names none: the user scope is
// recalled only on explicit request.
var DefaultScopes = []string{"project", "team"}

var (
	trustValues  = []string{"unreviewed"}
	statusValues = []string{"active", "rejected", "superseded"}

	// The hot paths use the hand-written isSlug, isID and isTimestampShape;
	// equiv_test.go compares them with the regular expressions they replace
	// (kept in the test so no process compiles them at init, issue 19).
)

// Memory is one normalized ecc.memory.v1 document. Strings read from disk
// may contain lone UTF-16 surrogates (kept as WTF-8) when the frontmatter
// used \udxxx escapes; MarshalCompact/MarshalPretty write them back as the
// same escapes.
type Memory struct {
	Schema          string
	ID              string
	Title           string
	Kind            string
	Scope           string
	Trust           string
	Status          string
	SourceHarness   string
	TargetHarnesses []string
	Tags            []string
	Links           []string
	CreatedAt       string
	UpdatedAt       string
	Body            string
}

// Summary returns the memory's JSON object without the body (13 fields,
// canonical camelCase order), as save results, search results and
// backlinks present it.
func (m *Memory) Summary() jsjson.Object {
	return jsjson.Object{
		{Key: "schema", Value: m.Schema}, {Key: "id", Value: m.ID}, {Key: "title", Value: m.Title}, {Key: "kind", Value: m.Kind},
		{Key: "scope", Value: m.Scope}, {Key: "trust", Value: m.Trust}, {Key: "status", Value: m.Status},
		{Key: "sourceHarness", Value: m.SourceHarness}, {Key: "targetHarnesses", Value: nonNil(m.TargetHarnesses)},
		{Key: "tags", Value: nonNil(m.Tags)}, {Key: "links", Value: nonNil(m.Links)},
		{Key: "createdAt", Value: m.CreatedAt}, {Key: "updatedAt", Value: m.UpdatedAt},
	}
}

// Full returns the memory's JSON object including the body.
func (m *Memory) Full() jsjson.Object {
	return append(m.Summary(), jsjson.Field{Key: "body", Value: m.Body})
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// RelPath is the scope-relative display path "<scope>:<kind>s/<id>.md" of
// a memory written by the save pipeline.
func (m *Memory) RelPath() string { return m.Scope + ":" + m.Kind + "s/" + m.ID + ".md" }

// Serialize returns the exact document bytes the reference writes.
func (m *Memory) Serialize() []byte {
	b := make([]byte, 0, 512+len(m.Body))
	line := func(key string, v any) {
		b = append(b, key...)
		b = append(b, ": "...)
		b = append(b, jsjson.MarshalCompact(v)...)
		b = append(b, '\n')
	}
	b = append(b, "---\n"...)
	line("schema", m.Schema)
	line("id", m.ID)
	line("title", m.Title)
	line("kind", m.Kind)
	line("scope", m.Scope)
	line("trust", m.Trust)
	line("status", m.Status)
	line("source_harness", m.SourceHarness)
	line("target_harnesses", nonNil(m.TargetHarnesses))
	line("tags", nonNil(m.Tags))
	line("links", nonNil(m.Links))
	line("created_at", m.CreatedAt)
	line("updated_at", m.UpdatedAt)
	b = append(b, "---\n\n"...)
	b = append(b, m.Body...)
	b = append(b, '\n')
	return b
}

// FormatTimestamp renders t as Date.prototype.toISOString does.
func FormatTimestamp(t time.Time) string { return t.UTC().Format(timestampLayout) }

// validTimestamp: the fixed regex, and parse-and-reformat equality (so
// Feb 30, hour 24 and second 60 fail). Years outside 0000-9999 cannot match
// the regex, so Go's and JavaScript's calendars agree on every candidate.
// For the regex's shape, time.Parse followed by Format reproduces s exactly
// when the fields are in range (proleptic Gregorian days per month), so the
// check is done on the digits directly; validTimestampByParse, the previous
// form, is kept for the test that proves them equal.
func validTimestamp(s string) bool {
	if !isTimestampShape(s) {
		return false
	}
	num := func(i, j int) int {
		n := 0
		for ; i < j; i++ {
			n = n*10 + int(s[i]-'0')
		}
		return n
	}
	year, month, day := num(0, 4), num(5, 7), num(8, 10)
	if month < 1 || month > 12 || day < 1 || num(11, 13) > 23 || num(14, 16) > 59 || num(17, 19) > 59 {
		return false
	}
	days := [13]int{0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}[month]
	if month == 2 && year%4 == 0 && (year%100 != 0 || year%400 == 0) {
		days = 29
	}
	return day <= days
}

func validTimestampByParse(s string) bool {
	if !isTimestampShape(s) {
		return false
	}
	t, err := time.Parse(timestampLayout, s)
	if err != nil {
		return false
	}
	return t.Format(timestampLayout) == s
}

func isLowerAlnum(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }

// isSlug is slugRe.MatchString: ^[a-z0-9][a-z0-9._-]{0,63}$.
func isSlug(s string) bool {
	if len(s) < 1 || len(s) > 64 || !isLowerAlnum(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !isLowerAlnum(c) && c != '.' && c != '_' && c != '-' {
			return false
		}
	}
	return true
}

// isID is idRe.MatchString: ^mem_[a-z0-9][a-z0-9_-]{2,127}$.
func isID(s string) bool {
	if len(s) < 7 || len(s) > 132 || s[:4] != "mem_" || !isLowerAlnum(s[4]) {
		return false
	}
	for i := 5; i < len(s); i++ {
		if c := s[i]; !isLowerAlnum(c) && c != '_' && c != '-' {
			return false
		}
	}
	return true
}

// isTimestampShape is timestampRe.MatchString:
// ^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$ with ASCII digits.
// Fixed-format ISO timestamps collate chronologically, which is byte order
// for equal shapes.
func isTimestampShape(s string) bool {
	const shape = "0000-00-00T00:00:00.000Z"
	if len(s) != len(shape) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if shape[i] == '0' {
			if s[i] < '0' || s[i] > '9' {
				return false
			}
		} else if s[i] != shape[i] {
			return false
		}
	}
	return true
}

func itoa(n int) string { return strconv.Itoa(n) }

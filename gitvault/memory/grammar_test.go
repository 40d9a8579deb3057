package memory

import (
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/internal/jstext"
)

func TestMemoryIDGrammar(t *testing.T) {
	cases := map[string]string{
		"mem_abc":                               "",
		"  mem_abc \v":                          "",
		"mem_20260727_5e05ad7e356":              "",
		"mem_a-b_c":                             "",
		"mem_" + strings.Repeat("a", 128):       "",
		"mem_ab":                                "memory id must match mem_<lowercase-id> and cannot contain a path.",
		"mem_" + strings.Repeat("a", 129):       "memory id is too long (maximum 132 characters).",
		"mem_" + strings.Repeat("a", 127) + "é": "memory id must match mem_<lowercase-id> and cannot contain a path.",
		"mem_Abc":                               "memory id must match mem_<lowercase-id> and cannot contain a path.",
		"mem_a.bc":                              "memory id must match mem_<lowercase-id> and cannot contain a path.",
		"mem_ab/c":                              "memory id must match mem_<lowercase-id> and cannot contain a path.",
		"mem_-abc":                              "memory id must match mem_<lowercase-id> and cannot contain a path.",
		"note_abc":                              "memory id must match mem_<lowercase-id> and cannot contain a path.",
		"   ":                                   "memory id must be a non-empty string.",
		"mem_ab\x00c":                           "memory id must not contain control or bidirectional formatting characters.",
		"\u0085mem_abc":                         "memory id must not contain control or bidirectional formatting characters.",
	}
	for in, want := range cases {
		got, err := ValidateID(in)
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		if msg != want {
			t.Errorf("ValidateID(%q) error %q, want %q", in, msg, want)
		}
		if err == nil && got != jstext.Trim(in) {
			t.Errorf("ValidateID(%q) = %q", in, got)
		}
	}
}

func TestMemorySlugGrammar(t *testing.T) {
	ok := []string{"a", "0", "claude", "open-code", "a.b_c-d", strings.Repeat("z", 64), " codex ", "all"}
	for _, s := range ok {
		if _, err := ValidateSlug("tag", s); err != nil {
			t.Errorf("%q: %v", s, err)
		}
	}
	bad := map[string]string{
		"":                      "tag must be a non-empty string.",
		"Claude":                "tag must be a lowercase letters/numbers slug.",
		"-a":                    "tag must be a lowercase letters/numbers slug.",
		".a":                    "tag must be a lowercase letters/numbers slug.",
		"a b":                   "tag must be a lowercase letters/numbers slug.",
		"a/b":                   "tag must be a lowercase letters/numbers slug.",
		strings.Repeat("z", 65): "tag is too long (maximum 64 characters).",
		"a\u202eb":              "tag must not contain control or bidirectional formatting characters.",
		"a\u2066":               "tag must not contain control or bidirectional formatting characters.",
		"\u200eab":              "tag must be a lowercase letters/numbers slug.",
		strings.Repeat("😀", 33): "tag is too long (maximum 64 characters).",
	}
	for in, want := range bad {
		if _, err := ValidateSlug("tag", in); err == nil || err.Error() != want {
			t.Errorf("%q: got %v, want %q", in, err, want)
		}
	}
}

func TestMemoryTimestampGrammar(t *testing.T) {
	good := []string{"2026-07-26T20:00:00.000Z", "2024-02-29T23:59:59.999Z", "0000-01-01T00:00:00.000Z"}
	bad := []string{"2026-02-30T00:00:00.000Z", "2026-07-26T24:00:00.000Z", "2026-07-26T20:00:60.000Z",
		"2026-07-26T20:00:00Z", "2026-07-26 20:00:00.000Z", "2026-07-26T20:00:00.000+00:00", "2023-02-29T00:00:00.000Z",
		"２026-07-26T20:00:00.000Z"}
	for _, s := range good {
		if !validTimestamp(s) {
			t.Errorf("%q should be valid", s)
		}
	}
	for _, s := range bad {
		if validTimestamp(s) {
			t.Errorf("%q should be invalid", s)
		}
	}
}

func TestMemoryValidationOrderAndMessages(t *testing.T) {
	good := func() rawMemory {
		m := workedExample()
		return rawMemory{Schema: m.Schema, ID: m.ID, Title: m.Title, Kind: m.Kind, Scope: m.Scope, Trust: m.Trust,
			Status: m.Status, SourceHarness: m.SourceHarness, TargetHarnesses: []any{"claude"}, Tags: []any{"auth"},
			Links: []any{}, CreatedAt: m.CreatedAt, UpdatedAt: m.UpdatedAt, Body: m.Body}
	}
	cases := []struct {
		edit func(*rawMemory)
		want string
	}{
		{func(r *rawMemory) { r.TargetHarnesses = []any{}; r.Schema = "x" }, `target harnesses must contain at least one harness or "all".`},
		{func(r *rawMemory) { r.TargetHarnesses = "all" }, "target harnesses must be an array."},
		{func(r *rawMemory) { r.TargetHarnesses = []any{"a", " a"} }, "target harnesses must not contain duplicate values."},
		{func(r *rawMemory) { r.TargetHarnesses = make([]any, 33) }, "target harnesses has too many values (maximum 32)."},
		{func(r *rawMemory) { r.Schema = " ecc.memory.v1"; r.ID = "bad" }, "Unsupported memory schema."},
		{func(r *rawMemory) { r.ID = 5.0; r.Title = "" }, "memory id must be a non-empty string."},
		{func(r *rawMemory) { r.Title = strings.Repeat("a", 201) }, "memory title is too long (maximum 200 characters)."},
		{func(r *rawMemory) { r.Title = strings.Repeat("😀", 101) }, "memory title is too long (maximum 200 characters)."},
		{func(r *rawMemory) { r.Title = "a\u0085" }, "memory title must not contain control or bidirectional formatting characters."},
		{func(r *rawMemory) { r.Kind = "notes" }, "memory kind must be one of: context, decision, fact, handoff, lesson, note, preference, runbook."},
		{func(r *rawMemory) { r.Scope = "global" }, "memory scope must be one of: project, team, user."},
		{func(r *rawMemory) { r.Trust = "reviewed" }, "memory trust must be one of: unreviewed."},
		{func(r *rawMemory) { r.Status = "done" }, "memory status must be one of: active, rejected, superseded."},
		{func(r *rawMemory) { r.SourceHarness = nil }, "source harness must be a non-empty string."},
		{func(r *rawMemory) { r.Tags = []any{"A"} }, "tag must be a lowercase letters/numbers slug."},
		{func(r *rawMemory) { r.Tags = make([]any, 33) }, "tags has too many values (maximum 32)."},
		{func(r *rawMemory) { r.Links = []any{"mem_x"} }, "memory id must match mem_<lowercase-id> and cannot contain a path."},
		{func(r *rawMemory) { r.Links = []any{"mem_abc", "mem_abc"} }, "links must not contain duplicate values."},
		{func(r *rawMemory) { r.Links = nil }, "links must be an array."},
		{func(r *rawMemory) { r.CreatedAt = "2026-02-30T00:00:00.000Z" }, "created_at must be an ISO-8601 timestamp."},
		{func(r *rawMemory) { r.UpdatedAt = "" }, "updated_at must be a non-empty string."},
		{func(r *rawMemory) { r.Body = 1.0 }, "memory body must be a string."},
		{func(r *rawMemory) { r.Body = "a\x0bb" }, "memory body must not contain unsafe control or bidirectional formatting characters."},
		{func(r *rawMemory) { r.Body = " \t\r\n\u3000\ufeff" }, "memory body must contain non-whitespace context."},
		{func(r *rawMemory) { r.Body = strings.Repeat("é", 32769) }, "memory body is too large (maximum 65536 bytes)."},
	}
	for i, c := range cases {
		r := good()
		c.edit(&r)
		_, err := normalize(r, true)
		if err == nil || err.Error() != c.want || ErrorCode(err) != CodeInvalid {
			t.Errorf("case %d: got %v, want %q", i, err, c.want)
		}
	}
	// Trimming: VT/FF trimmed away, enum values trimmed, body whitespace gone,
	// interior CR kept.
	r := good()
	r.Title = "\v\fTitle\f"
	r.Kind = " note "
	r.Body = "\n a\r\nb \n"
	m, err := normalize(r, false)
	if err != nil || m.Title != "Title" || m.Kind != "note" || m.Body != "a\r\nb" {
		t.Fatalf("got %+v, %v", m, err)
	}
	// Lone surrogates: accepted on read, refused on write.
	r = good()
	r.Title = "x\xed\xa0\x80"
	if _, err := normalize(r, false); err != nil {
		t.Fatalf("read should accept lone surrogates: %v", err)
	}
	if _, err := normalize(r, true); err == nil || !strings.Contains(err.Error(), "control or bidirectional") {
		t.Fatalf("write should refuse lone surrogates: %v", err)
	}
}

func TestMemoryJSTextPrimitives(t *testing.T) {
	order := []string{"mem_a", "mem_a_", "mem_a_b", "mem_a-", "mem_a-b", "mem_a.b", "mem_a0", "mem_a9", "mem_aa", "mem_ab", "mem_b"}
	for i := 0; i+1 < len(order); i++ {
		if localeCompare(order[i], order[i+1]) >= 0 || localeCompare(order[i+1], order[i]) <= 0 {
			t.Errorf("%s should sort before %s", order[i], order[i+1])
		}
	}
	for _, pair := range [][2]string{{".gitignore", "contexts"}, {"e", "é"}, {"é", "f"}, {"a", "A"}, {"A", "b"},
		{"2026-07-26T20:00:00.000Z", "2026-07-27T00:00:00.000Z"}} {
		if localeCompare(pair[0], pair[1]) >= 0 {
			t.Errorf("%q should sort before %q", pair[0], pair[1])
		}
	}
	limits := map[string]int{"": 20, "0": 20, "abc": 20, "-5": 1, "2.7": 2, "1000": 100, "0x10": 16, "0b11": 3,
		"0o7": 7, " 5 ": 5, "Infinity": 100, "-Infinity": 1, "1e1": 10, "0.5": 1, "5px": 20, "0x": 20, "1_0": 20, "inf": 20}
	for in, want := range limits {
		if got := ParseLimit(in); got != want {
			t.Errorf("ParseLimit(%q) = %d, want %d", in, got, want)
		}
	}
}

func TestMemoryTerminalSanitizer(t *testing.T) {
	cases := map[string]string{
		"a\x1b[31mred\x1b[0m":                        "ared",
		"x\x1b]8;;http://e\x07link\x1b]8;;\x07y\r\n": "xlinky\n",
		"a\x1bPdcs\x1b\\b":                           "ab",
		"a\x1b(Bb":                                   "ab",
		"a\x1b":                                      "a",
		"tab\tok\x00\x7f\u0085\u009b31mZ":            "tab\tokZ",
		"\u200e\u200f\u061c\u202a\u202e\u2066\u2069plain": "plain",
		"a\u009dosc\u009cb":      "ab",
		"unterminated\x1b]title": "unterminated",
		"split\xed\xa0\x80":      "split\ufffd",
	}
	for in, want := range cases {
		if got := SanitizeTerminal(in); got != want {
			t.Errorf("SanitizeTerminal(%q) = %q, want %q", in, got, want)
		}
	}
}

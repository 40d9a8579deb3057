package frontmatter

import (
	"reflect"
	"testing"
)

func TestHasConflictMarkers(t *testing.T) {
	tests := []struct {
		name  string
		text  string
		exact bool // echoes-conformance §9 step 3 as the reference runs it
		anyNL bool // with the universal-newline form too
	}{
		{"clean LF page", "---\ntype: a\n---\nbody\n", false, false},
		{"LF conflict", "---\ntype: a\n---\n<<<<<<< ours\nx\n=======\ny\n>>>>>>> theirs\n", true, true},
		{"CRLF separator is the Quirk", "---\r\ntype: a\r\n---\r\nTitle\r\n=======\r\nend\r\n", false, true},
		{"CRLF labelled markers match (.* takes the CR)", "x\r\n<<<<<<< ours\r\ny\r\n", true, true},
		{"CRLF marker as last line is found after strip", "body\r\n=======\r\n", true, true},
		{"CR-only conflict", "a\r=======\rb\r", false, true},
		{"setext underline counts", "Title\n=======\n", true, true},
		{"eight equals do not count", "Title\n========\n", false, false},
		{"marker with trailing text", "x\n<<<<<<< HEAD:page.md\ny\n", true, true},
		{"marker followed by a space only", "x\n>>>>>>> \ny\n", true, true},
		{"marker glued to text", "x\n<<<<<<<x\ny\n", false, false},
		{"closing marker glued to text", "x\n>>>>>>>theirs\ny\n", false, false},
		{"indented marker inside", "x\n  =======\ny\n", false, false},
		{"indented marker at the start is stripped", "  =======\nbody\n", true, true},
		{"trailing spaces after marker at the end", "body\n=======   ", true, true},
		{"empty", "", false, false},
		{"marker inside a line", "a <<<<<<< b\n", false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := HasConflictMarkers(tc.text); got != tc.exact {
				t.Errorf("HasConflictMarkers(%q) = %v, want %v", tc.text, got, tc.exact)
			}
			if got := HasConflictMarkersAnyNewline(tc.text); got != tc.anyNL {
				t.Errorf("HasConflictMarkersAnyNewline(%q) = %v, want %v", tc.text, got, tc.anyNL)
			}
			if got := len(FindConflictMarkers(tc.text)) > 0; got != tc.anyNL {
				t.Errorf("FindConflictMarkers(%q) found=%v, want %v", tc.text, got, tc.anyNL)
			}
		})
	}
}

func TestFindConflictMarkers(t *testing.T) {
	text := "\n\n---\r\ntype: a\r\n---\r\n<<<<<<< ours\r\nx\r\n=======\ry\n>>>>>>> theirs\n"
	want := []Marker{
		{Line: 6, Text: "<<<<<<< ours"},
		{Line: 8, Text: "======="},
		{Line: 10, Text: ">>>>>>> theirs"},
	}
	if got := FindConflictMarkers(text); !reflect.DeepEqual(got, want) {
		t.Fatalf("FindConflictMarkers = %+v, want %+v", got, want)
	}
	if got := FindConflictMarkers("  =======\n"); !reflect.DeepEqual(got, []Marker{{Line: 1, Text: "======="}}) {
		t.Fatalf("indented first-line marker: %+v", got)
	}
}

package merge

import (
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/internal/frontmatter"
)

var testLabels = Labels{Ours: "ours", Base: "base", Theirs: "theirs"}

const basePage = `---
type: decision
stack:
  - go
status: active
summary: Use the standard library.
---
# Title

First paragraph.

Second paragraph.
`

func TestMergePage(t *testing.T) {
	tests := []struct {
		name          string
		base, ours    string
		theirs        string
		labels        Labels
		want          string
		clean         bool
		wantValidPage bool // result has no conflict markers
	}{
		{
			name: "one-sided frontmatter changes on both sides",
			base: basePage,
			ours: strings.Replace(basePage, "status: active", "status: deprecated", 1),
			theirs: strings.Replace(basePage, "summary: Use the standard library.",
				"summary: Prefer the standard library.", 1),
			want: strings.NewReplacer("status: active", "status: deprecated",
				"summary: Use the standard library.", "summary: Prefer the standard library.").Replace(basePage),
			clean: true,
		},
		{
			name:   "same key changed differently",
			base:   basePage,
			ours:   strings.Replace(basePage, "status: active", "status: deprecated", 1),
			theirs: strings.Replace(basePage, "status: active", "status: draft", 1),
			want: strings.Replace(basePage, "status: active\n",
				"<<<<<<< ours\nstatus: deprecated\n=======\nstatus: draft\n>>>>>>> theirs\n", 1),
			clean: false,
		},
		{
			name:   "same key changed differently, diff3 style",
			base:   basePage,
			ours:   strings.Replace(basePage, "status: active", "status: deprecated", 1),
			theirs: strings.Replace(basePage, "status: active", "status: draft", 1),
			labels: Labels{Ours: "HEAD", Base: "merged common ancestors", Theirs: "feature", Diff3: true},
			want: strings.Replace(basePage, "status: active\n",
				"<<<<<<< HEAD\nstatus: deprecated\n||||||| merged common ancestors\nstatus: active\n=======\nstatus: draft\n>>>>>>> feature\n", 1),
			clean: false,
		},
		{
			name:   "identical changes",
			base:   basePage,
			ours:   strings.Replace(basePage, "Second paragraph.", "Second paragraph, edited.", 1) + "Tail.\n",
			theirs: strings.Replace(basePage, "Second paragraph.", "Second paragraph, edited.", 1) + "Tail.\n",
			want:   strings.Replace(basePage, "Second paragraph.", "Second paragraph, edited.", 1) + "Tail.\n",
			clean:  true,
		},
		{
			name:   "non-overlapping body edits",
			base:   basePage,
			ours:   strings.Replace(basePage, "# Title", "# New title", 1),
			theirs: strings.Replace(basePage, "Second paragraph.", "Second paragraph, edited.", 1),
			want: strings.NewReplacer("# Title", "# New title",
				"Second paragraph.", "Second paragraph, edited.").Replace(basePage),
			clean: true,
		},
		{
			name:   "overlapping body edits",
			base:   basePage,
			ours:   strings.Replace(basePage, "First paragraph.", "First paragraph (ours).", 1),
			theirs: strings.Replace(basePage, "First paragraph.", "First paragraph (theirs).", 1),
			want: strings.Replace(basePage, "First paragraph.\n",
				"<<<<<<< ours\nFirst paragraph (ours).\n=======\nFirst paragraph (theirs).\n>>>>>>> theirs\n", 1),
			clean: false,
		},
		{
			name:   "keys added on both sides",
			base:   basePage,
			ours:   strings.Replace(basePage, "status: active\n", "status: active\nowner: ana\n", 1),
			theirs: strings.Replace(basePage, "type: decision\n", "type: decision\ntags: [merge]\n", 1),
			want: strings.NewReplacer("status: active\n", "status: active\nowner: ana\n",
				"type: decision\n", "type: decision\ntags: [merge]\n").Replace(basePage),
			clean: true,
		},
		{
			name:   "same key added on both sides identically",
			base:   basePage,
			ours:   strings.Replace(basePage, "status: active\n", "status: active\nowner: ana\n", 1),
			theirs: strings.Replace(basePage, "summary:", "owner: ana\nsummary:", 1),
			want:   strings.Replace(basePage, "status: active\n", "status: active\nowner: ana\n", 1),
			clean:  true,
		},
		{
			name:   "same key added on both sides differently",
			base:   basePage,
			ours:   strings.Replace(basePage, "status: active\n", "status: active\nowner: ana\n", 1),
			theirs: strings.Replace(basePage, "status: active\n", "status: active\nowner: bo\n", 1),
			want: strings.Replace(basePage, "status: active\n",
				"status: active\n<<<<<<< ours\nowner: ana\n=======\nowner: bo\n>>>>>>> theirs\n", 1),
			clean: false,
		},
		{
			name:   "key deleted on one side, modified on the other",
			base:   basePage,
			ours:   strings.Replace(basePage, "status: active\n", "", 1),
			theirs: strings.Replace(basePage, "status: active", "status: draft", 1),
			want: strings.Replace(basePage, "status: active\n",
				"<<<<<<< ours\n=======\nstatus: draft\n>>>>>>> theirs\n", 1),
			clean: false,
		},
		{
			name:   "key deleted on one side, untouched on the other",
			base:   basePage,
			ours:   strings.Replace(basePage, "status: active", "status: draft", 1),
			theirs: strings.Replace(basePage, "stack:\n  - go\n", "", 1),
			want: strings.NewReplacer("status: active", "status: draft",
				"stack:\n  - go\n", "").Replace(basePage),
			clean: true,
		},
		{
			name:   "list item appended to a key on one side, other key on the other",
			base:   basePage,
			ours:   strings.Replace(basePage, "  - go\n", "  - go\n  - sqlite\n", 1),
			theirs: strings.Replace(basePage, "type: decision", "type: pattern", 1),
			want: strings.NewReplacer("  - go\n", "  - go\n  - sqlite\n",
				"type: decision", "type: pattern").Replace(basePage),
			clean: true,
		},
		{
			name:   "comment added above a key while theirs changes its value",
			base:   basePage,
			ours:   strings.Replace(basePage, "status: active\n", "# reviewed\nstatus: active\n", 1),
			theirs: strings.Replace(basePage, "status: active", "status: draft", 1),
			want:   strings.Replace(basePage, "status: active\n", "# reviewed\nstatus: draft\n", 1),
			clean:  true,
		},
		{
			name:   "no frontmatter falls back to a line merge",
			base:   "a\nb\nc\nd\ne\n",
			ours:   "A\nb\nc\nd\ne\n",
			theirs: "a\nb\nc\nd\nE\n",
			want:   "A\nb\nc\nd\nE\n",
			clean:  true,
		},
		{
			name:   "no frontmatter, conflicting",
			base:   "a\nb\n",
			ours:   "a\nx\n",
			theirs: "a\ny\n",
			want:   "a\n<<<<<<< ours\nx\n=======\ny\n>>>>>>> theirs\n",
			clean:  false,
		},
		{
			name:   "one side without frontmatter falls back",
			base:   basePage,
			ours:   "# Title only\n",
			theirs: basePage,
			want:   "# Title only\n",
			clean:  true,
		},
		{
			name: "CRLF ours is kept CRLF",
			base: strings.ReplaceAll(basePage, "\n", "\r\n"),
			ours: strings.ReplaceAll(strings.Replace(basePage, "status: active", "status: deprecated", 1), "\n", "\r\n"),
			// theirs came through an LF checkout
			theirs: strings.Replace(basePage, "First paragraph.", "First paragraph, edited.", 1),
			want: strings.ReplaceAll(strings.NewReplacer("status: active", "status: deprecated",
				"First paragraph.", "First paragraph, edited.").Replace(basePage), "\n", "\r\n"),
			clean: true,
		},
		{
			name:   "CRLF conflict markers are CRLF",
			base:   "---\r\ntype: a\r\n---\r\nx\r\n",
			ours:   "---\r\ntype: b\r\n---\r\nx\r\n",
			theirs: "---\r\ntype: c\r\n---\r\nx\r\n",
			want:   "---\r\n<<<<<<< ours\r\ntype: b\r\n=======\r\ntype: c\r\n>>>>>>> theirs\r\n---\r\nx\r\n",
			clean:  false,
		},
		{
			name:   "missing final newline added on one side",
			base:   "---\ntype: a\n---\nbody\n",
			ours:   "---\ntype: a\n---\nbody",
			theirs: "---\ntype: b\n---\nbody\n",
			want:   "---\ntype: b\n---\nbody",
			clean:  true,
		},
		{
			name:   "empty base, add/add of the same page",
			base:   "",
			ours:   basePage,
			theirs: basePage,
			want:   basePage,
			clean:  true,
		},
		{
			name: "empty base, add/add with different summaries",
			base: "",
			ours: basePage,
			theirs: strings.NewReplacer("summary: Use the standard library.", "summary: Other.",
				"Second paragraph.", "Second paragraph.\n\nThird.").Replace(basePage),
			want: strings.NewReplacer("summary: Use the standard library.\n",
				"<<<<<<< ours\nsummary: Use the standard library.\n=======\nsummary: Other.\n>>>>>>> theirs\n",
				"Second paragraph.\n", "Second paragraph.\n<<<<<<< ours\n=======\n\nThird.\n>>>>>>> theirs\n").Replace(basePage),
			clean: false,
		},
		{
			name:   "key new in theirs placed after its predecessor",
			base:   "---\ntype: a\nstatus: s\n---\n",
			ours:   "---\nstatus: s\ntype: a\n---\n",
			theirs: "---\ntype: a\nowner: o\nstatus: s\n---\n",
			want:   "---\nstatus: s\ntype: a\nowner: o\n---\n",
			clean:  true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			labels := tc.labels
			if labels == (Labels{}) {
				labels = testLabels
			}
			got, clean, err := MergePage([]byte(tc.base), []byte(tc.ours), []byte(tc.theirs), labels)
			if err != nil {
				t.Fatalf("MergePage: %v", err)
			}
			if string(got) != tc.want {
				t.Errorf("merged:\n%q\nwant:\n%q", got, tc.want)
			}
			if clean != tc.clean {
				t.Errorf("clean = %v, want %v", clean, tc.clean)
			}
			if clean == frontmatter.HasConflictMarkersAnyNewline(string(got)) && !strings.Contains(tc.base+tc.ours+tc.theirs, "=======") {
				t.Errorf("clean=%v but markers present=%v", clean, !clean)
			}
		})
	}
}

func TestMergePageRejectsMultilineLabels(t *testing.T) {
	_, _, err := MergePage([]byte("a\n"), []byte("b\n"), []byte("c\n"), Labels{Ours: "x\ny"})
	if err == nil || !strings.Contains(err.Error(), "line break") {
		t.Fatalf("err = %v, want a line-break error", err)
	}
}

// Package mdescape makes untrusted text safe inside the Markdown that
// git-echoes writes for pull-request comments and job summaries (GitHub
// and GitLab flavoured): a page's name or summary, a commit subject, an
// author, a cited path. Any contributor writes those, so none of them may
// break the table they sit in, open HTML, emphasis or a link, or mention
// (and so notify) a user or a team.
package mdescape

import (
	"strings"

	"github.com/git-echoes/git-echoes/internal/pytext"
)

// CellLimit is the code points Cell keeps of a text: a table cell or a
// list item is meant to be read at a glance.
const CellLimit = 160

var replacer = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", "|", "\\|", "@", "&#64;", "`", "&#96;",
	"*", "\\*", "_", "\\_", "[", "\\[", "]", "\\]", "#", "&#35;", "~", "\\~", "\\", "\\\\")

// Escape returns s on one line (every run of white space, line breaks
// included, becomes one space) with every character that Markdown or HTML
// would read as markup escaped: no table pipe, no HTML, no mention, no
// emphasis, link, heading, strike-through or code span comes from s.
func Escape(s string) string {
	return replacer.Replace(strings.Join(strings.Fields(s), " "))
}

// Cell is Escape of s cut to its first CellLimit code points (the cut
// comes first, so an escape is never split).
func Cell(s string) string {
	return replacer.Replace(pytext.Truncate(strings.Join(strings.Fields(s), " "), CellLimit))
}

// Code is Cell inside <code>, not a backtick code span, which could not
// hold a backtick of s as written.
func Code(s string) string { return "<code>" + Cell(s) + "</code>" }

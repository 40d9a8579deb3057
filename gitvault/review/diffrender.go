package review

import (
	"fmt"
	"strings"

	"github.com/git-echoes/git-echoes/internal/mdescape"
	"github.com/git-echoes/git-echoes/internal/pyjson"
)

// Renderings of a DiffResult: JSON for tools, text for a terminal and
// Markdown for a pull-request comment or $GITHUB_STEP_SUMMARY.

func strOrNull(s string) pyjson.Value {
	if s == "" {
		return pyjson.NullValue()
	}
	return pyjson.Str(s)
}

func endJSON(e DiffEnd) pyjson.Value {
	return pyjson.ObjectValue(pyjson.NewObj().Set("rev", strOrNull(e.Rev)).Set("commit", strOrNull(e.Commit)).
		Set("label", pyjson.Str(e.Label)))
}

func metaJSON(m *PageMeta) pyjson.Value {
	if m == nil {
		return pyjson.NullValue()
	}
	o := pyjson.NewObj()
	if m.Invalid != "" {
		return pyjson.ObjectValue(o.Set("invalid", pyjson.Str(m.Invalid)))
	}
	return pyjson.ObjectValue(o.Set("type", pyjson.Str(m.Type)).Set("stack", pyjson.Str(m.Stack)).
		Set("status", pyjson.Str(m.Status)).Set("summary", pyjson.Str(m.Summary)))
}

// JSON renders the whole result, unbounded.
func (r *DiffResult) JSON() pyjson.Value {
	files := make([]pyjson.Value, len(r.Files))
	for i, f := range r.Files {
		o := pyjson.NewObj().Set("status", pyjson.Str(f.Status)).Set("path", pyjson.Str(f.Path))
		if f.Status == "R" {
			o.Set("oldPath", pyjson.Str(f.OldPath)).Set("similarity", pyjson.Int(int64(f.Similarity)))
		}
		files[i] = pyjson.ObjectValue(o)
	}
	pages := make([]pyjson.Value, len(r.Pages))
	for i, p := range r.Pages {
		o := pyjson.NewObj().Set("change", pyjson.Str(p.Change)).Set("name", pyjson.Str(p.Name)).Set("path", pyjson.Str(p.Path))
		if p.Change == "renamed" {
			o.Set("oldName", pyjson.Str(p.OldName)).Set("oldPath", pyjson.Str(p.OldPath)).Set("similarity", pyjson.Int(int64(p.Similarity)))
		}
		o.Set("before", metaJSON(p.Before)).Set("after", metaJSON(p.After)).
			Set("deprecated", pyjson.Boolean(p.Deprecated())).Set("binary", pyjson.Boolean(p.Binary)).
			Set("linesAdded", pyjson.Int(int64(p.LinesAdded))).Set("linesRemoved", pyjson.Int(int64(p.LinesRemoved)))
		pages[i] = pyjson.ObjectValue(o)
	}
	daily := make([]pyjson.Value, len(r.Daily))
	for i, d := range r.Daily {
		daily[i] = pyjson.ObjectValue(pyjson.NewObj().Set("path", pyjson.Str(d.Path)).Set("time", pyjson.Str(d.Time)).
			Set("kind", pyjson.Str(d.Kind)).Set("agent", strOrNull(d.Agent)).Set("firstLines", pyjson.Strs(d.FirstLines)))
	}
	team := make([]pyjson.Value, len(r.Team))
	for i, m := range r.Team {
		o := pyjson.NewObj().Set("change", pyjson.Str(m.Change)).Set("path", pyjson.Str(m.Path))
		if m.Invalid != "" {
			o.Set("invalid", pyjson.Str(m.Invalid))
		} else {
			o.Set("id", pyjson.Str(m.ID)).Set("title", pyjson.Str(m.Title)).Set("kind", pyjson.Str(m.Kind)).
				Set("status", pyjson.Str(m.Status)).Set("sourceHarness", pyjson.Str(m.SourceHarness)).
				Set("targets", pyjson.Strs(nonNilStrs(m.Targets))).Set("tags", pyjson.Strs(nonNilStrs(m.Tags))).
				Set("links", pyjson.Strs(nonNilStrs(m.Links)))
		}
		team[i] = pyjson.ObjectValue(o)
	}
	o := pyjson.NewObj().Set("ok", pyjson.Boolean(true)).
		Set("from", endJSON(r.From)).Set("to", endJSON(r.To)).
		Set("pages", pyjson.Arr(pages...)).Set("daily", pyjson.Arr(daily...)).
		Set("teamMemories", pyjson.Arr(team...)).
		Set("projectMemoriesCommitted", pyjson.Strs(nonNilStrs(r.ProjectMemories))).
		Set("renameLimited", pyjson.Boolean(r.RenameLimited)).
		Set("files", pyjson.Arr(files...))
	if r.StaleDone { // only when asked for (AddStale): other readers keep their bytes
		o.Set("memoryStale", r.staleJSON())
	}
	return pyjson.ObjectValue(o)
}

func nonNilStrs(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// counts summarises the pages by change.
func (r *DiffResult) counts() (added, removed, renamed, updated, deprecated int) {
	for i := range r.Pages {
		switch r.Pages[i].Change {
		case "added":
			added++
		case "removed":
			removed++
		case "renamed":
			renamed++
		default:
			updated++
		}
		if r.Pages[i].Deprecated() {
			deprecated++
		}
	}
	return
}

// Headline is the one-line summary of the result.
func (r *DiffResult) Headline() string {
	a, d, rn, u, dep := r.counts()
	s := fmt.Sprintf("%s added, %d removed, %d renamed, %d updated", plural(a, "page", "pages"), d, rn, u)
	if dep > 0 {
		s += fmt.Sprintf(" (%d deprecated)", dep)
	}
	s += "; " + plural(len(r.Daily), "daily entry", "daily entries") + "; " + plural(len(r.Team), "team memory", "team memories")
	if n := len(r.ProjectMemories); n > 0 {
		s += "; " + plural(n, "project-scope memory file", "project-scope memory files") + " committed"
	}
	if n := r.stalePages(); n > 0 {
		s += "; " + plural(n, "page not updated cites", "pages not updated cite") + " code the change touches"
	}
	return s
}

// stalePages counts the pages of r.Stale.
func (r *DiffResult) stalePages() int {
	n := 0
	for i, st := range r.Stale {
		if i == 0 || st.Page != r.Stale[i-1].Page {
			n++
		}
	}
	return n
}

func (m *PageMeta) summary() string {
	if m == nil {
		return ""
	}
	if m.Invalid != "" {
		return "(invalid page: " + m.Invalid + ")"
	}
	return m.Summary
}

func (p *PageChange) changeLabel() string {
	s := p.Change
	if p.Change == "renamed" {
		s = fmt.Sprintf("renamed from %s (%d%%)", p.OldName, p.Similarity)
	}
	if p.Deprecated() {
		s += ", DEPRECATED"
	} else if p.Before != nil && p.After != nil && p.Before.Status != p.After.Status && p.Before.Invalid == "" && p.After.Invalid == "" {
		s += ", status " + p.Before.Status + " → " + p.After.Status
	}
	return s
}

func (p *PageChange) lines() string {
	if p.Binary {
		return "binary"
	}
	return fmt.Sprintf("+%d −%d", p.LinesAdded, p.LinesRemoved)
}

// Text renders the result for a terminal.
func (r *DiffResult) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "git echoes diff: %s → %s\n%s\n", r.From.Label, r.To.Label, r.Headline())
	for _, f := range r.ProjectMemories {
		fmt.Fprintf(&b, "warning: project-scope memory committed: %s (project memories are personal; keep them out of Git)\n", f)
	}
	for _, st := range r.Stale {
		fmt.Fprintf(&b, "warning: memory-stale: %s: %s\n", st.Page, st.Message())
	}
	for i := range r.Pages {
		p := &r.Pages[i]
		fmt.Fprintf(&b, "\npage %s: %s (%s)\n", p.Name, p.changeLabel(), p.lines())
		writeMetaChanges(&b, p, func(label, before, after string) {
			if p.Before == nil || p.After == nil {
				fmt.Fprintf(&b, "  %s: %s\n", label, orNone(before+after))
			} else {
				fmt.Fprintf(&b, "  %s: %s → %s\n", label, orNone(before), orNone(after))
			}
		})
	}
	for _, d := range r.Daily {
		fmt.Fprintf(&b, "\ndaily %s %s %s: %s\n", d.Time, d.Kind, orNone(d.Agent), strings.Join(d.FirstLines, " / "))
	}
	for _, m := range r.Team {
		if m.Invalid != "" {
			fmt.Fprintf(&b, "\nteam memory %s (%s): invalid: %s\n", m.Path, m.Change, m.Invalid)
			continue
		}
		fmt.Fprintf(&b, "\nteam memory %s (%s): %s [%s] from %s to %s tags %s links %s\n", m.ID, m.Change, m.Title, m.Kind,
			m.SourceHarness, listOrNone(m.Targets), listOrNone(m.Tags), listOrNone(m.Links))
	}
	return b.String()
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func listOrNone(l []string) string {
	if len(l) == 0 {
		return "(none)"
	}
	return strings.Join(l, ", ")
}

// writeMetaChanges reports the frontmatter fields of a page change: the
// changed ones for an update, all of them for an added or removed page.
func writeMetaChanges(_ *strings.Builder, p *PageChange, field func(label, before, after string)) {
	b, a := p.Before, p.After
	if b == nil {
		b = &PageMeta{}
	}
	if a == nil {
		a = &PageMeta{}
	}
	if b.Invalid != "" || a.Invalid != "" {
		if b.Invalid != a.Invalid {
			field("invalid", b.Invalid, a.Invalid)
		}
	}
	both := p.Before != nil && p.After != nil
	for _, f := range []struct{ label, before, after string }{
		{"summary", b.Summary, a.Summary}, {"status", b.Status, a.Status},
		{"type", b.Type, a.Type}, {"stack", b.Stack, a.Stack},
	} {
		if both && f.before == f.after {
			continue
		}
		if !both && f.before == "" && f.after == "" {
			continue
		}
		field(f.label, f.before, f.after)
	}
}

// MarkdownLimit bounds the Markdown rendering: GitHub refuses comments
// over 65,536 characters, and step summaries are meant to be read.
const MarkdownLimit = 60000

// Markdown renders the result for a pull-request comment: a headline, a
// short table, then one <details> block per page, stopping before limit
// bytes with an honest count of what was left out.
func (r *DiffResult) Markdown(limit int) string {
	if limit <= 0 {
		limit = MarkdownLimit
	}
	var b strings.Builder
	b.WriteString("### Memory changes\n\n")
	fmt.Fprintf(&b, "%s → %s: %s.\n\n", mdescape.Code(r.From.Label), mdescape.Code(r.To.Label), mdescape.Cell(r.Headline()))
	if len(r.ProjectMemories) > 0 {
		b.WriteString("> [!WARNING]\n> Project-scope memory files are committed (they are personal; keep them out of Git):\n")
		for _, f := range r.ProjectMemories {
			b.WriteString("> - " + mdescape.Code(f) + "\n")
		}
		b.WriteString("\n")
	}
	dep := 0
	for i := range r.Pages {
		if r.Pages[i].Deprecated() {
			dep++
		}
	}
	if dep > 0 {
		b.WriteString("> [!IMPORTANT]\n> Deprecated in this change:")
		for i := range r.Pages {
			if r.Pages[i].Deprecated() {
				b.WriteString(" " + mdescape.Code(r.Pages[i].Name))
			}
		}
		b.WriteString("\n\n")
	}
	// Sections are written in order, each as far as the budget allows;
	// the reserve keeps room for the "N more" lines.
	const reserve = 400
	budget := func(next int) bool { return b.Len()+next+reserve <= limit }
	omitted := map[string]int{}
	if len(r.Stale) > 0 {
		fmt.Fprintf(&b, "> [!WARNING]\n> memory-stale: %s the change did not update %s code it changed; check each against the code, then update the page or run `git echoes confirm PAGE`.\n\n",
			plural(r.stalePages(), "page", "pages"), map[bool]string{true: "cites", false: "cite"}[r.stalePages() == 1])
		b.WriteString("| Page | Cites | Change | Commits of the range |\n|---|---|---|---|\n")
		for i, st := range r.Stale {
			var commits []string
			for _, c := range st.Commits {
				commits = append(commits, mdescape.Code(c.Short)+" "+mdescape.Cell(c.Subject))
			}
			cell := strings.Join(commits, "<br>")
			if st.Count > len(st.Commits) {
				cell += fmt.Sprintf("<br>… %d more", st.Count-len(st.Commits))
			}
			if st.Verdict == "missing" && st.Note != "" {
				cell = mdescape.Cell(st.Note)
			}
			row := fmt.Sprintf("| %s | %s | %s | %s |\n", mdescape.Code(strings.TrimPrefix(st.Page, pagesPrefix)), mdescape.Code(st.Citation.String()), staleChange(st), cell)
			if !budget(len(row)) {
				omitted["stale citations"] = len(r.Stale) - i
				break
			}
			b.WriteString(row)
		}
		b.WriteString("\n")
	}
	if len(r.Pages) == 0 && len(r.Daily) == 0 && len(r.Team) == 0 && len(r.ProjectMemories) == 0 {
		b.WriteString("No memory changes.\n")
		if omitted["stale citations"] > 0 {
			fmt.Fprintf(&b, "\n… %d more stale citations not shown (size limit); run `git echoes diff --format json` for everything.\n", omitted["stale citations"])
		}
		return b.String()
	}
	if len(r.Pages) > 0 {
		b.WriteString("| Page | Change | Lines | Summary |\n|---|---|---|---|\n")
		for i := range r.Pages {
			p := &r.Pages[i]
			summary := p.After.summary()
			if p.After == nil {
				summary = p.Before.summary()
			} else if p.Before != nil && p.Before.summary() != summary {
				summary = p.Before.summary() + " → " + summary
			}
			row := fmt.Sprintf("| %s | %s | %s | %s |\n", mdescape.Code(p.Name), mdescape.Cell(p.changeLabel()), p.lines(), mdescape.Cell(summary))
			if !budget(len(row)) {
				omitted["page rows"] = len(r.Pages) - i
				break
			}
			b.WriteString(row)
		}
		b.WriteString("\n")
	}
	if len(r.Daily) > 0 {
		fmt.Fprintf(&b, "**Daily entries added (%d)**\n\n| Time | Kind | Agent | First lines |\n|---|---|---|---|\n", len(r.Daily))
		for i, d := range r.Daily {
			row := fmt.Sprintf("| %s | %s | %s | %s |\n", mdescape.Cell(d.Time), mdescape.Cell(d.Kind), mdescape.Cell(orNone(d.Agent)), mdescape.Cell(strings.Join(d.FirstLines, " / ")))
			if !budget(len(row)) {
				omitted["daily entries"] = len(r.Daily) - i
				break
			}
			b.WriteString(row)
		}
		b.WriteString("\n")
	}
	if len(r.Team) > 0 {
		fmt.Fprintf(&b, "**Team memories (%d)**\n\n| Id | Change | Title | Kind | Source | Targets | Tags | Links |\n|---|---|---|---|---|---|---|---|\n", len(r.Team))
		for i, m := range r.Team {
			var row string
			if m.Invalid != "" {
				row = fmt.Sprintf("| %s | %s | invalid: %s | | | | | |\n", mdescape.Code(m.Path), m.Change, mdescape.Cell(m.Invalid))
			} else {
				row = fmt.Sprintf("| %s | %s | %s | %s | %s | %s | %s | %s |\n", mdescape.Code(m.ID), m.Change, mdescape.Cell(m.Title), mdescape.Cell(m.Kind),
					mdescape.Cell(m.SourceHarness), mdescape.Cell(listOrNone(m.Targets)), mdescape.Cell(listOrNone(m.Tags)), mdescape.Cell(listOrNone(m.Links)))
			}
			if !budget(len(row)) {
				omitted["team memories"] = len(r.Team) - i
				break
			}
			b.WriteString(row)
		}
		b.WriteString("\n")
	}
	for i := range r.Pages {
		p := &r.Pages[i]
		var d strings.Builder
		fmt.Fprintf(&d, "<details><summary>%s: %s (%s)</summary>\n\n", mdescape.Code(p.Name), mdescape.Cell(p.changeLabel()), p.lines())
		writeMetaChanges(&d, p, func(label, before, after string) {
			if p.Before == nil || p.After == nil {
				fmt.Fprintf(&d, "- %s: %s\n", label, mdescape.Cell(orNone(before+after)))
			} else {
				fmt.Fprintf(&d, "- %s: %s → %s\n", label, mdescape.Cell(orNone(before)), mdescape.Cell(orNone(after)))
			}
		})
		if p.Change == "renamed" {
			fmt.Fprintf(&d, "- renamed: %s → %s\n", mdescape.Code(p.OldPath), mdescape.Code(p.Path))
		}
		d.WriteString("\n</details>\n")
		if !budget(d.Len()) {
			omitted["page details"] = len(r.Pages) - i
			break
		}
		b.WriteString(d.String())
	}
	for _, what := range []string{"stale citations", "page rows", "daily entries", "team memories", "page details"} {
		if n := omitted[what]; n > 0 {
			fmt.Fprintf(&b, "\n… %d more %s not shown (size limit); run `git echoes diff --format json` for everything.\n", n, what)
		}
	}
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

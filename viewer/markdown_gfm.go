package viewer

import (
	"bytes"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// The three GitHub Flavored Markdown extensions the viewer renders (GFM spec
// 0.29, sections 4.10 tables, 6.5 strikethrough and 5.3 task list items),
// written on goldmark's core parser instead of importing goldmark/extension:
// that package compiles its regular expressions (linkify, typographer, table
// delimiters, footnotes) in package init, about 264 KB and 2,000
// allocations in every git-echoes process, serve or not (issue 19 part 0).
// Nothing here runs before the first page is rendered.
//
// The HTML is byte for byte what goldmark/extension wrote with the options
// the viewer used (Table, Strikethrough, TaskList, HTML5 output):
// TestGFMMatchesGoldmarkExtension renders a corpus both ways.

var (
	kindTable        = ast.NewNodeKind("Table")
	kindTableRow     = ast.NewNodeKind("TableRow")
	kindTableCell    = ast.NewNodeKind("TableCell")
	kindStrike       = ast.NewNodeKind("Strikethrough")
	kindTaskCheckBox = ast.NewNodeKind("TaskCheckBox")
)

// cellAlign is a column's alignment from the delimiter row (GFM section 4.10).
type cellAlign uint8

const (
	alignNone cellAlign = iota
	alignLeft
	alignRight
	alignCenter
)

func (a cellAlign) String() string {
	switch a {
	case alignLeft:
		return "left"
	case alignRight:
		return "right"
	case alignCenter:
		return "center"
	}
	return ""
}

// tableNode is a GFM table: its first child is the header row.
type tableNode struct {
	ast.BaseBlock
	aligns []cellAlign
}

func (n *tableNode) Kind() ast.NodeKind             { return kindTable }
func (n *tableNode) Dump(src []byte, level int)     { ast.DumpHelper(n, src, level, nil, nil) }
func (n *tableRowNode) Kind() ast.NodeKind          { return kindTableRow }
func (n *tableRowNode) Dump(src []byte, level int)  { ast.DumpHelper(n, src, level, nil, nil) }
func (n *tableCellNode) Kind() ast.NodeKind         { return kindTableCell }
func (n *tableCellNode) Dump(src []byte, level int) { ast.DumpHelper(n, src, level, nil, nil) }

// tableRowNode is one row; header marks the row above the delimiter row.
type tableRowNode struct {
	ast.BaseBlock
	header bool
}

// tableCellNode is one cell; its inline content is parsed from its line.
type tableCellNode struct {
	ast.BaseBlock
	align cellAlign
	// pipes are the source offsets of the backslashes of \| in this cell:
	// the escape applies inside code spans too (GFM section 4.10, example 200),
	// where the inline parser keeps backslashes.
	pipes []int
}

// strikeNode is ~text~ or ~~text~~.
type strikeNode struct{ ast.BaseInline }

func (n *strikeNode) Kind() ast.NodeKind         { return kindStrike }
func (n *strikeNode) Dump(src []byte, level int) { ast.DumpHelper(n, src, level, nil, nil) }

// taskCheckBoxNode is the [ ] or [x] that opens a task list item.
type taskCheckBoxNode struct {
	ast.BaseInline
	checked bool
}

func (n *taskCheckBoxNode) Kind() ast.NodeKind         { return kindTaskCheckBox }
func (n *taskCheckBoxNode) Dump(src []byte, level int) { ast.DumpHelper(n, src, level, nil, nil) }

// --- tables -----------------------------------------------------------------

// tableTransformer turns a paragraph whose line i is a delimiter row and
// whose line i-1 is a header row with as many cells into: a paragraph of the
// lines before i-1 (if any), then a table of the rest, every following line
// of the paragraph being a body row.
type tableTransformer struct{}

func (tableTransformer) Transform(para *ast.Paragraph, reader text.Reader, pc parser.Context) {
	lines := para.Lines()
	if lines.Len() < 2 {
		return
	}
	src := reader.Source()
	for i := 1; i < lines.Len(); i++ {
		delim := lines.At(i)
		aligns := parseDelimiterRow(delim.Value(src))
		if aligns == nil {
			continue
		}
		header := parseTableRow(src, lines.At(i-1), aligns, true)
		if len(header.cells) != len(aligns) {
			return
		}
		table := &tableNode{aligns: aligns}
		table.SetPos(para.Pos())
		table.AppendChild(table, header.node())
		for j := i + 1; j < lines.Len(); j++ {
			table.AppendChild(table, parseTableRow(src, lines.At(j), aligns, false).node())
		}
		parent := para.Parent()
		parent.InsertAfter(parent, para, table)
		if i == 1 {
			parent.RemoveChild(parent, para)
			return
		}
		lines.SetSliced(0, i-1)
		last := lines.At(i - 2)
		last.Stop-- // the paragraph's last line loses its newline
		lines.Set(i-2, last)
		return
	}
}

// parseDelimiterRow returns the column alignments of a delimiter row, or nil
// when line is not one: at most three spaces of indentation, then cells of
// optional ':', one or more '-', optional ':' between pipes, and not just
// dashes (which is a setext underline or a thematic break).
func parseDelimiterRow(line []byte) []cellAlign {
	if w, _ := util.IndentWidth(line, 0); w > 3 {
		return nil
	}
	onlyDashes := true
	for _, b := range line {
		if b != '-' {
			onlyDashes = false
		}
		if b != '-' && b != '|' && b != ':' && !util.IsSpace(b) {
			return nil
		}
	}
	if onlyDashes {
		return nil
	}
	cols := bytes.Split(line, []byte{'|'})
	if util.IsBlank(cols[0]) {
		cols = cols[1:]
	}
	if len(cols) > 0 && util.IsBlank(cols[len(cols)-1]) {
		cols = cols[:len(cols)-1]
	}
	if len(cols) == 0 {
		return nil // "|" alone has no cell
	}
	aligns := make([]cellAlign, 0, len(cols))
	for _, col := range cols {
		a, ok := delimiterCell(col)
		if !ok {
			return nil
		}
		aligns = append(aligns, a)
	}
	return aligns
}

// delimiterCell reads one cell of a delimiter row: spaces, [:]-+[:], spaces.
func delimiterCell(col []byte) (cellAlign, bool) {
	c := bytes.TrimFunc(col, func(r rune) bool { return r < 0x80 && isRESpace(byte(r)) })
	left := len(c) > 0 && c[0] == ':'
	if left {
		c = c[1:]
	}
	right := len(c) > 0 && c[len(c)-1] == ':'
	if right {
		c = c[:len(c)-1]
	}
	if len(c) == 0 || len(bytes.Trim(c, "-")) != 0 {
		return alignNone, false
	}
	switch {
	case left && right:
		return alignCenter, true
	case left:
		return alignLeft, true
	case right:
		return alignRight, true
	}
	return alignNone, true
}

type parsedRow struct {
	header bool
	pos    int
	cells  []*tableCellNode
}

func (r parsedRow) node() *tableRowNode {
	row := &tableRowNode{header: r.header}
	row.SetPos(r.pos)
	for _, c := range r.cells {
		row.AppendChild(row, c)
	}
	return row
}

// parseTableRow splits one line into cells at pipes not preceded by a
// backslash, without the leading and trailing pipe. A body row keeps as
// many cells as the header (extra cells are dropped, missing ones are
// empty); the header row keeps all its cells, so the caller can compare.
func parseTableRow(src []byte, seg text.Segment, aligns []cellAlign, header bool) parsedRow {
	row := parsedRow{header: header, pos: seg.Start}
	trimmed := seg.TrimLeftSpace(src)
	trimmed = trimmed.TrimRightSpace(src)
	line := trimmed.Value(src)
	pos, limit := 0, len(line)
	if limit > 0 && line[0] == '|' {
		pos++
	}
	if limit > 0 && line[limit-1] == '|' {
		limit--
	}
	for col := 0; pos < limit; col++ {
		align := alignNone
		if col < len(aligns) {
			align = aligns[col]
		} else if !header {
			return row
		}
		cell := &tableCellNode{align: align}
		cell.SetPos(seg.Start + pos - seg.Padding)
		end, sawTick := pos, false
		for ; end < limit; end++ {
			if line[end] == '`' {
				sawTick = true
			}
			if line[end] != '|' {
				continue
			}
			if end == 0 || line[end-1] != '\\' {
				break
			}
			if sawTick {
				cell.pipes = append(cell.pipes, trimmed.Start+end-1)
			}
		}
		content := text.NewSegment(trimmed.Start+pos, trimmed.Start+end)
		content = content.TrimLeftSpace(src)
		content = content.TrimRightSpace(src)
		cell.Lines().Append(content)
		row.cells = append(row.cells, cell)
		pos = end + 1
	}
	for col := len(row.cells); col < len(aligns); col++ {
		row.cells = append(row.cells, &tableCellNode{})
	}
	return row
}

// tablePipeTransformer drops the backslash of \| inside the code spans of
// table cells (outside code spans the inline parser's backslash escape
// already did).
type tablePipeTransformer struct{}

func (tablePipeTransformer) Transform(doc *ast.Document, _ text.Reader, _ parser.Context) {
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		cell, ok := n.(*tableCellNode)
		if !entering || !ok {
			return ast.WalkContinue, nil
		}
		if len(cell.pipes) > 0 {
			splitEscapedPipes(cell)
		}
		return ast.WalkSkipChildren, nil
	})
}

func splitEscapedPipes(cell *tableCellNode) {
	_ = ast.Walk(cell, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering || n.Kind() != ast.KindCodeSpan {
			return ast.WalkContinue, nil
		}
		for c := n.FirstChild(); c != nil; {
			next := c.NextSibling()
			t, ok := c.(*ast.Text)
			if !ok {
				c = next
				continue
			}
			seg := t.Segment
			var parts []text.Segment
			for _, at := range cell.pipes {
				if seg.Start <= at && at < seg.Stop {
					parts = append(parts, seg.WithStop(at))
					seg = seg.WithStart(at + 1)
				}
			}
			if parts != nil {
				parts = append(parts, seg)
				prev := ast.Node(t)
				for _, p := range parts {
					r := ast.NewRawTextSegment(p)
					n.InsertAfter(n, prev, r)
					prev = r
				}
				n.RemoveChild(n, t)
			}
			c = next
		}
		return ast.WalkSkipChildren, nil
	})
}

// --- strikethrough ----------------------------------------------------------

type strikeDelimiters struct{}

func (strikeDelimiters) IsDelimiter(b byte) bool { return b == '~' }
func (strikeDelimiters) CanOpenCloser(opener, closer *parser.Delimiter) bool {
	return opener.Char == closer.Char
}
func (strikeDelimiters) OnMatch(int) ast.Node { return &strikeNode{} }

// strikeParser reads a run of one or two tildes as a strikethrough
// delimiter; longer runs, and a run right after another tilde, stay text.
type strikeParser struct{}

func (strikeParser) Trigger() []byte { return []byte{'~'} }

func (strikeParser) Parse(_ ast.Node, block text.Reader, pc parser.Context) ast.Node {
	before := block.PrecendingCharacter()
	line, seg := block.PeekLine()
	d := parser.ScanDelimiter(line, before, 1, strikeDelimiters{})
	if d == nil || d.OriginalLength > 2 || before == '~' {
		return nil
	}
	d.Segment = seg.WithStop(seg.Start + d.OriginalLength)
	block.Advance(d.OriginalLength)
	pc.PushDelimiter(d)
	return d
}

func (strikeParser) CloseBlock(ast.Node, parser.Context) {}

// --- task lists -------------------------------------------------------------

// taskParser reads "[ ]", "[x]" or "[X]" (the box may hold any one
// whitespace byte) at the very start of a list item's first paragraph, and
// the whitespace after it.
type taskParser struct{}

func (taskParser) Trigger() []byte { return []byte{'['} }

func (taskParser) Parse(parent ast.Node, block text.Reader, _ parser.Context) ast.Node {
	item := parent.Parent()
	if item == nil || item.FirstChild() != parent || parent.HasChildren() {
		return nil
	}
	if _, ok := item.(*ast.ListItem); !ok {
		return nil
	}
	line, _ := block.PeekLine()
	if len(line) < 3 || line[0] != '[' || line[2] != ']' || !(isRESpace(line[1]) || line[1] == 'x' || line[1] == 'X') {
		return nil
	}
	n := 3
	for n < len(line) && isRESpace(line[n]) {
		n++
	}
	block.Advance(n)
	return &taskCheckBoxNode{checked: line[1] == 'x' || line[1] == 'X'}
}

func (taskParser) CloseBlock(ast.Node, parser.Context) {}

// isRESpace is RE2's \s: tab, newline, form feed, carriage return, space
// (not vertical tab), the class goldmark's task list pattern used.
func isRESpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\f' || b == '\r'
}

// --- HTML -------------------------------------------------------------------

type gfmRenderer struct{}

func (gfmRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(kindTable, renderTable)
	reg.Register(kindTableRow, renderTableRow)
	reg.Register(kindTableCell, renderTableCell)
	reg.Register(kindStrike, renderStrike)
	reg.Register(kindTaskCheckBox, renderTaskCheckBox)
}

func renderTable(w util.BufWriter, _ []byte, _ ast.Node, entering bool) (ast.WalkStatus, error) {
	if entering {
		_, _ = w.WriteString("<table>\n")
	} else {
		_, _ = w.WriteString("</table>\n")
	}
	return ast.WalkContinue, nil
}

func renderTableRow(w util.BufWriter, _ []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	n := node.(*tableRowNode)
	switch {
	case n.header && entering:
		_, _ = w.WriteString("<thead>\n<tr>\n")
	case n.header:
		_, _ = w.WriteString("</tr>\n</thead>\n")
		if n.NextSibling() != nil {
			_, _ = w.WriteString("<tbody>\n")
		}
	case entering:
		_, _ = w.WriteString("<tr>\n")
	default:
		_, _ = w.WriteString("</tr>\n")
		if n.NextSibling() == nil {
			_, _ = w.WriteString("</tbody>\n")
		}
	}
	return ast.WalkContinue, nil
}

func renderTableCell(w util.BufWriter, _ []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	n := node.(*tableCellNode)
	tag := "td"
	if r, ok := n.Parent().(*tableRowNode); ok && r.header {
		tag = "th"
	}
	if !entering {
		_, _ = w.WriteString("</" + tag + ">\n")
		return ast.WalkContinue, nil
	}
	_, _ = w.WriteString("<" + tag)
	if n.align != alignNone {
		_, _ = w.WriteString(` style="text-align:` + n.align.String() + `"`)
	}
	_ = w.WriteByte('>')
	return ast.WalkContinue, nil
}

func renderStrike(w util.BufWriter, _ []byte, _ ast.Node, entering bool) (ast.WalkStatus, error) {
	if entering {
		_, _ = w.WriteString("<del>")
	} else {
		_, _ = w.WriteString("</del>")
	}
	return ast.WalkContinue, nil
}

func renderTaskCheckBox(w util.BufWriter, _ []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	if node.(*taskCheckBoxNode).checked {
		_, _ = w.WriteString(`<input checked="" disabled="" type="checkbox"> `)
	} else {
		_, _ = w.WriteString(`<input disabled="" type="checkbox"> `)
	}
	return ast.WalkContinue, nil
}

// gfmParserOptions are the parser options of the three extensions, at the
// priorities goldmark/extension registered them (lower runs first): the
// table transformer after link reference definitions (100), the task box
// before every '[' parser, the pipe fix before the viewer's link
// transformer.
func gfmParserOptions() []parser.Option {
	return []parser.Option{
		parser.WithParagraphTransformers(util.Prioritized(tableTransformer{}, 200)),
		parser.WithASTTransformers(util.Prioritized(tablePipeTransformer{}, 0)),
		parser.WithInlineParsers(
			util.Prioritized(strikeParser{}, 500),
			util.Prioritized(taskParser{}, 0),
		),
	}
}

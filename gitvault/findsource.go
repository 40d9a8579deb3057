package gitvault

// The read-side accessors the ranked-search index (gitvault/find, issue 12)
// needs: the same page listing, daily walk and page parser every other
// reader uses, so find indexes exactly the pages search scans and reports
// exactly the pages check refuses.

// PageInfo is what a page's frontmatter says about it.
type PageInfo struct {
	Type, Status string   // Status casefolded
	Stack        []string // StackOf
	Summary      string   // normalized (echoes-conformance §10); "" without one
	Deprecated   bool     // status: deprecated (protocol §7.5)
}

// ParsePageInfo parses one page as the index does (a valued summary is
// required, echoes-conformance §9); the error is the one check reports.
func ParsePageInfo(content string) (PageInfo, error) {
	p, err := ParsePage(content, true, false)
	if err != nil {
		return PageInfo{}, err
	}
	return PageInfo{Type: p.Type, Status: p.Status, Summary: p.Summary, Deprecated: p.Deprecated(), Stack: StackOf(p.Block)}, nil
}

// PageNames lists the page files of the vault (direct regular non-symlink
// children of pages/ with a .md suffix), in index order.
func (ws *Workspace) PageNames() ([]string, error) { return listPageNames(ws.Pages) }

// WalkDaily calls fn with the daily/-relative slash path of every daily
// entry, in walk order, until fn returns false.
func (ws *Workspace) WalkDaily(fn func(rel string) bool) { WalkDaily(ws.Daily, fn) }

// WrapError is an engine error with message msg and cause err, reported
// as every engine error is (ErrorMessage, ErrorReply).
func WrapError(err error, msg string) error { return Wrapf(err, "%s", msg) }

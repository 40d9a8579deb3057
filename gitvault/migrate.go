package gitvault

import (
	"path/filepath"
	"strings"

	"github.com/git-echoes/git-echoes/internal/pyjson"
)

// migrationPlan is a validated legacy summary migration (echoes-conformance §17): the pages to
// rewrite with an injected summary, and the index that results.
type MigrationPlan struct {
	Pages []preparedPage
	Index *Index
}

// PlanMigration validates the whole migration without writing (echoes-conformance §17 steps
// 1-3). Every error is collected and reported at once.
func (e *Engine) PlanMigration() (*MigrationPlan, error) {
	src := DirSource{e.WS.Pages}
	names, err := src.PageNames()
	if err != nil {
		return nil, Wrapf(err, "Cannot list pages in %s: %s", e.WS.Pages, OSDetail(err))
	}
	texts := readPages(src, names)
	for _, t := range texts {
		if t.Err != nil {
			return nil, Wrapf(t.Err, "Cannot read page %s: %s", t.Name, ReadDetail(t.Err))
		}
	}
	if err := checkCollisions(names); err != nil {
		return nil, err
	}
	descriptions := legacyDescriptions(e.WS.CurrentIndexText())
	var problems []string
	var migrated []preparedPage
	for _, t := range texts {
		page, err := validatePage(t.Text, false)
		if err != nil {
			problems = append(problems, t.Name+": "+err.Error())
			continue
		}
		if page.HasSummary {
			continue
		}
		stem := PageStem(t.Name)
		desc, ok := descriptions[stem]
		if !ok || desc == "" {
			problems = append(problems, t.Name+": missing summary and no legacy index description is available")
			continue
		}
		summary, err := normalizeSummary(pyjson.Str(desc), stem)
		if err == nil {
			page, err = injectSummary(page, summary)
		}
		if err != nil {
			problems = append(problems, t.Name+": "+err.Error())
			continue
		}
		migrated = append(migrated, preparedPage{indexPage: indexPage{Name: t.Name, Page: page}, Path: filepath.Join(e.WS.Pages, t.Name), Existed: true})
	}
	if len(problems) > 0 {
		return nil, Errorf("Index metadata errors: %s", strings.Join(problems, "; "))
	}
	proposed := make([]indexPage, len(migrated))
	for i, p := range migrated {
		proposed[i] = p.indexPage
	}
	idx, err := renderTexts(texts, proposed)
	if err != nil {
		return nil, err
	}
	return &MigrationPlan{Pages: migrated, Index: idx}, nil
}

// legacyDescriptions maps raw slugs of the existing index to descriptions,
// dropping every slug that appears more than once as ambiguous.
func legacyDescriptions(indexText string) map[string]string {
	out := map[string]string{}
	dup := map[string]bool{}
	for _, row := range ParseIndexRows(indexText) {
		if _, seen := out[row.Slug]; seen {
			dup[row.Slug] = true
		}
		out[row.Slug] = row.Description
	}
	for slug := range dup {
		delete(out, slug)
	}
	return out
}

// ApplyMigration writes the migrated pages, then refreshes the index.
func (w *Writer) ApplyMigration(plan *MigrationPlan) (refreshResult, *Index, error) {
	var names []string
	for _, p := range plan.Pages {
		if err := w.Write(p.Path, []byte(p.Page.Text)); err != nil {
			return refreshResult{}, nil, err
		}
		names = append(names, p.Name)
	}
	res, err := w.RefreshIndex(plan.Index)
	res.MigratedSummaries = names
	return res, plan.Index, err
}

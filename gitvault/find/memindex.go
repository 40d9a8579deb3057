package find

import (
	"sync"

	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/gitvault/memory"
)

// MemIndex is the ranked search of a reader that must write nothing and
// take no lock: the viewer of `git echoes serve` (issue 14). It is Find
// over an index held in memory instead of the one under
// gitvault.LocalCacheDir: the same schema, analysis, ranking and
// revalidation by file identity (each query re-reads exactly the files
// whose identity moved, so the answer is what is on disk now), but
// nothing is ever created, opened for writing or locked in the workspace
// or the Git directory. The first query builds it from the files; later
// ones update it incrementally. A MemIndex is safe for concurrent use:
// queries are serialized.
type MemIndex struct {
	ws    *gitvault.Workspace
	roots *memory.Roots
	mu    sync.Mutex
	s     *store // nil until the first query, and after a failure
}

// NewMemIndex returns an empty in-memory index of the workspace's pages
// and daily entries and of the memories below roots.
func NewMemIndex(ws *gitvault.Workspace, roots *memory.Roots) *MemIndex {
	return &MemIndex{ws: ws, roots: roots}
}

// Find answers one query as Find does (the same options, errors and
// result); Index reports what the query did to the in-memory index.
// Options.Rebuild drops it first.
func (m *MemIndex) Find(opt Options) (*Result, error) {
	q, err := ParseQuery(opt.Query)
	if err != nil {
		return nil, err
	}
	if err := checkOptions(&opt); err != nil {
		return nil, err
	}
	if err := m.ws.Gate(); err != nil {
		return nil, err
	}
	src := sourceSet{pages: true, daily: opt.Daily, memory: true, scopes: opt.Scopes}
	if len(opt.Kinds) > 0 || len(opt.Tags) > 0 {
		src.pages, src.daily = false, false
	}
	if len(opt.Types) > 0 || len(opt.Stacks) > 0 {
		src.memory, src.daily = false, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if opt.Rebuild {
		m.drop()
	}
	rep, err := m.sync(src)
	if err != nil {
		return nil, err
	}
	res := &Result{Query: q.Raw, Index: rep}
	err = m.s.query(q, opt, src, res)
	if err != nil && isIndexError(err) && !rep.Rebuilt {
		m.drop()
		if rep, err = m.sync(src); err != nil {
			return nil, err
		}
		rep.Reason = "the index failed a query: " + rep.Reason
		res = &Result{Query: q.Raw, Index: rep}
		err = m.s.query(q, opt, src, res)
	}
	if err != nil {
		m.drop()
		return nil, gitvault.WrapError(err, "Cannot query the in-memory find index: "+err.Error())
	}
	return res, nil
}

// sync brings the index up to date with the sources of src, building it
// when there is none (or the one there failed).
func (m *MemIndex) sync(src sourceSet) (IndexReport, error) {
	var rep IndexReport
	if m.s != nil {
		st, err := m.s.syncAll(m.ws, src, m.roots, nil)
		rep.Updated, rep.Removed = st.updated, st.removed
		if err == nil {
			return rep, nil
		}
		m.drop()
		if !isIndexError(err) {
			return rep, err
		}
		rep.Reason = "the index could not be updated: " + err.Error()
	} else {
		rep.Reason = "there was no index"
	}
	rep.Rebuilt = true
	s, err := createMemory(m.ws.Root)
	if err != nil {
		return rep, gitvault.WrapError(err, "Cannot create the in-memory find index: "+err.Error())
	}
	st, err := s.syncAll(m.ws, src, m.roots, nil)
	if err != nil {
		s.close()
		return rep, err
	}
	rep.Updated, rep.Removed = st.updated, st.removed
	m.s = s
	return rep, nil
}

func (m *MemIndex) drop() {
	if m.s != nil {
		m.s.close()
		m.s = nil
	}
}

// Close releases the index's memory.
func (m *MemIndex) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.drop()
	return nil
}

// Warm builds or updates the index for queries over the pages, the daily
// entries and the memories of scopes, so that the first query does not
// pay for the build. It is the read-only counterpart of Refresh.
func (m *MemIndex) Warm(scopes []string) error {
	scopes, err := memory.ValidateScopes(scopes)
	if err != nil {
		return qerr(err.Error())
	}
	if err := m.ws.Gate(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	_, err = m.sync(sourceSet{pages: true, daily: true, memory: true, scopes: scopes})
	return err
}

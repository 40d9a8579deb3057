package gitvault

import (
	"strings"

	"github.com/git-echoes/git-echoes/internal/pyjson"
	"github.com/git-echoes/git-echoes/internal/pytext"
)

// As-of reads (issue 9): search and start answered from the tree of a
// commit, straight from the object store. They write nothing (no index,
// no state), take no lock and never look at the work tree's vault, so
// "what did our memory say at release v1.2?" has the answer v1.2 holds.

// revSnapshot reads the vault of rev and applies the gate to the marker
// that commit holds (echoes-conformance §7.3).
func (e *Engine) revSnapshot(rev string) (*vaultSnapshot, error) {
	repo, err := e.openRepo()
	if err != nil {
		return nil, err
	}
	h, err := resolveRev(repo, rev)
	if err != nil {
		return nil, err
	}
	snap, err := treeSnapshot(repo, h)
	if err != nil {
		return nil, wrapf(err, "Cannot read revision %s: %s", pyjson.ReprString(rev), err.Error())
	}
	if err := snapshotGate(snap, rev); err != nil {
		return nil, err
	}
	return snap, nil
}

// snapshotGate is Gate over a snapshot's marker: the same checks and
// messages, with the revision named when the marker is missing.
func snapshotGate(s *vaultSnapshot, rev string) error {
	f, ok := s.file(vaultPrefix + ".echoes-vault.json")
	if !ok || !f.regular {
		return errorf("EchoesVault is not initialized at revision %s.", rev)
	}
	data, err := f.read()
	if err != nil {
		return wrapf(err, "Invalid EchoesVault marker: %s", err.Error())
	}
	text, err := pytext.DecodeText(data)
	if err != nil {
		return wrapf(err, "Invalid EchoesVault marker: %s", err.Error())
	}
	v, err := pyjson.Decode(text)
	if err != nil {
		return wrapf(err, "Invalid EchoesVault marker: %s", err.Error())
	}
	if v.Kind != pyjson.Object {
		return errorf("Invalid EchoesVault marker: root must be an object.")
	}
	if g, _ := (MarkerRead{Exists: true, Value: v}).check(); g != "" {
		return errorf("%s", g)
	}
	return nil
}

// SearchAt is Search over the pages of rev (echoes-conformance §15.7 semantics:
// the same query handling, order, limit and truncation). Hits name the
// files as Search does.
func (e *Engine) SearchAt(rev, query string, limit int) (*SearchResult, error) {
	snap, err := e.revSnapshot(rev)
	if err != nil {
		return nil, err
	}
	q := pytext.Strip(query)
	if q == "" {
		return nil, errorf("Search query cannot be empty.")
	}
	limit = max(1, min(limit, maxLimit))
	hits, truncated, err := searchPages(snap, snap.pages, e.WS.Rel(e.WS.Pages), q, limit, nil, nil)
	if err != nil {
		return nil, err
	}
	return &SearchResult{Query: q, Truncated: truncated, Hits: hits}, nil
}

// StartAt renders the session context start would print from the vault
// of rev: its pages' index and its most recent daily entries. Unlike
// Start it writes neither index.md nor the state.
func (e *Engine) StartAt(rev string, recent int) (string, error) {
	if e.opt.Agent != nil || e.opt.AdapterVersion != nil {
		return "", errorf("start --rev writes nothing: --agent and --adapter-version are recorded in the state, so they cannot be combined with --rev.")
	}
	recent = max(0, min(recent, maxRecent))
	snap, err := e.revSnapshot(rev)
	if err != nil {
		return "", err
	}
	idx, err := renderIndex(snap, snap.pages, nil)
	if err != nil {
		return "", err
	}
	var entries []string
	for _, f := range snap.files {
		if rel, ok := strings.CutPrefix(f.path, dailyPrefix); ok && f.regular && strings.HasSuffix(f.path, ".md") {
			entries = append(entries, rel)
		}
	}
	entries = recentEntries(entries, recent)
	return sessionContext(idx, entries, func(rel string) ([]byte, error) {
		f, _ := snap.file(dailyPrefix + rel)
		return f.read()
	})
}

package review

import (
	"github.com/git-echoes/git-echoes/gitvault"
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
func revSnapshot(e *gitvault.Engine, rev string) (*gitvault.Snapshot, error) {
	repo, err := openRepo(e)
	if err != nil {
		return nil, err
	}
	h, err := resolveRev(repo, rev)
	if err != nil {
		return nil, err
	}
	snap, err := gitvault.TreeSnapshot(repo, h)
	if err != nil {
		return nil, gitvault.Wrapf(err, "Cannot read revision %s: %s", pyjson.ReprString(rev), err.Error())
	}
	if err := snapshotGate(snap, rev); err != nil {
		return nil, err
	}
	return snap, nil
}

// snapshotGate is Gate over a snapshot's marker: the same checks and
// messages, with the revision named when the marker is missing.
func snapshotGate(s *gitvault.Snapshot, rev string) error {
	f, ok := s.File(gitvault.VaultPrefix + ".echoes-vault.json")
	if !ok || !f.Regular {
		return gitvault.Errorf("EchoesVault is not initialized at revision %s.", rev)
	}
	data, err := f.Read()
	if err != nil {
		return gitvault.Wrapf(err, "Invalid EchoesVault marker: %s", err.Error())
	}
	text, err := pytext.DecodeText(data)
	if err != nil {
		return gitvault.Wrapf(err, "Invalid EchoesVault marker: %s", err.Error())
	}
	v, err := pyjson.Decode(text)
	if err != nil {
		return gitvault.Wrapf(err, "Invalid EchoesVault marker: %s", err.Error())
	}
	if v.Kind != pyjson.Object {
		return gitvault.Errorf("Invalid EchoesVault marker: root must be an object.")
	}
	if g, _ := (gitvault.MarkerRead{Exists: true, Value: v}).Problems(); g != "" {
		return gitvault.Errorf("%s", g)
	}
	return nil
}

// SearchAt is Search over the pages of rev (echoes-conformance §15.7 semantics:
// the same query handling, order, limit and truncation). Hits name the
// files as Search does.
func SearchAt(e *gitvault.Engine, rev, query string, limit int) (*gitvault.SearchResult, error) {
	snap, err := revSnapshot(e, rev)
	if err != nil {
		return nil, err
	}
	q := pytext.Strip(query)
	if q == "" {
		return nil, gitvault.Errorf("Search query cannot be empty.")
	}
	limit = max(1, min(limit, gitvault.MaxLimit))
	hits, truncated, err := gitvault.SearchPages(snap, snap.Pages, e.WS.Rel(e.WS.Pages), q, limit, nil, nil)
	if err != nil {
		return nil, err
	}
	return &gitvault.SearchResult{Query: q, Truncated: truncated, Hits: hits}, nil
}

// StartAt renders the session context start would print from the vault
// of rev: its pages' index and its most recent daily entries. Unlike
// Start it writes neither index.md nor the state.
func StartAt(e *gitvault.Engine, rev string, recent int) (string, error) {
	if e.Options().Agent != nil || e.Options().AdapterVersion != nil {
		return "", gitvault.Errorf("start --rev writes nothing: --agent and --adapter-version are recorded in the state, so they cannot be combined with --rev.")
	}
	recent = max(0, min(recent, gitvault.MaxRecent))
	snap, err := revSnapshot(e, rev)
	if err != nil {
		return "", err
	}
	idx, err := gitvault.RenderIndex(snap, snap.Pages, nil)
	if err != nil {
		return "", err
	}
	var entries []string
	for _, f := range snap.Files {
		if rel, ok := strings.CutPrefix(f.Path, dailyPrefix); ok && f.Regular && strings.HasSuffix(f.Path, ".md") {
			entries = append(entries, rel)
		}
	}
	entries = gitvault.RecentEntries(entries, recent)
	return gitvault.SessionContext(idx, entries, func(rel string) ([]byte, error) {
		f, _ := snap.File(dailyPrefix + rel)
		return f.Read()
	})
}

package gitvault

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/git-echoes/git-echoes/internal/fsx"
	"github.com/git-echoes/git-echoes/internal/pyjson"
	"github.com/git-echoes/git-echoes/internal/pytext"
)

// Hash reports the echoes-conformance §12 hash of an existing page (read-only).
func (e *Engine) Hash(filename string) (pyjson.Value, error) {
	if err := e.WS.Gate(); err != nil {
		return pyjson.Value{}, err
	}
	name, err := normalizePageName(pyjson.Str(filename))
	if err != nil {
		return pyjson.Value{}, err
	}
	// On Windows CON.md opens the console, not a file: never read it.
	if err := portablePageName(name); err != nil {
		return pyjson.Value{}, err
	}
	path, err := e.WS.pageTarget(name) // the reference follows symlinks here; we refuse like upsert
	if err != nil {
		return pyjson.Value{}, err
	}
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
		return pyjson.Value{}, Errorf("Page does not exist: %s", name)
	}
	text, _, err := readPageText(path, name)
	if err != nil {
		return pyjson.Value{}, err
	}
	return pyjson.ObjectValue(pyjson.NewObj().Set("ok", pyjson.Boolean(true)).
		Set("page", pyjson.Str(path)).Set("sha256", pyjson.Str(textHash(text)))), nil
}

// preparedPage is a validated page about to be written.
type preparedPage struct {
	indexPage
	Path    string
	Existed bool
}

// preparePage validates one page item of upsert or end (echoes-conformance §15.9 steps 2-6).
// unchangedOK accepts an existing page that already holds the proposed text
// without a hash (end only, see below).
func (e *Engine) preparePage(item *pyjson.Obj, unchangedOK bool) (*preparedPage, error) {
	name, err := normalizePageName(field(item, "filename"))
	if err != nil {
		return nil, err
	}
	if err := portablePageName(name); err != nil {
		return nil, err
	}
	// After the Windows refusal, which names the reason Windows gives for the
	// control characters they share (issue 8).
	if err := RefuseUnsafePageName(name); err != nil {
		return nil, err
	}
	path, err := e.WS.pageTarget(name)
	if err != nil {
		return nil, err
	}
	content := field(item, "content")
	if content.Kind != pyjson.String || pytext.IsBlank(content.S) {
		return nil, Errorf("Page content must be a non-empty string.")
	}
	page, err := validatePage(content.S, false)
	if err != nil {
		return nil, err
	}
	slug := PageStem(name)
	desc, hasDesc := item.Get("indexDescription")
	switch {
	case !page.HasSummary:
		summary, err := normalizeSummary(desc, slug)
		if err != nil {
			return nil, err
		}
		if page, err = injectSummary(page, summary); err != nil {
			return nil, err
		}
	case hasDesc && desc.Kind != pyjson.Null:
		summary, err := normalizeSummary(desc, slug)
		if err != nil {
			return nil, err
		}
		if summary != page.Summary {
			return nil, Errorf("indexDescription conflicts with frontmatter summary for %s.", name)
		}
	}
	if page, err = validatePage(page.Text, true); err != nil {
		return nil, err
	}
	current, existed, err := readPageText(path, name)
	if err != nil {
		return nil, err
	}
	// In end, a page that already holds the proposed text is no conflict:
	// nothing would be replaced (protocol §11.3 asks the hash of a replaced
	// page). This lets the retry of an end killed after writing some of its
	// pages finish the rest (issue 11 item 5), where the reference refuses it
	// (echoes-conformance §15.9 step 6): the pages it already wrote no longer
	// match the expectedSha256 read before, and the ones it created now exist
	// without one. The comparison is on the text the echoes-conformance §12
	// hash covers. upsert keeps the reference's rule: its retry is the
	// protocol's reread-and-retry, and nothing else is left half done.
	if existed && !(unchangedOK && current == page.Text) {
		expected := field(item, "expectedSha256")
		if expected.Kind != pyjson.String || expected.S == "" {
			return nil, Errorf("Updating %s requires expectedSha256 from the content read before writing.", name)
		}
		if found := textHash(current); expected.S != found {
			return nil, Errorf("Concurrent change detected for %s: expected %s, found %s.", name, expected.S, found)
		}
	}
	return &preparedPage{indexPage: indexPage{Name: name, Page: page}, Path: path, Existed: existed}, nil
}

// Upsert creates or replaces one page (echoes-conformance §15.9).
func (e *Engine) Upsert(load Payload) (pyjson.Value, error) {
	return e.LockedMutation(func(w *Writer) (pyjson.Value, error) {
		payload, err := decodePayload(load)
		if err != nil {
			return pyjson.Value{}, err
		}
		agent, err := e.FlagAgent()
		if err != nil {
			return pyjson.Value{}, err
		}
		page, err := e.preparePage(payload, false)
		if err != nil {
			return pyjson.Value{}, err
		}
		idx, err := e.Render([]indexPage{page.indexPage})
		if err != nil {
			return pyjson.Value{}, err
		}
		if err := refuseSymlinkTargets(e.WS.Index, e.WS.State); err != nil {
			return pyjson.Value{}, err
		}
		if err := w.Write(page.Path, []byte(page.Page.Text)); err != nil {
			return pyjson.Value{}, err
		}
		refresh, err := w.RefreshIndex(idx)
		if err != nil {
			return pyjson.Value{}, err
		}
		if _, err := e.FinishState(w, e.WS.ReadState(), e.WS.StatsFromIndex(idx), agent); err != nil {
			return pyjson.Value{}, err
		}
		action := "created"
		if page.Existed {
			action = "updated"
		}
		return pyjson.ObjectValue(pyjson.NewObj().Set("ok", pyjson.Boolean(true)).
			Set("action", pyjson.Str(action)).
			Set("page", pyjson.Str(page.Path)).
			// The echoes-conformance §12 hash of what was written, so it chains into the next
			// expectedSha256 even for CRLF pages (echoes-conformance §12 Quirk).
			Set("sha256", pyjson.Str(textHash(page.Page.Text))).
			Set("indexChanged", pyjson.Boolean(refresh.Rebuilt))), nil
	})
}

// Append writes one unique scratchpad entry (echoes-conformance §15.8).
func (e *Engine) Append(load Payload) (pyjson.Value, error) {
	return e.LockedMutation(func(w *Writer) (pyjson.Value, error) {
		payload, err := decodePayload(load)
		if err != nil {
			return pyjson.Value{}, err
		}
		entry := field(payload, "entry")
		if entry.Kind != pyjson.String || pytext.IsBlank(entry.S) {
			return pyjson.Value{}, Errorf("Append payload requires a non-empty string field named 'entry'.")
		}
		pa, hasAgent := payload.Get("agent")
		agent, err := resolveAgent(pa, hasAgent, e.opt.Agent)
		if err != nil {
			return pyjson.Value{}, err
		}
		path, content, err := e.WS.dailyEntry(kindScratchpad, entry.S, agent)
		if err != nil {
			return pyjson.Value{}, err
		}
		if err := refuseSymlinkTargets(e.WS.State); err != nil {
			return pyjson.Value{}, err
		}
		if err := w.Create(path, content); err != nil {
			return pyjson.Value{}, err
		}
		st := e.WS.ReadState()
		writer, err := stateWriterAgent(agent)
		if err != nil {
			return pyjson.Value{}, err
		}
		if _, err := e.FinishState(w, st, e.WS.appendStats(st), writer); err != nil {
			return pyjson.Value{}, err
		}
		return pyjson.ObjectValue(pyjson.NewObj().Set("ok", pyjson.Boolean(true)).
			Set("dailyLog", pyjson.Str(path)).
			Set("kind", pyjson.Str(kindScratchpad)).
			Set("agent", optString(agent))), nil
	})
}

// appendStats keeps append independent of the vault size: instead of
// rescanning every page (the reference takes seconds on large vaults), it
// adds the new entry to the counts of a state this engine version wrote.
// State is local and never authoritative; every other mutating command
// recounts, and inspect always reports live counts.
func (ws *Workspace) appendStats(st *State) Stats {
	if data, err := fsx.ReadFile(ws.State); err == nil {
		if text, err := pytext.DecodeText(data); err == nil {
			if raw, err := pyjson.Decode(text); err == nil && StateFileValid(raw) == "" {
				if stats, ok := rawStats(raw); ok {
					stats.TotalDailyLogs++
					return stats
				}
			}
		}
	}
	names, _ := DirSource{ws.Pages}.PageNames()
	stats := Stats{TotalPages: len(names), TotalDailyLogs: ws.CountDailyLogs()}
	for _, t := range readPages(DirSource{ws.Pages}, names) {
		if t.Err == nil {
			if p, err := validatePage(t.Text, true); err == nil && p.Deprecated() {
				stats.DeprecatedPages++
			}
		}
	}
	return stats
}

func rawStats(raw pyjson.Value) (Stats, bool) {
	sv, ok := raw.Obj.Get("stats")
	if !ok || sv.Kind != pyjson.Object {
		return Stats{}, false
	}
	var out Stats
	for key, dst := range map[string]*int{"totalPages": &out.TotalPages, "totalDailyLogs": &out.TotalDailyLogs, "deprecatedPages": &out.DeprecatedPages} {
		v, ok := sv.Obj.Get(key)
		n, isInt := v.Num.Int64()
		if !ok || v.Kind != pyjson.Number || !isInt || n < 0 {
			return Stats{}, false
		}
		*dst = int(n)
	}
	return out, true
}

// End finalizes a session (echoes-conformance §15.10). confirmed is --confirm-explicit-user-end.
func (e *Engine) End(load Payload, confirmed bool) (pyjson.Value, error) {
	if !confirmed {
		return pyjson.Value{}, Errorf("Final memory save requires --confirm-explicit-user-end from the echoes-end workflow.")
	}
	return e.LockedMutation(func(w *Writer) (pyjson.Value, error) {
		payload, err := decodePayload(load)
		if err != nil {
			return pyjson.Value{}, err
		}
		summary := field(payload, "dailySummary")
		if summary.Kind != pyjson.String || pytext.IsBlank(summary.S) {
			return pyjson.Value{}, Errorf("End payload requires a non-empty dailySummary.")
		}
		items := []pyjson.Value{}
		if pv, ok := payload.Get("pages"); ok {
			if pv.Kind != pyjson.Array {
				return pyjson.Value{}, Errorf("End payload pages must be an array of objects.")
			}
			for _, it := range pv.Arr {
				if it.Kind != pyjson.Object {
					return pyjson.Value{}, Errorf("End payload pages must be an array of objects.")
				}
			}
			items = pv.Arr
		}
		if iu, ok := payload.Get("indexUpdates"); ok && iu.Kind != pyjson.Null && !(iu.Kind == pyjson.Array && len(iu.Arr) == 0) {
			return pyjson.Value{}, Errorf("indexUpdates are no longer accepted because index.md is generated from page summaries.")
		}
		pa, hasAgent := payload.Get("agent")
		agent, err := resolveAgent(pa, hasAgent, e.opt.Agent)
		if err != nil {
			return pyjson.Value{}, err
		}
		var prepared []*preparedPage
		seen := map[string]bool{}
		for _, it := range items {
			p, err := e.preparePage(it.Obj, true)
			if err != nil {
				return pyjson.Value{}, err
			}
			if seen[p.Path] {
				return pyjson.Value{}, Errorf("End payload contains duplicate page: %s", p.Name)
			}
			seen[p.Path] = true
			prepared = append(prepared, p)
		}
		proposed := make([]indexPage, len(prepared))
		for i, p := range prepared {
			proposed[i] = p.indexPage
		}
		idx, err := e.Render(proposed)
		if err != nil {
			return pyjson.Value{}, err
		}
		path, content, err := e.WS.dailyEntry(kindSession, summary.S, agent)
		if err != nil {
			return pyjson.Value{}, err
		}
		if err := refuseSymlinkTargets(e.WS.Index, e.WS.State); err != nil {
			return pyjson.Value{}, err
		}
		for _, p := range prepared {
			if err := w.Write(p.Path, []byte(p.Page.Text)); err != nil {
				return pyjson.Value{}, err
			}
		}
		if err := w.Write(e.WS.Index, []byte(idx.Text)); err != nil {
			return pyjson.Value{}, err
		}
		st := e.WS.ReadState()
		if prev := unfinishedSessionEntry(path, content, agent, st.LastSave); prev != "" {
			path = prev // a killed end's entry: written once, reported again
		} else if err := w.Create(path, content); err != nil {
			return pyjson.Value{}, err
		}
		st.Saved = pyjson.Boolean(true)
		st.LastSave = pyjson.Str(LocalTimestamp(Now()))
		writer, err := stateWriterAgent(agent)
		if err != nil {
			return pyjson.Value{}, err
		}
		if _, err := e.FinishState(w, st, e.WS.StatsFromIndex(idx), writer); err != nil {
			return pyjson.Value{}, err
		}
		return pyjson.ObjectValue(pyjson.NewObj().Set("ok", pyjson.Boolean(true)).
			Set("dailyLog", pyjson.Str(path)).
			Set("pagesWritten", pyjson.Int(int64(len(prepared)))).
			Set("index", pyjson.Str(e.WS.Index)).
			Set("memorySaved", pyjson.Boolean(true)).
			Set("agent", optString(agent))), nil
	})
}

// refreshCommand is the shared body of hydrate and rebuild-index: render,
// refresh index.md, write state.
func (e *Engine) refreshCommand(w *Writer) (refreshResult, *State, error) {
	agent, err := e.FlagAgent()
	if err != nil {
		return refreshResult{}, nil, err
	}
	idx, err := e.renderSweeping(w)
	if err != nil {
		return refreshResult{}, nil, err
	}
	if err := refuseSymlinkTargets(e.WS.Index, e.WS.State); err != nil {
		return refreshResult{}, nil, err
	}
	res, err := w.RefreshIndex(idx)
	if err != nil {
		return res, nil, err
	}
	st, err := e.FinishState(w, e.WS.ReadState(), e.WS.StatsFromIndex(idx), agent)
	return res, st, err
}

// RebuildIndex validates every page and regenerates index.md (echoes-conformance §15.12).
func (e *Engine) RebuildIndex() (pyjson.Value, error) {
	return e.LockedMutation(func(w *Writer) (pyjson.Value, error) {
		w.sweepAllBut(e.WS.Pages) // issue 11 item 1; pages/ from the render's listing
		res, _, err := e.refreshCommand(w)
		if err != nil {
			return pyjson.Value{}, err
		}
		return pyjson.ObjectValue(pyjson.NewObj().Set("ok", pyjson.Boolean(true)).
			Set("index", pyjson.Str(e.WS.Index)).
			Set("rebuilt", pyjson.Boolean(res.Rebuilt)).
			Set("migratedSummaries", pyjson.Strs(nil)).
			Set("pageCount", pyjson.Int(int64(res.PageCount))).
			Set("sha256", pyjson.Str(res.SHA256))), nil
	})
}

// Hydrate refreshes only the ignored generated files (echoes-conformance §15.4).
func (e *Engine) Hydrate() (pyjson.Value, error) {
	if fi, err := os.Lstat(e.WS.Runtime); err != nil || !fi.Mode().IsRegular() {
		return pyjson.Value{}, Errorf("Project runtime is missing. Run the echoes-init workflow before hydrate.")
	}
	return e.LockedMutation(func(w *Writer) (pyjson.Value, error) {
		w.sweepAllBut(e.WS.Pages) // issue 11 item 1; pages/ from the render's listing
		res, st, err := e.refreshCommand(w)
		if err != nil {
			return pyjson.Value{}, err
		}
		return pyjson.ObjectValue(pyjson.NewObj().Set("ok", pyjson.Boolean(true)).
			Set("index", pyjson.Str(e.WS.Index)).
			Set("indexRefresh", res.JSON()).
			Set("state", st.JSON())), nil
	})
}

// SessionContext renders the Markdown session context of start
// (echoes-conformance §15.5) from the rendered index and the chosen daily
// entries (paths relative to daily/, slash-separated), read with read.
func SessionContext(idx *Index, entries []string, read func(rel string) ([]byte, error)) (string, error) {
	lines := []string{"# EchoesVault session context", "", "## Index", "", pytext.RStrip(idx.Text), "",
		"## Recent session entries (" + itoa(len(entries)) + ")"}
	for _, rel := range entries {
		data, err := read(rel)
		if err != nil {
			return "", Wrapf(err, "Cannot read daily entry %s: %s", rel, OSDetail(err))
		}
		text, err := pytext.DecodeText(data)
		if err != nil {
			return "", Wrapf(err, "Cannot read daily entry %s: invalid UTF-8", rel)
		}
		lines = append(lines, "", "### "+filepath.FromSlash(rel), "", pytext.RStrip(text))
	}
	if len(entries) == 0 {
		lines = append(lines, "", "No session entries found.")
	}
	if len(idx.Pages) > ScaleAlertPages {
		lines = append(lines, "", "> [!warning] SCALE ALERT", "> The vault exceeds 200 pages. Prefer targeted search over loading every page.")
	}
	return pytext.RStrip(strings.Join(lines, "\n")) + "\n", nil
}

// RecentEntries orders daily entries newest first by NFC name and keeps
// the first recent (echoes-conformance §15.5).
func RecentEntries(entries []string, recent int) []string {
	keys := make(map[string]string, len(entries))
	for _, rel := range entries {
		keys[rel] = pytext.NFC(rel)
	}
	sort.SliceStable(entries, func(i, j int) bool { return keys[entries[i]] > keys[entries[j]] })
	if len(entries) > recent {
		entries = entries[:recent]
	}
	return entries
}

// Start refreshes the index, marks the session started and returns the
// Markdown session context (echoes-conformance §15.5).
func (e *Engine) Start(recent int) (string, error) {
	recent = max(0, min(recent, MaxRecent))
	var out string
	_, err := e.LockedMutation(func(w *Writer) (pyjson.Value, error) {
		agent, err := e.FlagAgent()
		if err != nil {
			return pyjson.Value{}, err
		}
		idx, err := e.Render(nil)
		if err != nil {
			return pyjson.Value{}, err
		}
		if err := refuseSymlinkTargets(e.WS.Index, e.WS.State); err != nil {
			return pyjson.Value{}, err
		}
		if _, err := w.RefreshIndex(idx); err != nil {
			return pyjson.Value{}, err
		}
		var entries []string
		WalkDaily(e.WS.Daily, func(rel string) bool { entries = append(entries, rel); return true })
		entries = RecentEntries(entries, recent)
		out, err = SessionContext(idx, entries, func(rel string) ([]byte, error) {
			return fsx.ReadFile(filepath.Join(e.WS.Daily, filepath.FromSlash(rel)))
		})
		if err != nil {
			return pyjson.Value{}, err
		}
		st := e.WS.ReadState()
		st.Started = pyjson.Boolean(true)
		st.Saved = pyjson.Boolean(false)
		st.LastStart = pyjson.Str(LocalTimestamp(Now()))
		_, err = e.FinishState(w, st, e.WS.StatsFromIndex(idx), agent)
		return pyjson.Value{}, err
	})
	return out, err
}

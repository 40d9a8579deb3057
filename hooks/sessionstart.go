// Package hooks holds the agent and Git hook entry points of git-echoes.
package hooks

import (
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/gitvault/freshness"
	"github.com/git-echoes/git-echoes/gitvault/health"
	"github.com/git-echoes/git-echoes/internal/pyjson"
)

// SessionStart contract constants (echoes-conformance §22).
const (
	// CardBudget and PlainBudget are the additionalContext limits, in
	// characters (code points), that the reference plugin registers for
	// the card matchers and for compact.
	CardBudget  = 2400
	PlainBudget = 800
	// InspectTimeout is the budget of the read-only inspection.
	InspectTimeout = 8 * time.Second

	plainContext = "EchoesVault is available. Do not initialize, restore, or finalize memory unless the user explicitly requests the corresponding action. Use $echoes-vault for targeted operations."
	cardContext  = " At the very beginning of your first user-facing response after this SessionStart, show the following Markdown status card exactly once, then answer the user's request. Do not describe the hook or claim that the card is a persistent sidebar."
	// UnavailableCard replaces the card when inspection fails or times out.
	UnavailableCard = "### EchoesVault · △ Status unavailable"
)

// silent is the whole response when the repository has no vault.
const silent = `{"continue": true, "suppressOutput": true}` + "\n"

// SessionStart reads one Claude Code / Codex SessionStart event from stdin
// and returns the hook response (compact JSON and a newline). It never
// writes to the work tree or the vault, locks, initializes or migrates
// anything (the only files it writes are the derived freshness caches
// under the Git directory, see StaleLines), and it never fails:
// invalid JSON counts as {}, and an inspection that fails or takes longer
// than InspectTimeout yields UnavailableCard.
//
// The event's "source" selects the mode: "compact" gets the plain context,
// anything else ("startup", "resume", "clear", or no source at all) the
// card. When the context would exceed its budget, the card loses whole
// lines from its end until it fits; the stock card is far below the budget,
// so this only guards against unusually long content.
func SessionStart(stdin io.Reader) string {
	event := readEvent(stdin)
	dir, _ := stringField(event, "cwd")
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return silent
		}
		dir = wd
	}
	ws, err := gitvault.LocateWorkspace(dir)
	if err != nil || !vaultPresent(ws) {
		return silent
	}
	source, _ := stringField(event, "source")
	// Freshness is computed beside the inspection, within its budget.
	deadline := time.Now().Add(InspectTimeout)
	stale := make(chan []string, 1)
	go func() {
		// The hook never fails: a freshness that panics adds nothing.
		defer func() {
			if recover() != nil {
				stale <- nil
			}
		}()
		stale <- StaleLines(ws.Root)
	}()
	context := plainContext
	budget := PlainBudget
	if source != "compact" {
		budget = CardBudget
		context = fitCard(plainContext+cardContext+"\n\n", statusCard(ws.Root), budget)
	} else {
		context = truncateRunes(context, budget)
	}
	select {
	case lines := <-stale:
		context = addStale(context, lines, budget)
	case <-time.After(time.Until(deadline)):
		// Freshness that takes longer than the inspection's budget is
		// left out (its goroutine is abandoned; its cache writes are
		// atomic, so an exit midway leaves the old file or none).
	}
	out := pyjson.NewObj().
		Set("continue", pyjson.Boolean(true)).
		Set("suppressOutput", pyjson.Boolean(true)).
		Set("hookSpecificOutput", pyjson.ObjectValue(pyjson.NewObj().
			Set("hookEventName", pyjson.Str("SessionStart")).
			Set("additionalContext", pyjson.Str(context))))
	return pyjson.Compact(pyjson.ObjectValue(out)) + "\n"
}

func readEvent(r io.Reader) *pyjson.Obj {
	data, err := io.ReadAll(r)
	if err != nil {
		return pyjson.NewObj()
	}
	v, err := pyjson.Decode(string(data))
	if err != nil || v.Kind != pyjson.Object {
		return pyjson.NewObj()
	}
	return v.Obj
}

func stringField(o *pyjson.Obj, key string) (string, bool) {
	v, ok := o.Get(key)
	if !ok || v.Kind != pyjson.String {
		return "", false
	}
	return v.S, true
}

// vaultPresent is the hook's notion of "initialized": the marker or the
// index is a regular, non-symlink file.
func vaultPresent(ws *gitvault.Workspace) bool {
	for _, p := range []string{ws.Marker, ws.Index} {
		if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() {
			return true
		}
	}
	return false
}

// Freshness at session start (issue 18, "Where it shows"): the agent is
// told which of the pages the hook checks are drifted or missing, one
// factual line each, after the card and within the same budget. The
// pages checked are the StalePages pages changed most recently in HEAD's
// history (freshness.RecentPages, at most staleWalk commits back): the
// pages a resumed session most likely relies on, whose anchors are near
// HEAD, so the check reads only recent history. Pages with uncommitted
// changes are anchored at the work tree (freshness.Check). The hook
// writes nothing, not even a cache (echoes-conformance §22): it reads git
// echoes stale's verdict cache where that has a page at this HEAD
// (freshness.RecentReports) and computes the others. When
// freshness cannot be computed (not a Git work tree, no commit, an
// unreadable repository, a shallow boundary before a page's last change,
// or a page that cannot be read) nothing is added: the output is what it
// was before.
const (
	StalePages = 8
	staleWalk  = 5000
	staleHead  = "Memory freshness (context for you, not part of the card): these pages cite code that changed since they were written (`git echoes stale` lists the commits; `git echoes confirm PAGE` records a re-check):"
)

// StaleLines returns the lines of the checked pages that are drifted or
// missing, in the order RecentPages gives them (newest first); none when
// freshness cannot be computed.
func StaleLines(root string) []string {
	eng, err := gitvault.Open(gitvault.Options{Workspace: root})
	if err != nil {
		return nil
	}
	reps, err := freshness.RecentReports(eng, StalePages, staleWalk)
	if err != nil {
		return nil
	}
	var out []string
	for _, r := range reps {
		if r.Anchor.Shallow {
			continue // drift before the boundary cannot be seen: say nothing
		}
		if line := r.Line(); line != "" {
			out = append(out, "- "+line)
		}
	}
	return out
}

// addStale appends the freshness block to context: the head line, then
// whole lines while they fit in budget code points; lines that do not
// fit are counted in a last line. With no line, or no room for the head
// and one line, context is returned as it was.
func addStale(context string, lines []string, budget int) string {
	if len(lines) == 0 {
		return context
	}
	out := context + "\n\n" + staleHead
	if all := out + "\n" + strings.Join(lines, "\n"); runeLen(all) <= budget {
		return all
	}
	// The most lines k < len(lines) that fit with the count of the rest.
	used := runeLen(out)
	k := 0
	for k < len(lines)-1 && used+1+runeLen(lines[k])+1+runeLen(moreLine(len(lines)-k-1)) <= budget {
		used += 1 + runeLen(lines[k])
		k++
	}
	if k == 0 {
		return context
	}
	return out + "\n" + strings.Join(lines[:k], "\n") + "\n" + moreLine(len(lines)-k)
}

func moreLine(n int) string {
	if n == 1 {
		return "- 1 more page (git echoes stale)"
	}
	return "- " + strconv.Itoa(n) + " more pages (git echoes stale)"
}

// statusCard runs the read-only inspection with the echoes-conformance §22 time budget.
func statusCard(root string) string {
	done := make(chan string, 1)
	go func() {
		eng, err := gitvault.Open(gitvault.Options{Workspace: root})
		if err != nil {
			done <- UnavailableCard
			return
		}
		done <- strings.TrimSpace(health.Inspect(eng).Card())
	}()
	select {
	case card := <-done:
		return card
	case <-time.After(InspectTimeout):
		// The inspection goroutine only reads; it is abandoned, not killed.
		return UnavailableCard
	}
}

// fitCard appends card to prefix, dropping whole card lines from the end
// until the result has at most budget code points.
func fitCard(prefix, card string, budget int) string {
	lines := strings.Split(card, "\n")
	for len(lines) > 0 {
		s := prefix + strings.Join(lines, "\n")
		if runeLen(s) <= budget {
			return s
		}
		lines = lines[:len(lines)-1]
		for len(lines) > 0 && lines[len(lines)-1] == "" {
			lines = lines[:len(lines)-1]
		}
	}
	return truncateRunes(strings.TrimRight(prefix, "\n"), budget)
}

func runeLen(s string) int { return len([]rune(s)) }

func truncateRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n])
}

// Package hooks holds the agent and Git hook entry points of git-echoes.
package hooks

import (
	"io"
	"os"
	"strings"
	"time"

	"github.com/git-echoes/git-echoes/gitvault"
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
// writes, locks, initializes or migrates anything, and it never fails:
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
	context := plainContext
	if source != "compact" {
		context = fitCard(plainContext+cardContext+"\n\n", statusCard(ws.Root), CardBudget)
	} else {
		context = truncateRunes(context, PlainBudget)
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

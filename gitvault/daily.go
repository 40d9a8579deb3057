package gitvault

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/git-echoes/git-echoes/internal/fsx"
	"github.com/git-echoes/git-echoes/internal/pyjson"
	"github.com/git-echoes/git-echoes/internal/pytext"
)

// Daily entry kinds.
const (
	kindScratchpad = "scratchpad"
	kindSession    = "session"
)

// Now is the engine's clock; tests may replace it.
var Now = time.Now

// LocalTimestamp formats t as the reference's local ISO timestamp with a
// numeric offset (UTC prints +00:00, never Z).
func LocalTimestamp(t time.Time) string { return t.Local().Format("2006-01-02T15:04:05-07:00") }

// NormalizeAgent implements echoes-conformance §13.3 for a candidate already known to be a string.
func NormalizeAgent(name string) (string, error) {
	folded := pytext.Casefold(pytext.Strip(name))
	var b strings.Builder
	inRun := false
	for _, r := range folded {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') || r == '.' || r == '_' || r == '-' {
			b.WriteRune(r)
			inRun = false
			continue
		}
		if !inRun {
			b.WriteByte('-')
			inRun = true
		}
	}
	out := strings.Trim(b.String(), "-.")
	if out == "" {
		return "", Errorf("Payload agent must contain at least one letter or number.")
	}
	return pytext.Truncate(out, agentNameLimit), nil
}

// resolveAgent picks the payload agent when truthy, else the --agent flag,
// and normalizes it. A nil result means no agent.
func resolveAgent(payloadAgent pyjson.Value, hasPayloadAgent bool, flagAgent *string) (*string, error) {
	var candidate pyjson.Value
	switch {
	case hasPayloadAgent && pyjson.Truthy(payloadAgent):
		candidate = payloadAgent
	case flagAgent != nil:
		candidate = pyjson.Str(*flagAgent)
	default:
		return nil, nil
	}
	// These messages also report a bad --agent, which is not in a payload
	// (issue 11 item 9 asked to name the option): echoes-conformance §13.3 quotes them for
	// `--agent ""` and echoes-conformance §14.3 asks for "the same messages" when --agent is
	// validated early, so the bytes stay the reference's. Our own commands
	// (mcp) name the option around them.
	if candidate.Kind != pyjson.String || pytext.IsBlank(candidate.S) {
		return nil, Errorf("Payload agent must be a non-empty string when provided.")
	}
	name, err := NormalizeAgent(candidate.S)
	if err != nil {
		return nil, err
	}
	return &name, nil
}

// dailyEntry builds the path and content of a unique daily file (echoes-conformance §13).
func (ws *Workspace) dailyEntry(kind, text string, agent *string) (path string, content []byte, err error) {
	utc := Now().UTC()
	var rnd [4]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return "", nil, Wrapf(err, "Cannot generate a daily entry name: %s", err.Error())
	}
	stamp := fmt.Sprintf("%sT%s%06dZ", utc.Format("20060102"), utc.Format("150405"), utc.Nanosecond()/1000)
	name := stamp + "-" + kind
	if agent != nil {
		name += "-" + *agent
	}
	name += "-" + hex.EncodeToString(rnd[:]) + ".md"
	path = filepath.Join(ws.Daily, utc.Format("2006-01-02"), name)

	word := strings.ToUpper(kind[:1]) + kind[1:]
	var b strings.Builder
	b.WriteString("### " + word + " — " + LocalTimestamp(Now()) + "\n\n")
	if agent != nil {
		b.WriteString("Agent: `" + *agent + "`\n\n")
	}
	b.WriteString(pytext.Strip(text) + "\n")
	return path, []byte(b.String()), nil
}

// unfinishedSessionEntry finds the session entry an end killed before its
// state write left behind (issue 11 item 5), so that the retry reuses it
// instead of writing the summary twice. end writes its pages, the index, the
// session entry and then the state (echoes-conformance §15.10 steps 4-5), so
// such an entry is newer than the state's lastSave. It must be in the daily
// directory the new entry would go to (the UTC date of path), be a regular
// session file of the same agent, and hold exactly the new entry's text
// below its heading line (the heading carries the time). It returns "" when
// there is none. lastSave is the state's value: a string timestamp, or
// anything else when no end ever finished.
func unfinishedSessionEntry(path string, content []byte, agent *string, lastSave pyjson.Value) string {
	_, body, ok := strings.Cut(string(content), "\n")
	if !ok {
		return ""
	}
	var since time.Time
	if lastSave.Kind == pyjson.String {
		t, err := time.Parse(time.RFC3339, lastSave.S)
		if err != nil {
			return "" // unknown state: never guess
		}
		since = t
	}
	infix := "-" + kindSession + "-"
	if agent != nil {
		infix += *agent + "-"
	}
	dir := filepath.Dir(path)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	for _, de := range entries {
		name := de.Name()
		// <stamp>Z-session[-<agent>]-<8 hex>.md (echoes-conformance §13.1)
		i := strings.Index(name, "Z"+infix)
		if !de.Type().IsRegular() || i < 0 || len(name) != i+1+len(infix)+8+len(".md") || !strings.HasSuffix(name, ".md") {
			continue
		}
		data, err := fsx.ReadFile(filepath.Join(dir, name))
		if err != nil {
			continue
		}
		heading, rest, ok := strings.Cut(string(data), "\n")
		if !ok || rest != body || !strings.HasPrefix(heading, "### Session — ") {
			continue
		}
		t, err := time.Parse(time.RFC3339, strings.TrimPrefix(heading, "### Session — "))
		if err != nil || !t.After(since) {
			continue
		}
		return filepath.Join(dir, name)
	}
	return ""
}

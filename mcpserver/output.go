package mcpserver

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Results are bounded so that one call cannot flood an agent's context
// window: a result over the limit loses whole items (search hits, backlinks)
// or whole lines, never half of one, and says what was left out.

// DefaultMaxOutput is the default per-result limit in characters.
const DefaultMaxOutput = 60000

// MinMaxOutput and MaxMaxOutput bound --max-output. Below the minimum even
// a truncation note does not fit; the maximum keeps every result under the
// 1 MiB response bound of ecc-conformance §17.6 (4 UTF-8 bytes a character).
const (
	MinMaxOutput = 200
	MaxMaxOutput = 262144
)

// chars is the measure of the limit: Unicode code points, which is what
// "characters" means to a reader and roughly what a tokenizer sees.
func chars(s string) int { return utf8.RuneCountInString(s) }

// fitItems finds the largest k in [0, n] for which render(k) fits in limit
// characters, assuming longer prefixes render longer. ok is false when not
// even render(0) fits.
func fitItems(n, limit int, render func(k int) string) (text string, kept int, ok bool) {
	if s := render(n); chars(s) <= limit {
		return s, n, true
	}
	lo, hi := 0, n-1 // the answer lies in [lo, hi], if render(lo) fits
	best, bestK := "", -1
	for lo <= hi {
		mid := (lo + hi) / 2
		if s := render(mid); chars(s) <= limit {
			best, bestK = s, mid
			lo = mid + 1
		} else {
			hi = mid - 1
		}
	}
	if bestK < 0 {
		return "", 0, false
	}
	return best, bestK, true
}

// truncateLines keeps the longest prefix of whole lines of text that fits in
// limit characters together with a final note saying how many lines were
// left out. Text that fits is returned unchanged.
func truncateLines(text string, limit int) string {
	if chars(text) <= limit {
		return text
	}
	lines := strings.SplitAfter(text, "\n")
	total := len(lines)
	if lines[total-1] == "" { // text ends with a newline: no empty last line
		total--
		lines = lines[:total]
	}
	out, _, ok := fitItems(total, limit, func(k int) string {
		kept := strings.Join(lines[:k], "")
		if kept != "" && !strings.HasSuffix(kept, "\n") {
			kept += "\n"
		}
		return kept + truncationNote(k, total, limit)
	})
	if !ok { // the note alone is longer than the limit: say it anyway, cut
		note := truncationNote(0, total, limit)
		return string([]rune(note)[:min(limit, chars(note))])
	}
	return out
}

// truncationNote is the line appended to a cut result.
func truncationNote(shown, total, limit int) string {
	return fmt.Sprintf("[output truncated: %d of %d lines shown; the limit is %d characters per result (--max-output)]\n",
		shown, total, limit)
}

package memory

import (
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/git-echoes/git-echoes/internal/jsjson"
)

// secretPattern is one known credential shape. The regexes are the
// reference's, ported unchanged (RE2's \b is the same ASCII word boundary).
type secretPattern struct {
	Label string
	re    *regexp.Regexp
	// hint is a literal every match contains; texts without it skip the
	// regex, which matters because leading \b patterns have no literal
	// prefix for RE2 to accelerate on.
	hint func(string) bool
}

func has(lit string) func(string) bool {
	return func(s string) bool { return strings.Contains(s, lit) }
}

// hasSkDash is a case-insensitive "sk-" test without lowercasing the text.
func hasSkDash(s string) bool {
	for i := strings.IndexByte(s, '-'); i >= 0; {
		if i >= 2 && (s[i-1]|0x20) == 'k' && (s[i-2]|0x20) == 's' {
			return true
		}
		j := strings.IndexByte(s[i+1:], '-')
		if j < 0 {
			break
		}
		i += j + 1
	}
	return false
}

// hasGhToken reports whether s holds "gh" followed by one of "pors" and
// '_', which every GitHub token match contains; "gh" alone is in ordinary
// words ("enough", "though"), and the regex's leading \b gives RE2 no
// literal to skip ahead on.
func hasGhToken(s string) bool {
	for i := strings.Index(s, "gh"); i >= 0; {
		if i+3 < len(s) && strings.IndexByte("pors", s[i+2]) >= 0 && s[i+3] == '_' {
			return true
		}
		j := strings.Index(s[i+1:], "gh")
		if j < 0 {
			break
		}
		i += j + 1
	}
	return false
}

// secretSource is one credential shape as text: what SecretPatterns
// hands the gate's scanner, which compiles a family only when a text holds
// one of its keywords (issue 19: compiling these for every check --staged
// was part of what its secret rule cost before a page was read).
type secretSource struct {
	label, expr string
	hint        func(string) bool
}

func secretSources() []secretSource {
	return []secretSource{
		// JavaScript's non-Unicode "i" flag folds ASCII letters only; RE2's
		// (?i) would also fold U+017F into s and U+212A into k, so the case
		// folding is spelled out (the class already holds both cases).
		{"provider API key", `\b[sS][kK]-[A-Za-z0-9_-]{16,}\b`, hasSkDash},
		{"Stripe key", `\b(?:sk|rk)_live_[A-Za-z0-9]{16,}\b`, has("_live_")},
		{"npm token", `\bnpm_[A-Za-z0-9]{20,}\b`, has("npm_")},
		{"Hugging Face token", `\bhf_[A-Za-z0-9]{20,}\b`, has("hf_")},
		{"GitHub token", `\bgh[pors]_[A-Za-z0-9]{16,}\b`, hasGhToken},
		{"GitHub token", `\bgithub_pat_[A-Za-z0-9_]{16,}\b`, has("github_pat_")},
		{"Google API key", `\bAIza[A-Za-z0-9_-]{16,}\b`, has("AIza")},
		{"Slack token", `\bxox[baprs]-[A-Za-z0-9-]{10,}\b`, has("xox")},
		{"AWS access key", `\b(?:AKIA|ASIA)[A-Z0-9]{16}\b`, func(s string) bool { return strings.Contains(s, "AKIA") || strings.Contains(s, "ASIA") }},
		{"private key", `-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----`, has("-----BEGIN ")},
	}
}

// secretPatterns are compiled on first use, not at init (issue 19).
var secretPatterns = sync.OnceValue(func() []secretPattern {
	src := secretSources()
	out := make([]secretPattern, len(src))
	for i, p := range src {
		out[i] = secretPattern{Label: p.label, re: regexp.MustCompile(p.expr), hint: p.hint}
	}
	return out
})

// DetectSecrets returns the labels of every known secret shape found in
// text, de-duplicated, in pattern order.
func DetectSecrets(texts ...string) []string {
	var labels []string
	for _, p := range secretPatterns() {
		if containsLabel(labels, p.Label) {
			continue
		}
		for _, t := range texts {
			if p.hint(t) && p.re.MatchString(t) {
				labels = append(labels, p.Label)
				break
			}
		}
	}
	return labels
}

func containsLabel(labels []string, l string) bool {
	for _, x := range labels {
		if x == l {
			return true
		}
	}
	return false
}

// scanForm is what the reference scans: the compact JSON of the normalized
// memory in camelCase order, body included.
// It is MarshalCompact(m.Full()) written directly, without building the
// Object, into a builder sized for it (equality is tested).
func scanForm(m *Memory) string {
	var b strings.Builder
	n := 256 + len(m.Schema) + len(m.ID) + len(m.Title) + len(m.Kind) + len(m.Scope) + len(m.Trust) +
		len(m.Status) + len(m.SourceHarness) + len(m.CreatedAt) + len(m.UpdatedAt) + len(m.Body) + len(m.Body)/8
	for _, list := range [][]string{m.TargetHarnesses, m.Tags, m.Links} {
		for _, s := range list {
			n += len(s) + 3
		}
	}
	b.Grow(n)
	str := func(key, v string) {
		b.WriteString(key)
		jsjson.WriteString(&b, v)
	}
	arr := func(key string, list []string) {
		b.WriteString(key)
		b.WriteByte('[')
		for i, s := range list {
			if i > 0 {
				b.WriteByte(',')
			}
			jsjson.WriteString(&b, s)
		}
		b.WriteByte(']')
	}
	str(`{"schema":`, m.Schema)
	str(`,"id":`, m.ID)
	str(`,"title":`, m.Title)
	str(`,"kind":`, m.Kind)
	str(`,"scope":`, m.Scope)
	str(`,"trust":`, m.Trust)
	str(`,"status":`, m.Status)
	str(`,"sourceHarness":`, m.SourceHarness)
	arr(`,"targetHarnesses":`, m.TargetHarnesses)
	arr(`,"tags":`, m.Tags)
	arr(`,"links":`, m.Links)
	str(`,"createdAt":`, m.CreatedAt)
	str(`,"updatedAt":`, m.UpdatedAt)
	str(`,"body":`, m.Body)
	b.WriteByte('}')
	return b.String()
}

// secretsOnRead applies exactly the reference rule (JSON form only), so
// both implementations quarantine the same files.
func secretsOnRead(m *Memory) []string { return DetectSecrets(scanForm(m)) }

// hasSecretOnRead is len(secretsOnRead(m)) > 0 without building the JSON
// form (tested equal on generated memories). It is exact because:
//
//   - no pattern can match a '"' (their literals and classes hold only
//     letters, digits, '_', '-' and ' '), and every field value sits
//     between two structural quotes in the form, escaped quotes included;
//     so every match lies inside one escaped value or inside the fixed
//     key text, which matches no pattern;
//   - at a value's edges the neighbour is a structural '"', a non-word
//     character, as the start and end of text are for \b; so a pattern
//     matches inside the form exactly when it matches the escaped value
//     on its own;
//   - every match contains '-', '_' or 'I' (sk-, xox-, -----BEGIN; _live_,
//     npm_, hf_, gh?_, github_pat_; AIza, AKIA, ASIA), and escaping neither
//     adds nor removes those bytes, so values without them are skipped.
func hasSecretOnRead(m *Memory) bool {
	for _, v := range [...]string{m.Schema, m.ID, m.Title, m.Kind, m.Scope, m.Trust, m.Status,
		m.SourceHarness, m.CreatedAt, m.UpdatedAt, m.Body} {
		if valueHasSecret(v) {
			return true
		}
	}
	for _, list := range [...][]string{m.TargetHarnesses, m.Tags, m.Links} {
		for _, v := range list {
			if valueHasSecret(v) {
				return true
			}
		}
	}
	return false
}

// valueHasSecret tests one value as it appears, escaped, in the JSON form.
func valueHasSecret(v string) bool {
	if strings.IndexByte(v, '-') < 0 && strings.IndexByte(v, '_') < 0 && strings.IndexByte(v, 'I') < 0 {
		return false
	}
	if needsJSONEscape(v) {
		var b strings.Builder
		jsjson.WriteString(&b, v)
		e := b.String()
		v = e[1 : len(e)-1]
	}
	for _, p := range secretPatterns() {
		if p.hint(v) && p.re.MatchString(v) {
			return true
		}
	}
	return false
}

// needsJSONEscape reports whether writeJSONString would write anything
// but v between the quotes.
func needsJSONEscape(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < 0x20 || c == '"' || c == '\\' {
			return true
		}
	}
	return !utf8.ValidString(v)
}

// secretsOnWrite also scans every raw field value. JSON escapes a line
// break or tab before a token as \n, \r or \t, whose letter defeats \b, so
// the reference misses tokens at the start of a body line; scanning the raw
// values closes that gap. It only ever refuses more than the reference.
func secretsOnWrite(m *Memory) []string {
	texts := []string{scanForm(m), m.Title, m.SourceHarness, m.Body}
	texts = append(texts, m.TargetHarnesses...)
	texts = append(texts, m.Tags...)
	texts = append(texts, m.Links...)
	return DetectSecrets(texts...)
}

func secretError(labels []string) *Error {
	return newErr(CodeSecret, "Refusing to save memory containing a suspected secret ("+strings.Join(labels, ", ")+").")
}

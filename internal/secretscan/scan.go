package secretscan

import (
	"fmt"
	"math"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"
)

// Finding is one credential found: the gitleaks rule and the 1-based line
// where its match starts. It never holds the value, the match or the line.
type Finding struct {
	RuleID string
	Line   int
}

// Scanner applies a rule set with its allowlists. It is safe for
// concurrent use.
type Scanner struct {
	rules    []*rule
	global   []*allowlist
	keywords func() *keywordSet // built on the first scan: a scanner extended by WithRules never builds its base's
	byWord   [][]int            // keyword index -> rules that hold it
	words    [][]int            // rule index -> its keyword indexes
	always   []int              // rules without keywords
}

var (
	defaultOnce    sync.Once
	defaultScanner *Scanner
	defaultErr     error
)

// Default is the scanner of the compiled-in gitleaks configuration, built
// on first use (its regexes are compiled when a keyword first asks for
// them).
func Default() (*Scanner, error) {
	defaultOnce.Do(func() {
		p, err := buildConfig(defaultTables, "gitleaks default configuration "+GitleaksVersion, false)
		if err != nil {
			defaultErr = err
			return
		}
		defaultScanner = newScanner(p.rules, p.global)
	})
	return defaultScanner, defaultErr
}

func newScanner(rules []*rule, global []*allowlist) *Scanner {
	s := &Scanner{rules: rules, global: global, words: make([][]int, len(rules))}
	index := map[string]int{}
	var words []string
	for ri, r := range rules {
		if len(r.keywords) == 0 {
			s.always = append(s.always, ri)
			continue
		}
		for _, k := range r.keywords {
			i, ok := index[k]
			if !ok {
				i = len(words)
				index[k] = i
				words = append(words, k)
				s.byWord = append(s.byWord, nil)
			}
			s.byWord[i] = append(s.byWord[i], ri)
			s.words[ri] = append(s.words[ri], i)
		}
	}
	s.keywords = sync.OnceValue(func() *keywordSet { return newKeywordSet(words) })
	return s
}

// RuleIDs lists the rules' ids in configuration order.
func (s *Scanner) RuleIDs() []string {
	out := make([]string, len(s.rules))
	for i, r := range s.rules {
		out[i] = r.ID
	}
	return out
}

// WithTeamConfig returns a scanner that also honours the allowlists of a
// team's gitleaks configuration (.gitleaks.toml): its global allowlists
// ([allowlist] and [[allowlists]], including targetRules), and the
// allowlists of its [[rules]] entries whose id is a default rule's (how
// gitleaks extends a default rule). Its own new rules are not run, and
// [extend] is ignored: the default rule set is always the compiled-in one.
func (s *Scanner) WithTeamConfig(data string) (*Scanner, error) {
	p, err := parseConfig(data, ".gitleaks.toml", true)
	if err != nil {
		return nil, err
	}
	extra := map[string][]*allowlist{}
	for id, als := range p.targeted {
		extra[id] = append(extra[id], als...)
	}
	for _, r := range p.rules {
		extra[r.ID] = append(extra[r.ID], r.allowlists...)
	}
	rules := s.rules
	if len(extra) > 0 {
		rules = make([]*rule, len(s.rules))
		for i, r := range s.rules {
			if als := extra[r.ID]; len(als) > 0 {
				c := &rule{ID: r.ID, Description: r.Description, path: r.path, expr: r.expr, secretGroup: r.secretGroup,
					entropy: r.entropy, keywords: r.keywords, skipReport: r.skipReport, generic: r.generic}
				c.allowlists = append(append([]*allowlist(nil), r.allowlists...), als...)
				rules[i] = c
				continue
			}
			rules[i] = r
		}
	}
	out := &Scanner{rules: rules, global: append(append([]*allowlist(nil), s.global...), p.global...),
		keywords: s.keywords, byWord: s.byWord, words: s.words, always: s.always}
	return out, nil
}

// candidate is a finding before de-duplication, with what the filters
// need; it never leaves the package.
type candidate struct {
	rule   *rule
	line   int
	secret string
}

// Scan returns the findings of text, the content of the file at path
// (slash-separated; "" for none) in commit ("" outside a commit), in
// line order. An error means a rule could not run (a regex Go cannot
// compile): callers fail closed.
func (s *Scanner) Scan(path, commit, text string) ([]Finding, error) {
	if pathOrCommitAllowed(s.global, path, commit) {
		return nil, nil
	}
	sc := s.prepare(text)
	run := make([]bool, len(s.rules))
	for _, ri := range s.always {
		run[ri] = true
	}
	for wi, ok := range sc.found {
		if ok {
			for _, ri := range s.byWord[wi] {
				run[ri] = true
			}
		}
	}
	var lines *lineIndex
	var cands []candidate
	for ri, ok := range run {
		if !ok {
			continue
		}
		r := s.rules[ri]
		if r.skipReport || pathOrCommitAllowed(r.allowlists, path, commit) {
			continue
		}
		if r.path != nil {
			if !r.path.MatchString(path) {
				continue
			}
			if r.expr == "" { // a path-only rule: the file itself is the finding
				cands = append(cands, candidate{rule: r, line: 0})
				continue
			}
		}
		re, err := r.regex()
		if err != nil {
			return nil, err
		}
		for _, m := range s.matches(ri, re, text, sc) {
			match := strings.Trim(text[m[0]:m[1]], "\n")
			if match == "" {
				continue
			}
			if lines == nil {
				lines = newLineIndex(text)
			}
			// gitleaks' location: a match that starts on a newline counts
			// from the line after it; its "line" runs from the newline
			// before the match to the one after it (detect/location.go).
			start := m[0]
			end := m[0] + len(match)
			lineText := lines.around(text, start, end)
			if strings.Contains(lineText, "gitleaks:allow") {
				continue
			}
			secret := match
			if groups := re.FindStringSubmatch(match); len(groups) >= 2 {
				if r.secretGroup > 0 {
					if len(groups) <= r.secretGroup {
						continue
					}
					secret = groups[r.secretGroup]
				} else {
					for _, g := range groups[1:] {
						if g != "" {
							secret = g
							break
						}
					}
				}
			}
			if r.entropy != 0 && shannonEntropy(secret) <= r.entropy {
				continue
			}
			if findingAllowed(s.global, path, commit, secret, match, lineText) ||
				findingAllowed(r.allowlists, path, commit, secret, match, lineText) {
				continue
			}
			cands = append(cands, candidate{rule: r, line: lines.lineOf(text, start), secret: secret})
		}
	}
	return dedupe(cands), nil
}

// scanText is what a scan computes once per text.
type scanText struct {
	found   []bool // keyword index -> in strings.ToLower(text): its rules run
	lower   string // text with ASCII letters lowercased, offsets the same
	hits    []hit  // keyword occurrences in lower
	windows bool   // rules with a plan may run on windows (window.go)
}

func (s *Scanner) prepare(text string) *scanText {
	// Which rules run is gitleaks' choice: a keyword in
	// strings.ToLower(text). Where they run is ours (window.go): the hits
	// on the text lowercased byte for byte, which for ASCII is the same.
	kw := s.keywords()
	sc := &scanText{found: make([]bool, len(kw.keywords)), lower: asciiLower(text), windows: true}
	if isASCII(text) {
		sc.hits = kw.hits(sc.lower, nil)
		for _, h := range sc.hits {
			sc.found[h.word] = true
		}
		return sc
	}
	kw.match(strings.ToLower(text), sc.found)
	if sc.windows = !noWindows(text); sc.windows {
		sc.hits = kw.hits(sc.lower, nil)
	}
	return sc
}

// matches is re.FindAllStringIndex(text, -1), computed over the rule's
// line windows when it has a plan (window.go).
func (s *Scanner) matches(ri int, re *regexp.Regexp, text string, sc *scanText) [][]int {
	p := s.rules[ri].windowPlan()
	if p == nil || !sc.windows {
		return re.FindAllStringIndex(text, -1)
	}
	var out [][]int
	for _, w := range windowsFor(text, sc.lower, sc.hits, s.words[ri], s.keywords().keywords, p) {
		wre := re
		if w.to < len(text) && p.noEnd != nil {
			wre = p.noEnd
		}
		for _, m := range wre.FindAllStringIndex(text[w.from:w.to], -1) {
			out = append(out, []int{m[0] + w.from, m[1] + w.from})
		}
	}
	return out
}

// dedupe drops a generic rule's finding when a specific rule found a
// secret holding it on the same line (gitleaks detect/utils.go filter),
// then one finding per rule and line, in line order.
func dedupe(cands []candidate) []Finding {
	var out []Finding
	seen := map[string]bool{}
	for _, c := range cands {
		if c.rule.generic {
			better := false
			for _, o := range cands {
				if o.line == c.line && o.rule != c.rule && !o.rule.generic && strings.Contains(o.secret, c.secret) {
					better = true
					break
				}
			}
			if better {
				continue
			}
		}
		key := fmt.Sprintf("%d:%s", c.line, c.rule.ID)
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, Finding{RuleID: c.rule.ID, Line: c.line})
	}
	// Stable by line; within a line, configuration order (rules ran in it).
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].Line < out[j-1].Line; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// pathOrCommitAllowed is gitleaks' checkCommitOrPathAllowed: before any
// regex, a file is skipped when an allowlist's commits or paths hold it
// (OR), or when an AND allowlist without regexes or stopwords matches all
// of its commits and paths.
func pathOrCommitAllowed(als []*allowlist, path, commit string) bool {
	if path == "" && commit == "" {
		return false
	}
	for _, a := range als {
		commitOK := a.commitAllowed(commit)
		pathOK := a.pathAllowed(path)
		if a.and {
			if len(a.regexExprs) > 0 || len(a.stopwords) > 0 {
				continue
			}
			ok := true
			if len(a.commits) > 0 && !commitOK {
				ok = false
			}
			if len(a.pathExprs) > 0 && !pathOK {
				ok = false
			}
			if ok {
				return true
			}
			continue
		}
		if commitOK || pathOK {
			return true
		}
	}
	return false
}

// findingAllowed is gitleaks' checkFindingAllowed.
func findingAllowed(als []*allowlist, path, commit, secret, match, line string) bool {
	for _, a := range als {
		target := secret
		switch a.target {
		case "match":
			target = match
		case "line":
			target = line
		}
		regexOK := a.regexAllowed(target)
		stopOK := a.containsStopword(secret)
		if !a.and {
			if regexOK || stopOK {
				return true
			}
			continue
		}
		ok := true
		if len(a.commits) > 0 && !a.commitAllowed(commit) {
			ok = false
		}
		if len(a.pathExprs) > 0 && !a.pathAllowed(path) {
			ok = false
		}
		if len(a.regexExprs) > 0 && !regexOK {
			ok = false
		}
		if len(a.stopwords) > 0 && !stopOK {
			ok = false
		}
		if ok {
			return true
		}
	}
	return false
}

func (a *allowlist) commitAllowed(c string) bool {
	return c != "" && a.commits[strings.ToLower(c)]
}

func (a *allowlist) pathAllowed(p string) bool {
	if p == "" {
		return false
	}
	var lower string
	if a.pathPlan().pathBroken {
		return false
	}
	for i, e := range a.pathExprs {
		if lits := a.pathLits[i]; lits != nil {
			if lower == "" {
				lower = strings.ToLower(p)
			}
			if !containsAny(lower, lits) {
				continue // no match can be in a path without one of them
			}
		}
		re, err := a.pathRes[i].get(e)
		if err != nil {
			return false // fail closed, as pathBroken
		}
		if re.MatchString(p) {
			return true
		}
	}
	return false
}

func (a *allowlist) regexAllowed(s string) bool {
	if s == "" {
		return false
	}
	for _, re := range a.compiled().regexes {
		if re.MatchString(s) {
			return true
		}
	}
	return false
}

func (a *allowlist) containsStopword(s string) bool {
	if s == "" || len(a.stopwords) == 0 {
		return false
	}
	s = strings.ToLower(s)
	for _, w := range a.stopwords {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// shannonEntropy is gitleaks' (detect/utils.go): over runes, divided by
// the byte length.
func shannonEntropy(data string) float64 {
	if data == "" {
		return 0
	}
	counts := map[rune]int{}
	for _, c := range data {
		counts[c]++
	}
	inv := 1.0 / float64(len(data))
	e := 0.0
	for _, n := range counts {
		f := float64(n) * inv
		e -= f * math.Log2(f)
	}
	return e
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; 'A' <= c && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if c := b[j]; 'A' <= c && c <= 'Z' {
					b[j] = c + 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// lineIndex holds the offsets of the text's line breaks. Lines are
// numbered as the gate numbers them: universal newlines ("\r\n", "\r",
// "\n"), which for texts without a lone "\r" is gitleaks' numbering too.
type lineIndex struct {
	breaks []int // offset of the last byte of each line break
}

func newLineIndex(text string) *lineIndex {
	li := &lineIndex{}
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '\n':
			li.breaks = append(li.breaks, i)
		case '\r':
			if i+1 < len(text) && text[i+1] == '\n' {
				continue
			}
			li.breaks = append(li.breaks, i)
		}
	}
	return li
}

// lineOf is the 1-based line of offset start; a start on a "\n" belongs
// to the line after it (gitleaks' location).
func (li *lineIndex) lineOf(text string, start int) int {
	lo, hi := 0, len(li.breaks)
	for lo < hi { // first break at or after start
		mid := (lo + hi) / 2
		if li.breaks[mid] < start {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < len(li.breaks) && li.breaks[lo] == start && text[start] == '\n' {
		return lo + 2
	}
	return lo + 1
}

// around is gitleaks' finding.Line: from the newline before start to the
// first newline at or after end.
func (li *lineIndex) around(text string, start, end int) string {
	from := strings.LastIndexByte(text[:start], '\n')
	if from < 0 {
		from = 0
	}
	to := strings.IndexByte(text[end:], '\n')
	if to < 0 {
		to = len(text)
	} else {
		to += end
	}
	return text[from:to]
}

// ExtraRule is a rule a caller adds to the gitleaks set (the memory
// vault's own families, which the gate keeps reporting).
type ExtraRule struct {
	ID       string
	Regex    string
	Keywords []string // lowercased pre-filter; empty: the rule always runs
	// AllowlistsOf names a rule whose allowlists this one shares (a
	// documentation example gitleaks allowlists for its AWS rule is one
	// for the same family here too).
	AllowlistsOf string
	// Fallback marks a rule whose finding is dropped when a configuration
	// rule found a secret holding its match on the same line, as gitleaks
	// drops its generic rules' findings.
	Fallback bool
}

// WithRules returns a scanner that also runs the extra rules, after the
// configuration's. Their regexes compile on first use, as the compiled-in
// configuration's do (issue 19: the gate's ten families compiled in every
// check --staged, most of which no text asks for): a scan that needs one
// that does not compile returns its error, and Compile checks them all.
func (s *Scanner) WithRules(extra []ExtraRule) (*Scanner, error) {
	rules := append([]*rule(nil), s.rules...)
	byID := map[string]*rule{}
	for _, r := range s.rules {
		byID[r.ID] = r
	}
	for _, e := range extra {
		if byID[e.ID] != nil {
			return nil, fmt.Errorf("extra rule %q: duplicate id", e.ID)
		}
		r := &rule{ID: e.ID, expr: e.Regex, keywords: e.Keywords, generic: e.Fallback}
		if e.AllowlistsOf != "" {
			base := byID[e.AllowlistsOf]
			if base == nil {
				return nil, fmt.Errorf("extra rule %q: no rule %q", e.ID, e.AllowlistsOf)
			}
			r.allowlists = base.allowlists
		}
		byID[e.ID] = r
		rules = append(rules, r)
	}
	return newScanner(rules, s.global), nil
}

// Compile compiles now every expression a scan may compile later (the
// rules' regexes, their allowlists' and the global ones') and returns the
// first that does not compile. A scan needs none of it: this is for tests
// and callers that want a rule set's errors before any text asks.
func (s *Scanner) Compile() error {
	for _, r := range s.rules {
		if _, err := r.regex(); err != nil {
			return err
		}
		for _, a := range r.allowlists {
			if err := a.compiled().compileErr; err != nil {
				return fmt.Errorf("gitleaks rule %s allowlist: %w", r.ID, err)
			}
		}
	}
	for _, a := range s.global {
		if err := a.compiled().compileErr; err != nil {
			return fmt.Errorf("global allowlist: %w", err)
		}
	}
	return nil
}

// Package secretscan detects credentials in text with gitleaks' maintained
// rule set (issue 22). It knows nothing of vaults: it takes a path, an
// optional commit and a text, and returns rule ids and line numbers, never
// a value.
//
// The rules are gitleaks' published default configuration, compiled in
// verbatim (gitleaks.toml beside this file, from the gitleaks module named
// by GitleaksVersion; MIT licence in LICENSE.gitleaks) and applied with
// gitleaks' semantics (detect/detect.go of that module): the keyword
// pre-filter on the lowercased text, the rule's path, its regex, the secret
// group (or the first non-empty group), the entropy threshold, the global
// and per-rule allowlists (commits, paths, regexes on secret, match or
// line, stopwords, OR/AND conditions, targetRules), the "gitleaks:allow"
// line signature, and the generic-rule de-duplication. sync_test.go keeps
// the copy identical to the module's and compares our findings with the
// gitleaks detector's on the test corpus.
//
// Not done (documented in the README): the recursive decoding of base64,
// hex, percent and Unicode-escaped segments. gitleaks' command line does
// it by default (--max-decode-depth 5, cmd/root.go of v8.30.1); its
// library's detector, the referee here, does not (Detector.MaxDecodeDepth
// 0), and so neither do we. Multi-part rules ([[rules.required]]): the
// default configuration has none, and loading one that has them fails
// (the test would tell).
//
// Rules run on line windows around their keyword hits where that is
// provably the same as over the whole text (window.go).
package secretscan

import (
	_ "embed"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"
)

// GitleaksVersion is the gitleaks release whose config/gitleaks.toml is
// compiled in.
const GitleaksVersion = "v8.30.1"

//go:embed gitleaks.toml
var defaultConfig string

// tomlAllowlist is gitleaks' allowlist table ([allowlist], [[allowlists]],
// [[rules.allowlists]], and the older [rules.allowlist]).
type tomlAllowlist struct {
	Description string   `toml:"description"`
	Condition   string   `toml:"condition"`
	Commits     []string `toml:"commits"`
	Paths       []string `toml:"paths"`
	RegexTarget string   `toml:"regexTarget"`
	Regexes     []string `toml:"regexes"`
	StopWords   []string `toml:"stopwords"`
	TargetRules []string `toml:"targetRules"`
}

type tomlRule struct {
	ID          string           `toml:"id"`
	Description string           `toml:"description"`
	Path        string           `toml:"path"`
	Regex       string           `toml:"regex"`
	SecretGroup int              `toml:"secretGroup"`
	Entropy     float64          `toml:"entropy"`
	Keywords    []string         `toml:"keywords"`
	Tags        []string         `toml:"tags"`
	AllowList   *tomlAllowlist   `toml:"allowlist"`
	Allowlists  []*tomlAllowlist `toml:"allowlists"`
	Required    []toml.Primitive `toml:"required"`
	SkipReport  bool             `toml:"skipReport"`
}

type tomlConfig struct {
	Title      string           `toml:"title"`
	MinVersion string           `toml:"minVersion"`
	Extend     toml.Primitive   `toml:"extend"`
	Rules      []tomlRule       `toml:"rules"`
	AllowList  *tomlAllowlist   `toml:"allowlist"`
	Allowlists []*tomlAllowlist `toml:"allowlists"`
}

// allowlist is one compiled allowlist (gitleaks config/allowlist.go).
type allowlist struct {
	and       bool   // condition = "AND"
	target    string // "secret" (default), "match" or "line"
	commits   map[string]bool
	stopwords []string // lowercased
	// The path and regex expressions, compiled on first use for the
	// compiled-in configuration (most of its allowlists belong to rules a
	// text never triggers; TestDefaultAllowlistsCompile compiles them all),
	// up front for a team's configuration, whose errors are reported.
	pathExprs, regexExprs []string
	once                  sync.Once
	regexes               []*regexp.Regexp
	compileErr            error
	// The path patterns one by one (pathAllowed): every file of a gate
	// run asks the global allowlist's 28, and a path without one of a
	// pattern's required literals never needs it compiled (issue 19:
	// compiling them all was the largest part of a small check --staged).
	pathOnce   sync.Once
	pathLits   [][]string // per path pattern, literals one of which its matches hold (nil: none known)
	pathRes    []lazyRegexp
	pathBroken bool // a path pattern does not parse: the paths allow nothing
}

// lazyRegexp is one expression compiled on first use.
type lazyRegexp struct {
	once sync.Once
	re   *regexp.Regexp
	err  error
}

func (l *lazyRegexp) get(expr string) (*regexp.Regexp, error) {
	l.once.Do(func() { l.re, l.err = regexp.Compile(expr) })
	return l.re, l.err
}

// compiled compiles the expressions once: the regexes, and the path
// patterns through the slots pathAllowed compiles them in. An expression
// that does not compile leaves the allowlist allowing nothing by it (fail
// closed).
func (a *allowlist) compiled() *allowlist {
	a.once.Do(func() {
		a.pathPlan()
		for i, e := range a.pathExprs {
			if _, err := a.pathRes[i].get(e); err != nil {
				a.compileErr = fmt.Errorf("paths: %w", err)
				return
			}
		}
		if a.regexes, a.compileErr = compileAll(a.regexExprs, "regexes"); a.compileErr != nil {
			a.regexes = nil
		}
	})
	return a
}

// pathPlan parses the path patterns once, for their literals. A pattern
// that does not parse is one that does not compile (regexp.Compile is
// syntax.Parse, then a compilation of the parsed form that does not fail
// on what Parse accepts): the paths then allow nothing, before any
// pattern is tried. (Only the compiled-in configuration compiles lazily,
// and TestDefaultAllowlistsCompile compiles all of it; a team's is
// compiled up front, and refused with its error.)
func (a *allowlist) pathPlan() *allowlist {
	a.pathOnce.Do(func() {
		a.pathRes = make([]lazyRegexp, len(a.pathExprs))
		for _, e := range a.pathExprs {
			lits, err := requiredLiterals(e)
			if err != nil {
				a.pathBroken = true
			}
			a.pathLits = append(a.pathLits, lits)
		}
	})
	return a
}

// rule is one compiled rule. Its regex is compiled on first use: a
// keyword hit is what makes a rule run, and most texts hit few rules, so a
// gate run pays for the regexes it needs, not for all of them.
type rule struct {
	ID          string
	Description string
	path        *regexp.Regexp
	expr        string
	once        sync.Once
	re          *regexp.Regexp
	reErr       error
	secretGroup int
	entropy     float64
	keywords    []string // lowercased
	allowlists  []*allowlist
	skipReport  bool
	generic     bool // id contains "generic": de-duplicated (detect/utils.go filter)
	planOnce    sync.Once
	plan        *windowPlan // nil: the regex runs over the whole text (window.go)
}

// windowPlan is the rule's line-window plan (window.go), built on first
// use like its regex.
func (r *rule) windowPlan() *windowPlan {
	r.planOnce.Do(func() { r.plan = planFor(r.expr, r.keywords) })
	return r.plan
}

func (r *rule) regex() (*regexp.Regexp, error) {
	r.once.Do(func() {
		if r.expr == "" {
			return
		}
		r.re, r.reErr = regexp.Compile(r.expr)
		if r.reErr != nil {
			r.reErr = fmt.Errorf("gitleaks rule %s: %w", r.ID, r.reErr)
		}
	})
	return r.re, r.reErr
}

func compileAll(exprs []string, what string) ([]*regexp.Regexp, error) {
	out := make([]*regexp.Regexp, 0, len(exprs))
	for _, e := range exprs {
		re, err := regexp.Compile(e)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		out = append(out, re)
	}
	return out, nil
}

func compileAllowlist(a *tomlAllowlist, what string, eager bool) (*allowlist, error) {
	out := &allowlist{target: a.RegexTarget}
	switch strings.ToUpper(a.Condition) {
	case "", "OR":
	case "AND", "&&":
		out.and = true
	default:
		return nil, fmt.Errorf("%s: unknown allowlist condition %q", what, a.Condition)
	}
	switch a.RegexTarget {
	case "", "secret", "match", "line":
	default:
		return nil, fmt.Errorf("%s: unknown allowlist regexTarget %q", what, a.RegexTarget)
	}
	if len(a.Commits) == 0 && len(a.Paths) == 0 && len(a.Regexes) == 0 && len(a.StopWords) == 0 {
		return nil, fmt.Errorf("%s: allowlist must hold commits, paths, regexes or stopwords", what)
	}
	if len(a.Commits) > 0 {
		out.commits = make(map[string]bool, len(a.Commits))
		for _, c := range a.Commits {
			out.commits[strings.ToLower(c)] = true
		}
	}
	out.pathExprs, out.regexExprs = a.Paths, a.Regexes
	if eager {
		if err := out.compiled().compileErr; err != nil {
			return nil, fmt.Errorf("%s %w", what, err)
		}
	}
	for _, w := range a.StopWords {
		out.stopwords = append(out.stopwords, strings.ToLower(w))
	}
	return out, nil
}

// parsed is a configuration file turned into rules and allowlists.
type parsed struct {
	rules    []*rule
	global   []*allowlist
	targeted map[string][]*allowlist // [[allowlists]] with targetRules, by rule id
	hasRules bool
}

// parseConfig reads a configuration; team marks a team's .gitleaks.toml,
// whose [[rules]] may name a default rule by id alone to extend its
// allowlists.
func parseConfig(data, what string, team bool) (*parsed, error) {
	var tc tomlConfig
	if _, err := toml.Decode(data, &tc); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return buildConfig(&tc, what, team)
}

// buildConfig compiles a decoded configuration: the default one comes
// decoded already (defaultTables, default_tables.go), so no process decodes
// the 98 KB of TOML (issue 19 part 0: it was most of what check --staged
// paid for its secret rule).
func buildConfig(tc *tomlConfig, what string, team bool) (*parsed, error) {
	p := &parsed{targeted: map[string][]*allowlist{}, hasRules: len(tc.Rules) > 0}
	globals := tc.Allowlists
	if tc.AllowList != nil {
		globals = append([]*tomlAllowlist{tc.AllowList}, globals...)
	}
	for i, a := range globals {
		al, err := compileAllowlist(a, fmt.Sprintf("%s: global allowlist %d", what, i+1), team)
		if err != nil {
			return nil, err
		}
		if len(a.TargetRules) > 0 {
			for _, id := range a.TargetRules {
				p.targeted[id] = append(p.targeted[id], al)
			}
			continue
		}
		p.global = append(p.global, al)
	}
	seen := map[string]bool{}
	for _, tr := range tc.Rules {
		w := fmt.Sprintf("%s: rule %q", what, tr.ID)
		if tr.ID == "" {
			return nil, fmt.Errorf("%s: a rule has no id", what)
		}
		if seen[tr.ID] {
			return nil, fmt.Errorf("%s: duplicate rule", w)
		}
		seen[tr.ID] = true
		if len(tr.Required) > 0 {
			return nil, fmt.Errorf("%s: multi-part rules (required) are not supported", w)
		}
		if tr.Regex == "" && tr.Path == "" && !team {
			return nil, fmt.Errorf("%s: neither regex nor path", w)
		}
		r := &rule{ID: tr.ID, Description: tr.Description, expr: tr.Regex, secretGroup: tr.SecretGroup,
			entropy: tr.Entropy, skipReport: tr.SkipReport, generic: strings.Contains(strings.ToLower(tr.ID), "generic")}
		if tr.Path != "" {
			re, err := regexp.Compile(tr.Path)
			if err != nil {
				return nil, fmt.Errorf("%s path: %w", w, err)
			}
			r.path = re
		}
		for _, k := range tr.Keywords {
			r.keywords = append(r.keywords, strings.ToLower(k))
		}
		rals := tr.Allowlists
		if tr.AllowList != nil {
			rals = append([]*tomlAllowlist{tr.AllowList}, rals...)
		}
		for i, a := range rals {
			al, err := compileAllowlist(a, fmt.Sprintf("%s allowlist %d", w, i+1), team)
			if err != nil {
				return nil, err
			}
			r.allowlists = append(r.allowlists, al)
		}
		p.rules = append(p.rules, r)
	}
	for id, als := range p.targeted {
		for _, r := range p.rules {
			if r.ID == id {
				r.allowlists = append(r.allowlists, als...)
				delete(p.targeted, id)
				break
			}
		}
	}
	return p, nil
}

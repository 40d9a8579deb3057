package secretscan

import (
	"math/rand/v2"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/internal/secretscan/secrettest"
)

// adversarialTexts are texts built to break the line windows (window.go):
// keywords at a window's first and last line, matches that span the most
// line feeds a rule allows and one more, CRLF and lone CR line ends,
// matches ending at the end of the text ($) and just before it, long
// lines, keywords in any case, runes a case-insensitive regex folds to
// ASCII letters (U+212A, U+017F) and others that lowercase to them
// (U+0130), and seeded random mixtures of all of them. The same on every
// call.
func adversarialTexts(t testing.TB) []string {
	s := mustDefault(t)
	r := rand.New(rand.NewPCG(22, 9))
	secretish := func() string {
		const a = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_.-"
		b := make([]byte, 8+r.IntN(50))
		for i := range b {
			b[i] = a[r.IntN(len(a))]
		}
		return string(b)
	}
	cases := secrettest.Cases()
	var out []string
	// Structured: a keyword, k line ends, an operator, m line ends, a value,
	// then the end of the text or a terminator, with every line end.
	for _, nl := range []string{"\n", "\r\n", "\r"} {
		for k := 0; k <= 4; k++ {
			for m := 0; m <= 6; m++ {
				v := secretish()
				body := "api_key" + strings.Repeat(nl, k) + "=" + strings.Repeat(nl, m) + v
				out = append(out, body, body+nl, "x"+nl+body+nl+"y", strings.Repeat("filler line"+nl, 9)+body,
					body+nl+strings.Repeat("filler"+nl, 10)+"token: "+secretish())
			}
		}
	}
	// A keyword on the first and the last line of a window, and hits
	// exactly maxNL lines apart (the generic rule's 9 and one more).
	for _, gap := range []int{8, 9, 10, 11, 18, 19, 20} {
		out = append(out, "password = "+secretish()+strings.Repeat("\n", gap)+"secret: '"+secretish()+"'",
			"key"+strings.Repeat("\n", gap)+"token ="+strings.Repeat("\n", 3)+secretish()+"\n")
	}
	// Long lines, a match at the end of the text, at its start.
	long := strings.Repeat("word ", 2000)
	out = append(out, long+"token = "+secretish(), "token = "+secretish()+long, long+"\n"+cases[0].Text+"\n"+long,
		"secret="+secretish(), "Secret=\""+secretish()+"\"", strings.Repeat("key=", 500)+secretish())
	// Case and Unicode: folded runes, lowercasing runes, accents.
	for _, u := range []string{"\u212Aey", "ſecret", "İ", "é", "—", "\u212A", "TOKEN", "ToKeN", "S.", "hvs."} {
		out = append(out, u+" = "+secretish(), "api "+u+": "+secretish()+"\n", "x\n"+u+"\ntoken = "+secretish())
	}
	// Random mixtures.
	pieces := []func() string{
		func() string { return s.keywords().keywords[r.IntN(len(s.keywords().keywords))] },
		func() string { return strings.ToUpper(s.keywords().keywords[r.IntN(len(s.keywords().keywords))]) },
		func() string {
			return []string{"=", ":", " = ", ": ", "=>", "||", ",", "?=", ":=", "::=", ">", "\"", "'", "`", ";", "\\n"}[r.IntN(16)]
		},
		secretish,
		func() string { return cases[r.IntN(len(cases))].Secret },
		func() string {
			return []string{" ", "\t", "\n", "\r\n", "\r", "\n\n\n", strings.Repeat("\n", 8+r.IntN(4))}[r.IntN(7)]
		},
		func() string {
			return []string{"the", "rotate", "s.", "deploys.", "_", "-", ".", "kind: Secret", "data:", "é", "\u212A", "ſ", "İ"}[r.IntN(13)]
		},
	}
	for range 400 {
		var b strings.Builder
		for range 3 + r.IntN(60) {
			b.WriteString(pieces[r.IntN(len(pieces))]())
		}
		out = append(out, b.String())
	}
	return out
}

// TestWindowedMatchesEqualWholeText: for every rule with a plan and every
// adversarial and corpus text holding one of its keywords, the matches on
// the windows are the regex's matches on the whole text, offset for
// offset. This is the proof of window.go checked.
func TestWindowedMatchesEqualWholeText(t *testing.T) {
	s := mustDefault(t)
	texts := adversarialTexts(t)
	for _, c := range secrettest.Cases() {
		texts = append(texts, c.Text, "x\n"+c.Text+"\ny")
	}
	texts = append(texts, secrettest.NearMisses()...)
	planned := 0
	for _, r := range s.rules {
		if r.windowPlan() != nil {
			planned++
		}
	}
	// Most of gitleaks' rules follow its template and get a plan; if an
	// upgrade changes that, speed is lost, not correctness: this says so.
	if planned < 150 {
		t.Errorf("%d rules with a window plan, want at least 150", planned)
	}
	matched := 0
	for _, text := range texts {
		sc := s.prepare(text)
		for ri, r := range s.rules {
			p := r.windowPlan()
			if p == nil || r.expr == "" {
				continue
			}
			mine := false
			for _, w := range s.words[ri] {
				mine = mine || sc.found[w]
			}
			if !mine {
				continue
			}
			re, err := r.regex()
			if err != nil {
				t.Fatal(err)
			}
			want := re.FindAllStringIndex(text, -1)
			got := s.matches(ri, re, text, sc)
			if len(want) > 0 {
				matched++
			}
			if !slices.EqualFunc(got, want, slices.Equal) {
				t.Errorf("rule %s on %q:\n got %v\nwant %v", r.ID, text, got, want)
			}
		}
	}
	if matched < 300 {
		t.Errorf("only %d rule and text pairs with matches: the texts do not test the windows", matched)
	}
}

func TestPlanAnalysis(t *testing.T) {
	parse := func(e string) *syntax.Regexp {
		re, err := syntax.Parse(e, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		return re
	}
	for _, tc := range []struct {
		expr string
		nl   int
	}{
		{`abc`, 0}, {`a\nb`, 1}, {`[\s]{0,3}x[\s'"]{0,5}`, 8}, {`a.b`, 0}, {`(?s)a.b`, 1},
		{`a\s*b`, -1}, {`a[^"]+b`, -1}, {`(?:x|\n\n)`, 2}, {`a\S*b`, 0},
	} {
		if got := maxNewlines(parse(tc.expr)); got != tc.nl {
			t.Errorf("maxNewlines(%s) = %d, want %d", tc.expr, got, tc.nl)
		}
	}
	for _, tc := range []struct {
		expr     string
		keywords []string
		plan     bool
	}{
		{`(?i)[\w.-]{0,50}?(?:access|key)(?:[ \t\w.-]{0,20})[\s'"]{0,3}(?:=|:)([\w.=-]{10,150})(?:[\x60'"\s;]|$)`, []string{"access", "key"}, true},
		{`(?i)[\w.-]{0,50}?(?:access|key)x`, []string{"access"}, false}, // "key" is no keyword
		{`^key=\w+`, []string{"key"}, false},      // begin of text
		{`key\s*=\s*\w+`, []string{"key"}, false}, // unbounded line feeds
		{`\b(hvs\.\w{9}|s\.\w{4})\b`, []string{"hvs.", "s."}, true},
		{`\bx(hvs\.\w{9}|s\.\w{4})`, []string{"hvs.", "s."}, true},
		{`\w{3}key`, []string{"key"}, true},        // the second element begins with the keyword
		{`(?:ke|ky)y=\w+`, []string{"key"}, false}, // "kyy" does not begin with a keyword
		{`(?i)tok(?:en)?=\w+`, []string{"tok"}, true},
	} {
		if got := planFor(tc.expr, tc.keywords) != nil; got != tc.plan {
			t.Errorf("planFor(%s, %v) = %v, want %v", tc.expr, tc.keywords, got, tc.plan)
		}
	}
	if p := planFor(`(?i)key[ \t]{0,3}(?:=|:)\s{0,2}(\w{8,})(?:\s|$)`, []string{"key"}); p == nil || p.noEnd == nil || p.maxNL != 3 {
		t.Errorf("plan %+v: want noEnd and maxNL 3", p)
	}
}

// TestHeadCheck: maybeAt says no only where the regex cannot match.
func TestHeadCheck(t *testing.T) {
	p := planFor(`(?i)[\w.-]{0,50}?(?:key|token)(?:[ \t\w.-]{0,20})[\s'"]{0,3}(?:=|:{1,3}=|:|,)[\x60'"\s=]{0,5}([\w.=-]{10,150})(?:[\x60'"\s;]|$)`,
		[]string{"key", "token"})
	if p == nil {
		t.Fatal("no plan")
	}
	for _, tc := range []struct {
		text string
		at   int
		want bool
	}{
		{"key = abcdefghijkl", 0, true},
		{"TOKEN:\n\n'abcdefghijkl'", 0, true},
		{"the key rotates with the token.", 4, false},
		{"key rotates, alongsidexx", 0, true},
		{"key rotates with the token, alongsidexx", 0, false},         // the comma is 24 runes on
		{"key" + strings.Repeat(" ", 23) + "= abcdefghijkl", 0, true}, // 20 + 3 blanks
		{"key" + strings.Repeat(" ", 24) + "= abcdefghijkl", 0, false},
		{"key = short", 0, false},
		{"Kéy = abcdefghijkl", 0, false},
	} {
		h := &headSim{text: tc.text, lower: asciiLower(tc.text)}
		if got := h.maybeAt(p.head, tc.at); got != tc.want {
			t.Errorf("maybeAt(%q, %d) = %v, want %v", tc.text, tc.at, got, tc.want)
		}
	}
}

// TestRequiredLiterals: the path pre-filter's literals, and that with it
// every allowlist path pattern of the configuration decides as the regex
// alone on paths built to pass and to fail each.
func TestRequiredLiterals(t *testing.T) {
	for _, tc := range []struct {
		expr string
		want []string
	}{
		{`(?i)\.(?:bmp|gif|jpe?g|png)$`, []string{"bmp", "gif", "jp", "png"}},
		{`(?:^|/)bower_components(?:/.*)?$`, []string{"bower_components"}},
		{`(?i)(?:^|/)vendor/x$`, []string{"vendor/x"}},
		{`(?i)\.svg$`, nil},          // ".svg" holds an s, and U+017F folds to it
		{`\.svg$`, []string{".svg"}}, // case-sensitive: no folding
		{`a*`, nil},
		{`(?:x|y*)z?`, nil},
	} {
		if got, err := requiredLiterals(tc.expr); err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("requiredLiterals(%s) = %q, want %q", tc.expr, got, tc.want)
		}
	}
	s := mustDefault(t)
	paths := []string{"EchoesVault/pages/a.md", "x/node_modules/y.js", "A/VENDOR/ruby/x", "lib64/python3.11/site.py",
		"img.PNG", "img.ſvg", "img.ſVG", "go.sum", "yarn.lock", "bootstrap.min.js", "p/.git", "foo-1.2.dist-info/x",
		"Keys/x", "Database.refactorlog", "a/.mvn/wrapper/MavenWrapperDownloader.java", "venv/lib/x", "ENV/LIB64/y"}
	for _, a := range s.global {
		for i, e := range a.pathPlan().pathExprs {
			re := regexp.MustCompile(e)
			for _, p := range paths {
				if re.MatchString(p) && a.pathLits[i] != nil && !containsAny(strings.ToLower(p), a.pathLits[i]) {
					t.Errorf("%s matches %q, but the pre-filter %q skips it", re, p, a.pathLits[i])
				}
			}
		}
	}
}

// TestPathPatternsLazy: pathAllowed compiles a path pattern only when a
// path holds one of its literals, and answers as every pattern compiled
// would; a pattern that does not compile makes the paths allow nothing,
// even a path an earlier pattern matches (fail closed, as compiled).
func TestPathPatternsLazy(t *testing.T) {
	p, err := buildConfig(defaultTables, "gitleaks default configuration", false)
	if err != nil {
		t.Fatal(err)
	}
	g := p.global[0]
	if g.pathAllowed("EchoesVault/pages/a.md") {
		t.Fatal("a vault page allowed by the global allowlist")
	}
	compiled := 0
	for i := range g.pathRes {
		if g.pathRes[i].re != nil {
			compiled++
		}
	}
	if compiled == 0 || compiled >= len(g.pathExprs)/2 {
		t.Errorf("a vault page compiled %d of %d path patterns", compiled, len(g.pathExprs))
	}
	paths := []string{"EchoesVault/pages/a.md", "x/node_modules/y.js", "A/VENDOR/ruby/x", "lib64/python3.11/site.py",
		"img.PNG", "img.ſvg", "go.sum", "yarn.lock", "bootstrap.min.js", "p/.git", "foo-1.2.dist-info/x", "gitleaks.toml",
		"Database.refactorlog", "a/.mvn/wrapper/MavenWrapperDownloader.java", "venv/lib/x", "ENV/LIB64/y", "a/b.DLL", "README.md"}
	for _, path := range paths {
		want := false
		for _, e := range g.pathExprs {
			want = want || regexp.MustCompile(e).MatchString(path)
		}
		if got := g.pathAllowed(path); got != want {
			t.Errorf("pathAllowed(%q) = %v, every pattern compiled says %v", path, got, want)
		}
	}
	broken := &allowlist{pathExprs: []string{`\.md$`, `(`}}
	if broken.pathAllowed("a.md") || !broken.pathPlan().pathBroken {
		t.Error("an allowlist with a pattern that does not compile allowed a path")
	}
	if broken.compiled().compileErr == nil {
		t.Error("compiled accepted the same pattern")
	}
}

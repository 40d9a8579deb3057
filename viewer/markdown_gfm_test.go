package viewer

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// goldmarkExtension is the viewer's renderer as it was configured before
// issue 19 part 0: goldmark/extension's Table, Strikethrough and TaskList
// with the viewer's own parser, transformer and safe renderer. It is the
// referee for markdown_gfm.go (a test-only import: the binary no longer
// links goldmark/extension, so no process pays its package init).
func goldmarkExtension() goldmark.Markdown {
	return goldmark.New(
		goldmark.WithExtensions(extension.Table, extension.Strikethrough, extension.TaskList),
		goldmark.WithParserOptions(
			parser.WithInlineParsers(util.Prioritized(wikilinkParser{}, 100)),
			parser.WithASTTransformers(util.Prioritized(linkTransformer{}, 100)),
		),
		goldmark.WithRendererOptions(
			renderer.WithNodeRenderers(util.Prioritized(safeRenderer{}, 100)),
		),
	)
}

func renderWith(t testing.TB, md goldmark.Markdown, src string) string {
	pc := parser.NewContext()
	pc.Set(resolverKey, fakeResolver{})
	source := []byte(src)
	doc := md.Parser().Parse(text.NewReader(source), parser.WithContext(pc))
	var b bytes.Buffer
	if err := md.Renderer().Render(&b, source, doc); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// gfmCorpus covers GFM sections 4.10 tables, 6.5 strikethrough and 5.3 task
// list items, the spec's examples among them, and how they meet the
// viewer's wikilinks, links and raw HTML.
var gfmCorpus = []string{
	// tables
	"| a | b |\n|---|---|\n| 1 | 2 |",
	"| foo | bar |\n| --- | --- |\n| baz | bim |",
	"| abc | defghi |\n:-: | -----------:\nbar | baz",
	"| f\\|oo  |\n| ------ |\n| b `\\|` az |\n| b **\\|** im |",
	"| abc | def |\n| --- | --- |\n| bar | baz |\n> bar",
	"| abc | def |\n| --- | --- |\n| bar | baz |\nbar\n\nbar",
	"| abc | def |\n| --- |\n| bar |",
	"| abc | def |\n| --- | --- |\n| bar |\n| bar | baz | boo |",
	"| abc | def |\n| --- | --- |",
	"para line\n| a | b |\n| :-- | --: |\n| x | y |",
	"one\ntwo\n| a |\n| - |\n| x |",
	"a | b\n--|--\nc | d",
	"|a|\n|-|",
	"| a |\n|:-:|\n|`x\\|y`|",
	"| `a\\|b\\|c` | d |\n|---|---|\n| `\\|` | `e\\|` |",
	"| a |\n| --- |\n| [[known]] | [[missing]] |",
	"| a | b |\n| --- | --- |\n| [k](known.md) | <b>x</b> |",
	"| a |\n|----\n| b",
	"   | a |\n   | - |\n   | b |",
	"    | a |\n    | - |",
	"| a |\n    | - |",
	"| a |\n|---|---|",
	"- | a |\n  | - |\n  | b |",
	"> | a |\n> | - |\n> | b |",
	"| a |\n| - |\n\n| c |\n| - |",
	"Setext\n---",
	"| a |\n---",
	"| a |\n| -- |\n| x\n| y |\nz",
	"| *a* | ~~b~~ |\n| - | - |\n| `c` | [ ] d |",
	"|   |\n| - |\n|   |",
	"| a |\n| :- |\n|\\|\\||",
	"x\n|-|\n|y|",
	"| a | b |\n|:---:|:--|\n| 1 |",
	"| a |\n| -: |\n| \t1\t |",
	"|a|b|\n|-|-|\n|\\\\|x|",
	"| a |\n|\f-|\n| b |",
	"| a |\n| \v- |\n| b |",
	// strikethrough
	"~~Hi~~ Hello, ~there~ world!",
	"This ~~has a\n\nnew paragraph~~.",
	"This will ~~~not~~~ strike.",
	"~a~~ ~~b~ ~~~c~~",
	"a~b~c and ~~ spaced ~~ and ~~x~~y",
	"**~~both~~** and ~~**both**~~ and *~a~*",
	"~~[[known]]~~ ~~`code`~~",
	"\\~~escaped~~",
	"~~unclosed",
	"~",
	"~~",
	"foo~~bar~~baz",
	"~~a~b~~",
	// task lists
	"- [ ] foo\n- [x] bar",
	"- [x] foo\n  - [ ] bar\n  - [x] baz\n- [ ] bim",
	"- [X] upper\n- [\t] tab\n- [ ]no space\n- [ ]   many",
	"1. [ ] ordered\n2. [x] done",
	"- text [ ] not first\n- [y] not a box\n- [] empty\n- [  ] two spaces",
	"- para\n\n  [ ] second paragraph",
	"[ ] not in a list",
	"- [ ] [[known]] and [k](known.md)\n- [x] ~~done~~",
	"- [ ]",
	"- [x]\n- [ ]\n",
	"* [ ] star\n+ [x] plus",
	"- > [ ] quoted",
	"- [ ] a\n\n- [x] loose",
	// mixed and hostile
	hostileBody,
	"# T\n\n| k | v |\n|---|---|\n| ttl | 15m |\n\nRelative link to [tokens](session-tokens.md).",
	"<table><tr><td>raw</td></tr></table>\n\n| a |\n| - |\n| <script>x</script> |",
	"| <img src=x onerror=y> |\n| - |\n| ~~<b>~~ |",
	"```\n| a |\n| - |\n```",
	"    | a |\n    | - |\n\n~~~\n~~x~~\n~~~",
}

// TestGFMMatchesGoldmarkExtension: for every corpus input, and every
// fixture and seed of the fuzz corpus, the viewer's renderer writes the
// bytes goldmark/extension wrote.
func TestGFMMatchesGoldmarkExtension(t *testing.T) {
	ref := goldmarkExtension()
	inputs := append([]string{}, gfmCorpus...)
	for _, p := range fixturePages {
		inputs = append(inputs, p)
	}
	for _, dir := range []string{"FuzzGFMMatchesGoldmark", "FuzzRenderMarkdown"} {
		files, _ := filepath.Glob(filepath.Join("testdata", "fuzz", dir, "*"))
		for _, f := range files {
			if s, ok := readSeed(t, f); ok {
				inputs = append(inputs, s)
			}
		}
	}
	for _, in := range inputs {
		want := renderWith(t, ref, in)
		got, err := renderMarkdown(in, fakeResolver{})
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("%q:\n got %q\nwant %q", in, got, want)
		}
	}
}

// TestGFMRender pins the HTML of each extension, so a change in the
// referee (a goldmark upgrade) cannot move both sides unseen.
func TestGFMRender(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"| a | b |\n|:--|--:|\n| 1 |", "<table>\n<thead>\n<tr>\n<th style=\"text-align:left\">a</th>\n<th style=\"text-align:right\">b</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n<td style=\"text-align:left\">1</td>\n<td></td>\n</tr>\n</tbody>\n</table>"},
		{"| a |\n| - |", "<table>\n<thead>\n<tr>\n<th>a</th>\n</tr>\n</thead>\n</table>"},
		{"| `x\\|y` | a\\|b |\n|-|-|", "<table>\n<thead>\n<tr>\n<th><code>x|y</code></th>\n<th>a|b</th>\n</tr>\n</thead>\n</table>"},
		{"p\n| a |\n| - |", "<p>p</p>\n<table>\n<thead>\n<tr>\n<th>a</th>\n</tr>\n</thead>\n</table>"},
		{"~~a~~ ~b~ ~~~c~~~", "<p><del>a</del> <del>b</del> ~~~c~~~</p>"},
		{"- [ ] a\n- [x] b", "<ul>\n<li><input disabled=\"\" type=\"checkbox\"> a</li>\n<li><input checked=\"\" disabled=\"\" type=\"checkbox\"> b</li>\n</ul>"},
		{"[ ] a", "<p>[ ] a</p>"},
	} {
		got, err := renderMarkdown(c.in, fakeResolver{})
		if err != nil {
			t.Fatal(err)
		}
		if strings.TrimSpace(got) != c.want {
			t.Errorf("%q:\n got %q\nwant %q", c.in, strings.TrimSpace(got), c.want)
		}
	}
}

// readSeed reads a `go test fuzz v1` corpus file holding one string.
func readSeed(t *testing.T, path string) (string, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(data), "\n")
	if !ok {
		return "", false
	}
	rest = strings.TrimSpace(rest)
	if !strings.HasPrefix(rest, "string(") || !strings.HasSuffix(rest, ")") {
		return "", false
	}
	s, err := strconv.Unquote(rest[len("string(") : len(rest)-1])
	return s, err == nil
}

// FuzzGFMMatchesGoldmark: on any input the viewer's GFM extensions render
// what goldmark/extension rendered (the differential form of
// TestGFMMatchesGoldmarkExtension), and the output is valid UTF-8 when the
// input is.
func FuzzGFMMatchesGoldmark(f *testing.F) {
	for _, s := range gfmCorpus {
		f.Add(s)
	}
	ref := goldmarkExtension()
	f.Fuzz(func(t *testing.T, s string) {
		want := renderWith(t, ref, s)
		got, err := renderMarkdown(s, fakeResolver{})
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("%q:\n got %q\nwant %q", s, got, want)
		}
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Fatalf("%q rendered invalid UTF-8 %q", s, got)
		}
	})
}

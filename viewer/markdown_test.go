package viewer

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseWikilink(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Wikilink
		n    int
	}{
		{"[[page]]", Wikilink{Target: "page", Label: "page"}, 8},
		{"[[page]] rest", Wikilink{Target: "page", Label: "page"}, 8},
		{"[[ page | The Page ]]", Wikilink{Target: "page", Label: "The Page"}, 21},
		{"[[page#Section]]", Wikilink{Target: "page", Anchor: "Section", Label: "page#Section"}, 16},
		{"[[page|]]", Wikilink{Target: "page", Label: "page"}, 9},
		{"![[img.png]]", Wikilink{Target: "img.png", Label: "img.png", Embed: true}, 12},
		{"![[sub/a b.png|alt]]", Wikilink{Target: "sub/a b.png", Label: "alt", Embed: true}, 20},
		{"[[ünï]]", Wikilink{Target: "ünï", Label: "ünï"}, 9},
	} {
		w, n, ok := ParseWikilink([]byte(c.in))
		if !ok || w != c.want || n != c.n {
			t.Errorf("%q: %+v %d %v, want %+v %d", c.in, w, n, ok, c.want, c.n)
		}
	}
	for _, bad := range []string{"", "[", "[[", "[[]]", "[[ ]]", "[[|x]]", "[[#a]]", "[page]", "[[a\nb]]", "[[a[b]]", "[[a]b]]",
		"[[a", "![x]", "!![[a]]", "[[\xff]]", "[[" + strings.Repeat("a", maxWikilink+1) + "]]"} {
		if w, n, ok := ParseWikilink([]byte(bad)); ok {
			t.Errorf("%q parsed: %+v %d", bad, w, n)
		}
	}
}

func TestExtractWikilinks(t *testing.T) {
	got := ExtractWikilinks("a [[one]] b ![[img.png]] [[two|2]] [[bad\n]] [[three]]x[[ ]]![[")
	var targets []string
	for _, l := range got {
		targets = append(targets, l.Target)
	}
	if strings.Join(targets, ",") != "one,img.png,two,three" || !got[1].Embed || got[0].Embed {
		t.Errorf("got %+v", got)
	}
}

type fakeResolver struct{}

func (fakeResolver) page(ref string) (string, bool) {
	if ref == "known" || ref == "known.md" {
		return "known", true
	}
	return "", false
}

func (fakeResolver) asset(rel string) (bool, bool) {
	switch rel {
	case "a.png", "sub/b.png":
		return true, true
	case "f.txt":
		return false, true
	}
	return false, false
}

func TestRenderMarkdown(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"[[known]]", `<p><a class="wikilink" href="/page/known">known</a></p>`},
		{"[[known|K]]", `<p><a class="wikilink" href="/page/known">K</a></p>`},
		{"[[unknown]]", `<p><span class="broken" title="missing page">unknown <span class="tag">missing page</span></span></p>`},
		{"![[a.png]]", `<p><img class="embed" src="/assets/a.png" alt="a.png"></p>`},
		{"![[sub/b.png|B]]", `<p><img class="embed" src="/assets/sub/b.png" alt="B"></p>`},
		{"![[f.txt]]", `<p><a class="asset" href="/assets/f.txt">f.txt</a></p>`},
		{"![[gone.png]]", `<p><span class="broken" title="missing asset">gone.png <span class="tag">missing asset</span></span></p>`},
		{"[k](known.md)", `<p><a href="/page/known">k</a></p>`},
		{"[k](../pages/known.md#x)", `<p><a href="/page/known">k</a></p>`},
		{"![i](../assets/a.png)", `<p><img src="/assets/a.png" alt="i"></p>`},
		{"![i](assets/f.txt)", `<p><span class="ext">[image: i] <code>assets/f.txt</code></span></p>`},
		{"[x](https://e.com/)", `<p><span class="ext">x <code>(https://e.com/)</code></span></p>`},
		{"[x](javascript:alert(1))", `<p><span class="ext">x <code>(javascript:alert(1))</code></span></p>`},
		{"[x](//e.com/a.md)", `<p><span class="ext">x <code>(//e.com/a.md)</code></span></p>`},
		{"<https://e.com/>", `<p><span class="ext"><code>https://e.com/</code></span></p>`},
		{"<b>bold</b>", `<p><code class="rawhtml">&lt;b&gt;</code>bold<code class="rawhtml">&lt;/b&gt;</code></p>`},
		{"<script>alert(1)</script>", `<pre class="rawhtml"><code>&lt;script&gt;alert(1)&lt;/script&gt;</code></pre>`},
		{"<div onclick=\"x\">\n*a*\n</div>", `<pre class="rawhtml"><code>&lt;div onclick=&quot;x&quot;&gt;
*a*
&lt;/div&gt;</code></pre>`},
		{"`[[known]]`", `<p><code>[[known]]</code></p>`},
		{"# T\n###### S", "<h2>T</h2>\n<h6>S</h6>"},
		{"[[a\" onclick=\"x]]", `<p><span class="broken" title="missing page">a&quot; onclick=&quot;x <span class="tag">missing page</span></span></p>`},
	} {
		got, err := renderMarkdown(c.in, fakeResolver{})
		if err != nil {
			t.Fatal(err)
		}
		if strings.TrimSpace(got) != c.want {
			t.Errorf("%q:\n got %s\nwant %s", c.in, strings.TrimSpace(got), c.want)
		}
	}
}

// FuzzWikilink: the parser never panics, never reads past its input, and
// what it returns is a well-formed link the renderer escapes.
func FuzzWikilink(f *testing.F) {
	for _, s := range []string{"[[a]]", "![[b.png|c]]", "[[a#b|c]]", "[[", "![[]]", "[[a]]]]", "[[\xff]]", "x[[y]]z![[w]]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		w, n, ok := ParseWikilink([]byte(s))
		if ok {
			if n < 4 || n > len(s) || w.Target == "" || strings.ContainsAny(w.Target, "[]\n\r") || !utf8.ValidString(w.Target) {
				t.Fatalf("%q: %+v %d", s, w, n)
			}
			if w.Embed != strings.HasPrefix(s, "!") {
				t.Fatalf("%q: embed %v", s, w.Embed)
			}
		}
		for _, l := range ExtractWikilinks(s) {
			if l.Target == "" || strings.ContainsAny(l.Target, "[]\n\r") {
				t.Fatalf("%q: extracted %+v", s, l)
			}
		}
	})
}

// FuzzRenderMarkdown: untrusted Markdown never yields a script element, an
// event handler attribute, or a link or image leaving the viewer.
func FuzzRenderMarkdown(f *testing.F) {
	for _, s := range []string{hostileBody, "[[known]] ![[a.png]] [x](known.md)", "<script>x</script>", "[a](javascript:x)",
		"![a](data:image/png;base64,AAAA)", "<a href=\"https://e\">x</a>", "[[<img src=x onerror=y>]]", "| a |\n|---|\n| [[known]] |"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, err := renderMarkdown(s, fakeResolver{})
		if err != nil {
			return
		}
		lower := strings.ToLower(out)
		for _, bad := range []string{"<script", "<iframe", "<object", "<embed", "<style", "<svg", "<form", "<meta", "<link", "<base"} {
			if strings.Contains(lower, bad) {
				t.Fatalf("%q rendered %q", s, out)
			}
		}
		if m := handlerRE.FindString(out); m != "" {
			t.Fatalf("%q rendered a handler: %q", s, m)
		}
		for _, m := range hrefRE.FindAllStringSubmatch(out, -1) {
			if !strings.HasPrefix(m[2], "/page/") && !strings.HasPrefix(m[2], "/assets/") {
				t.Fatalf("%q rendered %s=%q", s, m[1], m[2])
			}
		}
	})
}

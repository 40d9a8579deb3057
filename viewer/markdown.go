package viewer

import (
	"bytes"
	"net/url"
	"path"
	"strings"
	"sync"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// Vault Markdown is untrusted. The renderer is goldmark without
// html.WithUnsafe, and raw HTML blocks and inline HTML are shown as escaped
// text (renderRawHTML, renderHTMLBlock: never markup); on top of
// that every link and image is resolved here: a destination becomes an href
// only when it names a page or an asset of this vault, and is otherwise shown
// as text (no javascript:, data: or external URL ever becomes a link or a
// request).

// linkResolver turns vault references into local hrefs.
type linkResolver interface {
	// page returns the slug a page reference names, if that page exists.
	page(ref string) (slug string, ok bool)
	// asset reports whether assets/<rel> is a servable file, and whether it
	// is an image.
	asset(rel string) (isImage, ok bool)
}

var resolverKey = parser.NewContextKey()

var (
	kindWikilink  = ast.NewNodeKind("Wikilink")
	kindPlainLink = ast.NewNodeKind("PlainLink")
)

// wikilinkNode is a resolved [[link]] or ![[embed]].
type wikilinkNode struct {
	ast.BaseInline
	Link    Wikilink
	Href    string // "" when broken
	IsImage bool
}

func (n *wikilinkNode) Kind() ast.NodeKind { return kindWikilink }
func (n *wikilinkNode) Dump(src []byte, level int) {
	ast.DumpHelper(n, src, level, map[string]string{"Target": n.Link.Target}, nil)
}

// plainLinkNode replaces a link or image whose destination is not in the
// vault: its text, then the destination as text.
type plainLinkNode struct {
	ast.BaseInline
	Dest  string
	Image bool
	Alt   string
}

func (n *plainLinkNode) Kind() ast.NodeKind { return kindPlainLink }
func (n *plainLinkNode) Dump(src []byte, level int) {
	ast.DumpHelper(n, src, level, map[string]string{"Dest": n.Dest}, nil)
}

type wikilinkParser struct{}

func (wikilinkParser) Trigger() []byte { return []byte{'[', '!'} }

func (wikilinkParser) Parse(parent ast.Node, block text.Reader, pc parser.Context) ast.Node {
	line, _ := block.PeekLine()
	w, n, ok := ParseWikilink(line)
	if !ok {
		return nil
	}
	block.Advance(n)
	node := &wikilinkNode{Link: w}
	if r, _ := pc.Get(resolverKey).(linkResolver); r != nil {
		if w.Embed {
			if img, ok := r.asset(w.Target); ok {
				node.Href, node.IsImage = assetHref(w.Target), img
			}
		} else if slug, ok := r.page(w.Target); ok {
			node.Href = pageHref(slug)
		}
	}
	return node
}

// linkTransformer resolves Markdown links and images against the vault,
// and moves headings one level down.
type linkTransformer struct{}

func (linkTransformer) Transform(doc *ast.Document, reader text.Reader, pc parser.Context) {
	r, _ := pc.Get(resolverKey).(linkResolver)
	src := reader.Source()
	var replace [][2]ast.Node
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch v := n.(type) {
		case *ast.Heading:
			// The view's own title is the one h1: the page's headings
			// move one level down.
			v.Level = min(v.Level+1, 6)
		case *ast.Link:
			if href, ok := resolveDest(r, string(v.Destination), false); ok {
				v.Destination = []byte(href)
				v.Title = nil
				return ast.WalkContinue, nil
			}
			p := &plainLinkNode{Dest: string(v.Destination)}
			for c := v.FirstChild(); c != nil; {
				next := c.NextSibling()
				p.AppendChild(p, c)
				c = next
			}
			replace = append(replace, [2]ast.Node{v, p})
		case *ast.Image:
			if href, ok := resolveDest(r, string(v.Destination), true); ok {
				v.Destination = []byte(href)
				v.Title = nil
				return ast.WalkSkipChildren, nil
			}
			replace = append(replace, [2]ast.Node{v, &plainLinkNode{Dest: string(v.Destination), Image: true, Alt: string(nodeText(v, src))}})
			return ast.WalkSkipChildren, nil
		case *ast.AutoLink:
			replace = append(replace, [2]ast.Node{v, &plainLinkNode{Dest: string(v.URL(src))}})
		}
		return ast.WalkContinue, nil
	})
	for _, p := range replace {
		p[0].Parent().ReplaceChild(p[0].Parent(), p[0], p[1])
	}
}

func nodeText(n ast.Node, src []byte) []byte {
	var b bytes.Buffer
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			switch t := c.(type) {
			case *ast.Text:
				b.Write(t.Segment.Value(src))
			case *ast.String:
				b.Write(t.Value)
			}
		}
		return ast.WalkContinue, nil
	})
	return b.Bytes()
}

// resolveDest maps a relative Markdown destination to a page or asset href.
// Anything with a scheme, a host, or outside the vault is refused.
func resolveDest(r linkResolver, dest string, image bool) (string, bool) {
	if r == nil || dest == "" {
		return "", false
	}
	u, err := url.Parse(dest)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" {
		return "", false
	}
	p := path.Clean("/" + u.Path)
	// Accept vault-relative forms: assets/x, ../assets/x, pages/x.md, x.md.
	p = strings.TrimPrefix(p, "/")
	p = strings.TrimPrefix(p, "EchoesVault/")
	if rel, ok := strings.CutPrefix(p, "assets/"); ok {
		if isImg, ok := r.asset(rel); ok && (!image || isImg) {
			return assetHref(rel), true
		}
		return "", false
	}
	if image {
		return "", false
	}
	p = strings.TrimPrefix(p, "pages/")
	if strings.Contains(p, "/") || !strings.HasSuffix(strings.ToLower(p), ".md") {
		return "", false
	}
	if slug, ok := r.page(p[:len(p)-3]); ok {
		return pageHref(slug), true
	}
	return "", false
}

// pageHref is the viewer URL of a page.
func pageHref(slug string) string { return "/page/" + url.PathEscape(slug) }

// assetHref is the viewer URL of assets/<rel>.
func assetHref(rel string) string {
	parts := strings.Split(rel, "/")
	for i, p := range parts {
		parts[i] = url.PathEscape(p)
	}
	return "/assets/" + strings.Join(parts, "/")
}

// safeRenderer renders the nodes above and re-checks every link and image
// that reaches HTML: only local hrefs are written.
type safeRenderer struct{}

func (safeRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(kindWikilink, renderWikilink)
	reg.Register(kindPlainLink, renderPlainLink)
	reg.Register(ast.KindLink, renderLink)
	reg.Register(ast.KindImage, renderImage)
	reg.Register(ast.KindRawHTML, renderRawHTML)
	reg.Register(ast.KindHTMLBlock, renderHTMLBlock)
	reg.Register(ast.KindAutoLink, func(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			_, _ = w.Write(util.EscapeHTML(n.(*ast.AutoLink).Label(src)))
		}
		return ast.WalkSkipChildren, nil
	})
}

// renderRawHTML shows inline HTML as what it is, text: the reader sees
// that the page holds markup, and none of it is interpreted.
func renderRawHTML(w util.BufWriter, src []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkSkipChildren, nil
	}
	n := node.(*ast.RawHTML)
	_, _ = w.WriteString(`<code class="rawhtml">`)
	for i := 0; i < n.Segments.Len(); i++ {
		seg := n.Segments.At(i)
		_, _ = w.Write(util.EscapeHTML(seg.Value(src)))
	}
	_, _ = w.WriteString(`</code>`)
	return ast.WalkSkipChildren, nil
}

// renderHTMLBlock shows an HTML block as escaped, preformatted text.
func renderHTMLBlock(w util.BufWriter, src []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	n := node.(*ast.HTMLBlock)
	_, _ = w.WriteString(`<pre class="rawhtml"><code>`)
	for i := 0; i < n.Lines().Len(); i++ {
		line := n.Lines().At(i)
		_, _ = w.Write(util.EscapeHTML(line.Value(src)))
	}
	if n.HasClosure() {
		_, _ = w.Write(util.EscapeHTML(n.ClosureLine.Value(src)))
	}
	_, _ = w.WriteString(`</code></pre>` + "\n")
	return ast.WalkContinue, nil
}

func esc(s string) []byte { return util.EscapeHTML([]byte(s)) }

// localHref reports whether href is one this package produced.
func localHref(href string) bool {
	return strings.HasPrefix(href, "/page/") || strings.HasPrefix(href, "/assets/")
}

func renderWikilink(w util.BufWriter, _ []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	n := node.(*wikilinkNode)
	switch {
	case n.Href == "" || !localHref(n.Href):
		what := "missing page"
		if n.Link.Embed {
			what = "missing asset"
		}
		_, _ = w.WriteString(`<span class="broken" title="` + what + `">`)
		_, _ = w.Write(esc(n.Link.Label))
		_, _ = w.WriteString(` <span class="tag">` + what + `</span></span>`)
	case n.Link.Embed && n.IsImage:
		_, _ = w.WriteString(`<img class="embed" src="`)
		_, _ = w.Write(esc(n.Href))
		_, _ = w.WriteString(`" alt="`)
		_, _ = w.Write(esc(n.Link.Label))
		_, _ = w.WriteString(`">`)
	default:
		cls := "wikilink"
		if n.Link.Embed {
			cls = "asset"
		}
		_, _ = w.WriteString(`<a class="` + cls + `" href="`)
		_, _ = w.Write(esc(n.Href))
		_, _ = w.WriteString(`">`)
		_, _ = w.Write(esc(n.Link.Label))
		_, _ = w.WriteString(`</a>`)
	}
	return ast.WalkSkipChildren, nil
}

func renderPlainLink(w util.BufWriter, _ []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	n := node.(*plainLinkNode)
	if n.Image {
		if entering {
			_, _ = w.WriteString(`<span class="ext">[image: `)
			_, _ = w.Write(esc(n.Alt))
			_, _ = w.WriteString(`] <code>`)
			_, _ = w.Write(esc(n.Dest))
			_, _ = w.WriteString(`</code></span>`)
		}
		return ast.WalkSkipChildren, nil
	}
	if entering && !n.HasChildren() { // an autolink: the address alone
		_, _ = w.WriteString(`<span class="ext"><code>`)
		_, _ = w.Write(esc(n.Dest))
		_, _ = w.WriteString(`</code></span>`)
		return ast.WalkSkipChildren, nil
	}
	if entering {
		_, _ = w.WriteString(`<span class="ext">`)
		return ast.WalkContinue, nil
	}
	if !n.HasChildren() {
		return ast.WalkContinue, nil
	}
	if n.Dest != "" {
		_, _ = w.WriteString(` <code>(`)
		_, _ = w.Write(esc(n.Dest))
		_, _ = w.WriteString(`)</code>`)
	}
	_, _ = w.WriteString(`</span>`)
	return ast.WalkContinue, nil
}

func renderLink(w util.BufWriter, _ []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	n := node.(*ast.Link)
	ok := localHref(string(n.Destination))
	if entering {
		if ok {
			_, _ = w.WriteString(`<a href="`)
			_, _ = w.Write(esc(string(n.Destination)))
			_, _ = w.WriteString(`">`)
		} else {
			_, _ = w.WriteString(`<span class="ext">`)
		}
		return ast.WalkContinue, nil
	}
	if ok {
		_, _ = w.WriteString(`</a>`)
	} else {
		_, _ = w.WriteString(`</span>`)
	}
	return ast.WalkContinue, nil
}

func renderImage(w util.BufWriter, src []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	n := node.(*ast.Image)
	alt := nodeText(n, src)
	if !strings.HasPrefix(string(n.Destination), "/assets/") {
		_, _ = w.WriteString(`<span class="ext">[image: `)
		_, _ = w.Write(util.EscapeHTML(alt))
		_, _ = w.WriteString(`]</span>`)
		return ast.WalkSkipChildren, nil
	}
	_, _ = w.WriteString(`<img src="`)
	_, _ = w.Write(esc(string(n.Destination)))
	_, _ = w.WriteString(`" alt="`)
	_, _ = w.Write(util.EscapeHTML(alt))
	_, _ = w.WriteString(`">`)
	return ast.WalkSkipChildren, nil
}

// markdown is the one goldmark instance: GFM tables, strikethrough and task
// lists (markdown_gfm.go, not goldmark/extension, whose package init every
// process paid), no raw HTML (goldmark's default: html.WithUnsafe is not
// set). Built on first use, so only serve pays for it (issue 19).
var markdown = sync.OnceValue(func() goldmark.Markdown {
	return goldmark.New(
		goldmark.WithParserOptions(append(gfmParserOptions(),
			parser.WithInlineParsers(util.Prioritized(wikilinkParser{}, 100)),
			parser.WithASTTransformers(util.Prioritized(linkTransformer{}, 100)),
		)...),
		goldmark.WithRendererOptions(
			renderer.WithNodeRenderers(
				util.Prioritized(safeRenderer{}, 100),
				util.Prioritized(gfmRenderer{}, 500),
			),
		),
	)
})

// renderMarkdown renders untrusted Markdown to safe HTML.
func renderMarkdown(src string, r linkResolver) (string, error) {
	pc := parser.NewContext()
	pc.Set(resolverKey, r)
	source := []byte(src)
	doc := markdown().Parser().Parse(text.NewReader(source), parser.WithContext(pc))
	var b bytes.Buffer
	if err := markdown().Renderer().Render(&b, source, doc); err != nil {
		return "", err
	}
	return b.String(), nil
}

package viewer

import (
	"embed"
	"html/template"
	"net/url"
	"strings"
	"time"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static/style.css
var styleCSS []byte

//go:embed static/icon.svg
var iconSVG []byte

// views are the templates, each parsed with the shared layout.
var views = []string{"overview", "pages", "page", "daily", "memories", "memory", "search", "graph", "review", "error"}

var funcs = template.FuncMap{
	"pageHref":   pageHref,
	"memoryHref": func(id string) string { return "/memory/" + url.PathEscape(id) },
	"query":      queryString,
	"badgeAt": func(b []*badge, i int) *badge {
		if i < len(b) {
			return b[i]
		}
		return nil
	},
	"join": strings.Join,
	"date": func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		return t.UTC().Format("2006-01-02 15:04 UTC")
	},
	"op": func(b byte) string { return string(rune(b)) },
	"opClass": func(b byte) string {
		switch b {
		case '+':
			return "add"
		case '-':
			return "del"
		}
		return "ctx"
	},
	"short": func(s string) string {
		if len(s) > 12 {
			return s[:12]
		}
		return s
	},
}

func parseTemplates() (map[string]*template.Template, error) {
	base, err := template.New("layout").Funcs(funcs).ParseFS(templateFS, "templates/layout.html")
	if err != nil {
		return nil, err
	}
	out := make(map[string]*template.Template, len(views))
	for _, v := range views {
		t, err := template.Must(base.Clone()).ParseFS(templateFS, "templates/"+v+".html")
		if err != nil {
			return nil, err
		}
		out[v] = t
	}
	return out, nil
}

// queryString is "?k=v&..." of the pairs whose value is not empty, or "".
func queryString(kv ...string) string {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] != "" {
			v.Set(kv[i], kv[i+1])
		}
	}
	if len(v) == 0 {
		return ""
	}
	return "?" + v.Encode()
}

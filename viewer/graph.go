package viewer

import (
	"html/template"
	"math"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/gitvault/memory"
)

// The graph view draws pages and memories as nodes and their links as
// edges, laid out on the server and sent as plain SVG (no script). The
// layout is linear in nodes and edges, so a few thousand nodes draw at once:
// each connected component is a set of rings around its best-connected node
// (breadth-first distance = ring), and components are packed in rows,
// largest first. The neighbourhood of one node is the same ring layout,
// centred on it.

// maxGraphNodes bounds one drawing; beyond it the best-connected nodes are
// kept and the view says so.
const maxGraphNodes = 5000

type gnode struct {
	ID    string // "page:<slug>" or "memory:<id>"
	Label string
	Kind  string // "page" or "memory"
	Group string // page type or memory kind
	Href  string
	Class string
	Deg   int
	X, Y  float64
}

type graphData struct {
	Vault, Type, Kind, Focus string
	Depth                    string
	Depths                   []string
	Types, Kinds             []string
	Nodes, Edges, Total      int
	Capped, Missing          bool
	SVG                      template.HTML
	List                     []*gnode
}

func (s *Server) graph(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	d := graphData{Vault: q.Get("vault"), Type: q.Get("type"), Kind: q.Get("kind"), Focus: q.Get("focus"),
		Depth: q.Get("depth"), Depths: []string{"1", "2", "3"}, Kinds: memory.Kinds}
	depth, err := strconv.Atoi(d.Depth)
	if err != nil || depth < 1 || depth > 3 {
		depth, d.Depth = 1, "1"
	}
	ps, err := s.loadPages()
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, gitvault.ErrorMessage(err))
		return
	}
	types := map[string]int{}
	for _, p := range ps.pages {
		if p.Type != "" {
			types[p.Type]++
		}
	}
	d.Types = sortedKeys(types)
	var ms *memorySet
	if d.Vault != "pages" {
		ms = s.loadMemories()
	}
	nodes, adj := buildGraph(ps, ms, d)
	d.Total = len(nodes)
	keep := make([]bool, len(nodes))
	focus := -1
	if d.Focus != "" {
		for i, n := range nodes {
			if n.ID == d.Focus {
				focus = i
			}
		}
		if focus < 0 {
			d.Missing = true
		} else {
			for _, i := range bfs(adj, focus, depth) {
				keep[i] = true
			}
		}
	} else {
		for i := range keep {
			keep[i] = true
		}
	}
	nodes, adj, focus = subgraph(nodes, adj, keep, focus)
	if len(nodes) > maxGraphNodes {
		order := make([]int, len(nodes))
		for i := range order {
			order[i] = i
		}
		sort.SliceStable(order, func(a, b int) bool { return nodes[order[a]].Deg > nodes[order[b]].Deg })
		keep = make([]bool, len(nodes))
		for _, i := range order[:maxGraphNodes] {
			keep[i] = true
		}
		if focus >= 0 {
			keep[focus] = true
		}
		nodes, adj, focus = subgraph(nodes, adj, keep, focus)
		d.Capped = true
	}
	layout(nodes, adj, focus)
	d.Nodes = len(nodes)
	for _, a := range adj {
		d.Edges += len(a)
	}
	d.Edges /= 2
	d.SVG = drawSVG(nodes, adj, focus)
	d.List = nodes
	s.render(w, r, http.StatusOK, "graph", "Graph", d)
}

// buildGraph makes the filtered node set and its undirected adjacency.
func buildGraph(ps *pageSet, ms *memorySet, d graphData) ([]*gnode, [][]int) {
	var nodes []*gnode
	index := map[string]int{}
	add := func(n *gnode) {
		index[n.ID] = len(nodes)
		nodes = append(nodes, n)
	}
	if d.Vault != "memories" {
		for i := range ps.pages {
			p := &ps.pages[i]
			if d.Type != "" && p.Type != d.Type {
				continue
			}
			cls := "page"
			if p.Deprecated() {
				cls += " deprecated"
			}
			add(&gnode{ID: "page:" + p.Slug, Label: p.Slug, Kind: "page", Group: p.Type, Href: pageHref(p.Slug), Class: cls})
		}
	}
	if ms != nil && d.Vault != "pages" {
		for _, e := range ms.entries {
			m := e.Memory
			if d.Kind != "" && m.Kind != d.Kind {
				continue
			}
			if _, dup := index["memory:"+m.ID]; dup {
				continue
			}
			add(&gnode{ID: "memory:" + m.ID, Label: m.Title, Kind: "memory", Group: m.Kind, Href: "/memory/" + url.PathEscape(m.ID), Class: "memory"})
		}
	}
	adj := make([][]int, len(nodes))
	seen := map[[2]int]bool{}
	link := func(a, b string) {
		i, ok1 := index[a]
		j, ok2 := index[b]
		if !ok1 || !ok2 || i == j {
			return
		}
		if i > j {
			i, j = j, i
		}
		if seen[[2]int{i, j}] {
			return
		}
		seen[[2]int{i, j}] = true
		adj[i] = append(adj[i], j)
		adj[j] = append(adj[j], i)
	}
	if d.Vault != "memories" {
		for i := range ps.pages {
			for _, t := range ps.out[i] {
				link("page:"+ps.pages[i].Slug, "page:"+t)
			}
		}
	}
	if ms != nil && d.Vault != "pages" {
		for _, e := range ms.entries {
			for _, l := range e.Memory.Links {
				link("memory:"+e.Memory.ID, "memory:"+l)
			}
		}
	}
	for i := range nodes {
		nodes[i].Deg = len(adj[i])
	}
	return nodes, adj
}

// bfs returns the nodes within depth of start, in breadth-first order.
func bfs(adj [][]int, start, depth int) []int {
	dist := map[int]int{start: 0}
	order := []int{start}
	for k := 0; k < len(order); k++ {
		u := order[k]
		if dist[u] == depth {
			continue
		}
		for _, v := range adj[u] {
			if _, ok := dist[v]; !ok {
				dist[v] = dist[u] + 1
				order = append(order, v)
			}
		}
	}
	return order
}

// subgraph keeps the marked nodes, renumbering the adjacency and the focus.
func subgraph(nodes []*gnode, adj [][]int, keep []bool, focus int) ([]*gnode, [][]int, int) {
	newIdx := make([]int, len(nodes))
	var out []*gnode
	for i, n := range nodes {
		newIdx[i] = -1
		if keep[i] {
			newIdx[i] = len(out)
			out = append(out, n)
		}
	}
	outAdj := make([][]int, len(out))
	for i, a := range adj {
		if newIdx[i] < 0 {
			continue
		}
		for _, j := range a {
			if newIdx[j] >= 0 {
				outAdj[newIdx[i]] = append(outAdj[newIdx[i]], newIdx[j])
			}
		}
	}
	nf := -1
	if focus >= 0 {
		nf = newIdx[focus]
	}
	return out, outAdj, nf
}

// spacing is the distance between neighbouring nodes on a ring: wider
// when the labels are drawn.
func spacing(n int) float64 {
	if n <= labelLimit {
		return 90
	}
	return 28
}

// layout places every node: rings around a root per component (the focus,
// else the best-connected node), components packed in rows.
func layout(nodes []*gnode, adj [][]int, focus int) {
	n := len(nodes)
	if n == 0 {
		return
	}
	comp := make([]int, n)
	for i := range comp {
		comp[i] = -1
	}
	var comps [][]int
	roots := func() []int {
		order := make([]int, n)
		for i := range order {
			order[i] = i
		}
		sort.SliceStable(order, func(a, b int) bool { return len(adj[order[a]]) > len(adj[order[b]]) })
		if focus >= 0 {
			order = append([]int{focus}, order...)
		}
		return order
	}()
	for _, r := range roots {
		if comp[r] >= 0 {
			continue
		}
		members := bfs(adj, r, n)
		for _, m := range members {
			comp[m] = len(comps)
		}
		comps = append(comps, members)
	}
	// Lay out each component around its root, then pack.
	type box struct{ w, h float64 }
	boxes := make([]box, len(comps))
	for c, members := range comps {
		radius := ringLayout(nodes, adj, members, spacing(n))
		boxes[c] = box{2*radius + spacing(n), 2*radius + spacing(n)}
	}
	// Shelf packing: rows up to a width that keeps the drawing roughly square.
	area := 0.0
	for _, b := range boxes {
		area += b.w * b.h
	}
	rowWidth := math.Max(math.Sqrt(area)*1.2, boxes[0].w)
	x, y, rowH := 0.0, 0.0, 0.0
	for c, members := range comps {
		b := boxes[c]
		if x > 0 && x+b.w > rowWidth {
			x, y, rowH = 0, y+rowH, 0
		}
		cx, cy := x+b.w/2, y+b.h/2
		for _, m := range members {
			nodes[m].X += cx
			nodes[m].Y += cy
		}
		x += b.w
		rowH = math.Max(rowH, b.h)
	}
}

// ringLayout places members (breadth-first from members[0]) on rings around
// the origin, each child near its parent's angle, and returns the radius.
func ringLayout(nodes []*gnode, adj [][]int, members []int, spacing float64) float64 {
	root := members[0]
	dist := map[int]int{root: 0}
	parent := map[int]int{}
	rings := [][]int{{root}}
	queue := []int{root}
	for k := 0; k < len(queue); k++ {
		u := queue[k]
		for _, v := range adj[u] {
			if _, ok := dist[v]; !ok {
				dist[v] = dist[u] + 1
				parent[v] = u
				if dist[v] == len(rings) {
					rings = append(rings, nil)
				}
				rings[dist[v]] = append(rings[dist[v]], v)
				queue = append(queue, v)
			}
		}
	}
	angle := map[int]float64{root: 0}
	nodes[root].X, nodes[root].Y = 0, 0
	radius := 0.0
	for r := 1; r < len(rings); r++ {
		ring := rings[r]
		sort.SliceStable(ring, func(a, b int) bool { return angle[parent[ring[a]]] < angle[parent[ring[b]]] })
		radius = math.Max(radius+spacing*1.6, float64(len(ring))*spacing/(2*math.Pi))
		for i, v := range ring {
			a := 2 * math.Pi * float64(i) / float64(len(ring))
			if len(ring) == 1 {
				a = angle[parent[v]]
			}
			angle[v] = a
			nodes[v].X, nodes[v].Y = radius*math.Cos(a), radius*math.Sin(a)
		}
	}
	return radius
}

// maxGraphPixels is the largest side of a drawing before it is scaled down.
const maxGraphPixels = 6000.0

// labelLimit is the most nodes drawn with visible labels; every node has
// its name as an SVG <title> (a tooltip, and its accessible name).
const labelLimit = 200

// drawSVG writes the drawing. Every text is escaped; node links stay in the
// viewer (the neighbourhood of the node).
func drawSVG(nodes []*gnode, adj [][]int, focus int) template.HTML {
	if len(nodes) == 0 {
		return template.HTML(`<p>Nothing to draw.</p>`)
	}
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, n := range nodes {
		minX, minY = math.Min(minX, n.X), math.Min(minY, n.Y)
		maxX, maxY = math.Max(maxX, n.X), math.Max(maxY, n.Y)
	}
	pad := 60.0
	if len(nodes) <= labelLimit {
		pad = 160 // room for the labels right of the last nodes
	}
	w, h := maxX-minX+2*pad, maxY-minY+2*pad
	// One unit is one CSS pixel (the drawing scrolls), down to a quarter
	// for very large graphs, whose labels are not drawn.
	scale := math.Max(0.25, math.Min(1, maxGraphPixels/math.Max(w, h)))
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
	var b strings.Builder
	b.Grow(len(nodes)*160 + 64)
	b.WriteString(`<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-labelledby="graph-title" viewBox="`)
	b.WriteString(f(minX-pad) + " " + f(minY-pad) + " " + f(w) + " " + f(h) + `" width="` + f(w*scale) + `" height="` + f(h*scale) + `">`)
	b.WriteString(`<title id="graph-title">Link graph: ` + strconv.Itoa(len(nodes)) + ` nodes</title>`)
	b.WriteString(`<path class="edges" d="`)
	for i, a := range adj {
		for _, j := range a {
			if i < j {
				b.WriteString("M" + f(nodes[i].X) + " " + f(nodes[i].Y) + "L" + f(nodes[j].X) + " " + f(nodes[j].Y))
			}
		}
	}
	b.WriteString(`"/>`)
	labels := len(nodes) <= labelLimit
	for i, n := range nodes {
		cls := n.Class
		if i == focus {
			cls += " focus"
		}
		r := 5.0 + math.Min(float64(n.Deg), 10)*0.6
		href := "/graph?focus=" + template.URLQueryEscaper(n.ID)
		if i == focus {
			href = n.Href // the focused node leads to the page or memory itself
		}
		b.WriteString(`<a href="` + template.HTMLEscapeString(href) + `">`)
		b.WriteString(`<circle class="n ` + template.HTMLEscapeString(cls) + `" cx="` + f(n.X) + `" cy="` + f(n.Y) + `" r="` + f(r) + `">`)
		b.WriteString(`<title>` + template.HTMLEscapeString(n.Kind+": "+n.Label) + `</title></circle>`)
		if labels || i == focus {
			b.WriteString(`<text x="` + f(n.X+r+2) + `" y="` + f(n.Y+4) + `">` + template.HTMLEscapeString(truncate(n.Label, 40)) + `</text>`)
		}
		b.WriteString(`</a>`)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

package view

import (
	"fmt"
	"sort"
	"unicode/utf8"

	"github.com/proselang/prose/world/graph"
)

// Layout is the graph placed for an SVG picture: one column per height
// (entry points on the left, each node right of every producer), nodes
// ordered within a column to keep edges short (barycenters of their
// neighbours, a few sweeps), every coordinate in SVG user units.
type Layout struct {
	Nodes         []*Placed
	Edges         []*PlacedEdge
	Width, Height int
	byID          map[string]*Placed
}

// Placed is a node's box.
type Placed struct {
	ID, Name, Kind string
	// Label is the node's label (graph.Node.Label), Short the text shown
	// in the box (Label cut to fit, with an ellipsis).
	Label, Short string
	Entry        bool
	Column       int
	X, Y, W, H   int
}

// PlacedEdge is an edge's curve from its producer's box to its
// subscriber's.
type PlacedEdge struct {
	Subscriber, Input, Producer, Facet, Rule string
	// D is the SVG path; LX, LY where its facet label goes (its middle).
	D      string
	LX, LY int
}

// Box sizes and gaps, in SVG user units.
const (
	boxW, boxH = 180, 34
	gapX, gapY = 60, 14
	pad        = 20
	shortRunes = 23
)

// Node is the box of id, or nil.
func (l *Layout) Node(id string) *Placed { return l.byID[id] }

// layout places g.
func layout(g *graph.Graph) *Layout {
	l := &Layout{byID: map[string]*Placed{}}
	entry := map[string]bool{}
	for _, id := range g.EntryPoints() {
		entry[id] = true
	}
	var cols [][]*Placed
	for _, n := range g.Nodes {
		p := &Placed{ID: n.ID, Name: n.Name, Kind: string(n.Kind), Label: n.Label(), Short: cut(n.Label(), shortRunes),
			Entry: entry[n.ID], Column: n.Height, W: boxW, H: boxH}
		for len(cols) <= n.Height {
			cols = append(cols, nil)
		}
		cols[n.Height] = append(cols[n.Height], p)
		l.Nodes = append(l.Nodes, p)
		l.byID[n.ID] = p
	}
	producers, subscribers := map[string][]string{}, map[string][]string{}
	for _, e := range g.Edges {
		if l.byID[e.Producer] != nil && l.byID[e.Subscriber] != nil {
			producers[e.Subscriber] = append(producers[e.Subscriber], e.Producer)
			subscribers[e.Producer] = append(subscribers[e.Producer], e.Subscriber)
		}
	}
	order(cols, producers, subscribers)
	place(l, cols, producers, subscribers)
	for _, e := range g.Edges {
		p, s := l.byID[e.Producer], l.byID[e.Subscriber]
		if p == nil || s == nil {
			continue
		}
		x1, y1 := p.X+p.W, p.Y+p.H/2
		x2, y2 := s.X, s.Y+s.H/2
		dx := (x2 - x1) / 2
		l.Edges = append(l.Edges, &PlacedEdge{Subscriber: e.Subscriber, Input: e.Input, Producer: e.Producer, Facet: e.Facet, Rule: e.Rule,
			D:  fmt.Sprintf("M%d %d C%d %d %d %d %d %d", x1, y1, x1+dx, y1, x2-dx, y2, x2, y2),
			LX: (x1 + x2) / 2, LY: (y1+y2)/2 - 3})
	}
	for _, p := range l.Nodes {
		l.Width = max(l.Width, p.X+p.W+pad)
		l.Height = max(l.Height, p.Y+p.H+pad)
	}
	return l
}

// order sorts each column by the mean relative position of each node's
// neighbours: down the columns by producers, then up by subscribers,
// twice. A node without neighbours on that side keeps its place.
func order(cols [][]*Placed, producers, subscribers map[string][]string) {
	rel := map[string]float64{}
	number := func(col []*Placed) {
		for i, p := range col {
			rel[p.ID] = (float64(i) + 0.5) / float64(len(col))
		}
	}
	for _, col := range cols {
		number(col)
	}
	sweep := func(col []*Placed, by map[string][]string) {
		key := map[string]float64{}
		for _, p := range col {
			key[p.ID] = rel[p.ID]
			if ns := by[p.ID]; len(ns) > 0 {
				sum := 0.0
				for _, n := range ns {
					sum += rel[n]
				}
				key[p.ID] = sum / float64(len(ns))
			}
		}
		sort.SliceStable(col, func(i, j int) bool { return key[col[i].ID] < key[col[j].ID] })
		number(col)
	}
	for range 2 {
		for c := 1; c < len(cols); c++ {
			sweep(cols[c], producers)
		}
		for c := len(cols) - 2; c >= 0; c-- {
			sweep(cols[c], subscribers)
		}
	}
}

// place gives each box its coordinates: columns left to right; in each
// column, boxes in order, each as near the mean height of its producers
// as the boxes above it allow; then, right to left, each column is
// placed again near its subscribers, so a producer sits beside what it
// feeds.
func place(l *Layout, cols [][]*Placed, producers, subscribers map[string][]string) {
	for c, col := range cols {
		for _, p := range col {
			p.X = pad + c*(boxW+gapX)
		}
	}
	stack := func(col []*Placed, by map[string][]string, keep bool) {
		next := pad
		for _, p := range col {
			want := next
			if keep {
				want = p.Y
			}
			if ns := by[p.ID]; len(ns) > 0 {
				sum := 0
				for _, n := range ns {
					sum += l.byID[n].Y
				}
				want = sum / len(ns)
			}
			p.Y = max(want, next)
			next = p.Y + boxH + gapY
		}
	}
	for _, col := range cols {
		stack(col, producers, false)
	}
	for c := len(cols) - 2; c >= 0; c-- {
		stack(cols[c], subscribers, true)
	}
}

// cut is s in at most n runes, ending in an ellipsis when cut.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

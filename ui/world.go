package ui

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/proselang/prose/world/receipt"
	"github.com/proselang/prose/world/store"
	"github.com/proselang/prose/world/view"
)

// This is the world model pages' file: the graph, a node's truth,
// versions and receipts, a drain step by step. worldRoutes registers
// them; their templates are templates/world*.tmpl, their script
// static/world.js and their styles static/world.css. Every value they
// show is computed by package world/view; this file only turns it into
// what the templates print (links, labels).
//
//	GET /ui/world                  the graph, coloured by status, live
//	GET /ui/world/status?since=V   what moved since version V (JSON)
//	GET /ui/world/node/ID          a node: truth, facets, versions (?from=&to= diffs two), receipts
//	GET /ui/world/drain/N          drain N step by step (?step=K)
//
// Live (decided): the watcher's "world" event says that files of the
// state directory changed; the graph page then asks /ui/world/status
// for what moved since the version it shows, and recolours those nodes.
// Each answer brings the page to the World's version, so a page that
// missed events (a slow connection drops them) catches up at the next.

// worldRoutes registers the world model pages.
func (s *Server) worldRoutes(mux *http.ServeMux) {
	wp := &worldPages{s: s}
	mux.HandleFunc("GET /ui/world", wp.graph)
	mux.HandleFunc("GET /ui/world/status", wp.status)
	mux.HandleFunc("GET /ui/world/node/{id...}", wp.node)
	mux.HandleFunc("GET /ui/world/drain/{n}", wp.drain)
}

// worldPages holds the World the pages read, loaded at the first
// request (again after a failure).
type worldPages struct {
	s  *Server
	mu sync.Mutex
	w  *view.World
}

// world is the polled World; nil with the page data to show when there
// is no world model.
func (wp *worldPages) world() (*view.World, *worldData, error) {
	o := wp.s.o
	if o.Graph == nil {
		d := &worldData{Problem: "This project has no world model: no responsibility or gateway under it."}
		if o.GraphErr != nil {
			d.Problem = o.GraphErr.Error()
		}
		return nil, d, nil
	}
	wp.mu.Lock()
	if wp.w == nil {
		w, err := view.New(o.Graph, nil, o.StateDir, o.Trusted)
		if err != nil {
			wp.mu.Unlock()
			return nil, nil, err
		}
		wp.w = w
	}
	w := wp.w
	wp.mu.Unlock()
	if _, err := w.Poll(); err != nil {
		return nil, nil, err
	}
	return w, nil, nil
}

// worldData is the graph page's and a drain page's data.
type worldData struct {
	// Problem is set when there is no world model to show.
	Problem string
	// Wiring is the graph's wiring errors, shown above it.
	Wiring string
	// StateDir is the state directory as the page names it: relative to
	// the project when it lies in it.
	StateDir string
	Page     *view.GraphPage
	SVG      *svgGraph
	Drains   []view.DrainSummary
	More     int // drains not listed
	Cost     []receipt.CostRow
	// Problems are the verification problems, each with its node.
	Problems []nodeProblem
	Extra    []view.NodeStatus
	Replay   *replayData
	Node     *nodeData
	// Legend lists the statuses, with the number of nodes of each on the
	// graph page (none on a drain's page, which shows a past step).
	Legend []legendItem
}

type legendItem struct {
	Status view.Status
	N      string
}

// legend is the legend of counts; without numbers when numbers is false.
func legend(counts []view.Count, numbers bool) []legendItem {
	var out []legendItem
	for _, c := range counts {
		it := legendItem{Status: c.Status}
		if numbers {
			it.N = strconv.Itoa(c.N)
		}
		out = append(out, it)
	}
	return out
}

type nodeProblem struct {
	Node, Href string
	store.Problem
}

// svgGraph is the picture: boxes and curves with their links, classes
// and titles.
type svgGraph struct {
	Width, Height int
	Version       int
	Nodes         []svgNode
	Edges         []*view.PlacedEdge
}

type svgNode struct {
	*view.Placed
	Href, Class, Title string
	Status             view.NodeStatus
	TX, TY             int // where the label goes
}

// nodeHref is the link to a node's page.
func nodeHref(node string) string { return "/ui/world/node/" + url.PathEscape(node) }

// picture is the graph p laid out with the standings st.
func picture(p *view.GraphPage, st map[string]view.NodeStatus, current string) *svgGraph {
	l := p.Layout
	g := &svgGraph{Width: l.Width, Height: l.Height, Version: p.Version, Edges: l.Edges}
	for _, n := range l.Nodes {
		s := st[n.ID]
		g.Nodes = append(g.Nodes, svgNode{Placed: n, Href: nodeHref(n.ID), Status: s,
			Class: nodeClass(n, s, n.ID == current), Title: nodeTitle(n, s), TX: n.X + 10, TY: n.Y + n.H/2 + 4})
	}
	return g
}

// nodeClass is a box's classes: world.js computes the same.
func nodeClass(n *view.Placed, s view.NodeStatus, current bool) string {
	c := "node s-" + string(s.Status) + " k-" + n.Kind
	if n.Entry {
		c += " entry"
	}
	if s.Failing {
		c += " failing"
	}
	if current {
		c += " current"
	}
	return c
}

// nodeTitle is a box's tooltip: world.js computes the same.
func nodeTitle(n *view.Placed, s view.NodeStatus) string {
	t := n.Label + " (" + n.Kind + "): " + string(s.Status)
	if s.Drain > 0 {
		t += fmt.Sprintf(", drain %d step %d", s.Drain, s.Seq)
	}
	if s.Why != "" {
		t += ": " + s.Why
	}
	if s.Failing {
		t += "; its files fail verification"
	}
	return t
}

const listedDrains = 20

func (wp *worldPages) graph(w http.ResponseWriter, r *http.Request) {
	world, d, err := wp.world()
	if err != nil {
		wp.s.fail(w, http.StatusInternalServerError, "World model", err.Error())
		return
	}
	if d == nil {
		d = wp.graphData(world)
	}
	wp.s.render(w, http.StatusOK, "world.tmpl", "world", "world", d)
}

// graphData is the graph page of world.
func (wp *worldPages) graphData(world *view.World) *worldData {
	p := world.GraphPage()
	d := &worldData{Page: p, SVG: picture(p, p.Status, ""), Extra: p.Extra, Legend: legend(p.Counts, true),
		StateDir: shownPath(wp.s.o.Graph.Root, p.StateDir)}
	if wp.s.o.GraphErr != nil {
		d.Wiring = wp.s.o.GraphErr.Error()
	}
	d.Drains = world.Drains()
	if len(d.Drains) > listedDrains {
		d.More = len(d.Drains) - listedDrains
		d.Drains = d.Drains[:listedDrains]
	}
	d.Cost = p.ByNode
	if len(d.Cost) > 15 {
		d.Cost = d.Cost[:15]
	}
	d.Problems = problemsByNode(world, p.Problems)
	return d
}

// shownPath is dir relative to root when it lies under root, else as it
// is.
func shownPath(root, dir string) string {
	r, err1 := filepath.Abs(root)
	d, err2 := filepath.Abs(dir)
	if err1 != nil || err2 != nil {
		return dir
	}
	if rel, err := filepath.Rel(r, d); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return filepath.ToSlash(rel)
	}
	return dir
}

// problemsByNode names the node of each problem (the one whose
// directory holds its file).
func problemsByNode(world *view.World, ps []store.Problem) []nodeProblem {
	var out []nodeProblem
	for _, p := range ps {
		id := world.NodeOf(p.File)
		out = append(out, nodeProblem{Node: id, Href: nodeHref(id), Problem: p})
	}
	return out
}

// status answers what moved since ?since=V, as JSON.
func (wp *worldPages) status(w http.ResponseWriter, r *http.Request) {
	world, d, err := wp.world()
	if err != nil {
		http.Error(w, "ui: "+err.Error(), http.StatusInternalServerError)
		return
	}
	if d != nil {
		http.Error(w, "ui: "+d.Problem, http.StatusNotFound)
		return
	}
	since, err := strconv.Atoi(r.URL.Query().Get("since"))
	if err != nil || since < 0 {
		http.Error(w, "ui: ?since=VERSION (a number, the data-version of the page) is required", http.StatusBadRequest)
		return
	}
	c := world.Since(since)
	out := struct {
		*view.Changes
		Titles  map[string]string `json:"titles"`
		Classes map[string]string `json:"classes"`
	}{c, map[string]string{}, map[string]string{}}
	l := world.GraphPage().Layout
	for _, s := range c.Nodes {
		if n := l.Node(s.ID); n != nil {
			out.Titles[s.ID], out.Classes[s.ID] = nodeTitle(n, s), nodeClass(n, s, false)
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	json.NewEncoder(w).Encode(out)
}

// nodeData is a node page's data.
type nodeData struct {
	P *view.NodePage
	// Inputs link each edge's producer.
	Inputs      []edgeLink
	Subscribers []link
	Receipts    []receiptRow
	// From and To are the versions diffed (the last two by default);
	// Diff is their changes, DiffErr why there are none.
	From, To string
	Diff     []view.Change
	DiffErr  string
	Failing  bool
}

type link struct{ Text, Href string }

type edgeLink struct {
	Input, Facet, Rule string
	Producer           link
}

type receiptRow struct {
	view.ReceiptRow
	Causes []causeRow
}

type causeRow struct {
	view.Cause
	Href string
}

func (wp *worldPages) node(w http.ResponseWriter, r *http.Request) {
	world, d, err := wp.world()
	if err != nil {
		wp.s.fail(w, http.StatusInternalServerError, "World model", err.Error())
		return
	}
	if d != nil {
		wp.s.fail(w, http.StatusNotFound, "World model", d.Problem)
		return
	}
	id := r.PathValue("id")
	p, err := world.Node(id)
	if errors.Is(err, view.ErrNoNode) {
		wp.s.fail(w, http.StatusNotFound, "Node "+id, err.Error())
		return
	}
	if err != nil {
		wp.s.fail(w, http.StatusInternalServerError, "Node "+id, err.Error())
		return
	}
	nd := &nodeData{P: p, Failing: len(p.Problems) > 0 || p.LedgerError != ""}
	for _, e := range p.Inputs {
		nd.Inputs = append(nd.Inputs, edgeLink{Input: e.Input, Facet: e.Facet, Rule: e.Rule, Producer: link{e.Producer, nodeHref(e.Producer)}})
	}
	for _, s := range p.Subscribers {
		nd.Subscribers = append(nd.Subscribers, link{s, nodeHref(s)})
	}
	for _, row := range p.Receipts {
		rr := receiptRow{ReceiptRow: row}
		for _, c := range row.Wake.Causes {
			rr.Causes = append(rr.Causes, causeRow{Cause: c, Href: nodeHref(c.Producer)})
		}
		nd.Receipts = append(nd.Receipts, rr)
	}
	q := r.URL.Query()
	nd.From, nd.To = q.Get("from"), q.Get("to")
	if nd.From == "" && nd.To == "" && len(p.Versions) >= 2 {
		nd.From, nd.To = p.Versions[len(p.Versions)-2].Address, p.Versions[len(p.Versions)-1].Address
	}
	if nd.From != "" || nd.To != "" {
		nd.Diff, err = world.VersionDiff(id, nd.From, nd.To)
		if err != nil {
			nd.DiffErr = err.Error()
		}
	}
	wp.s.render(w, http.StatusOK, "world.tmpl", "world", "world", &worldData{Node: nd})
}

// replayData is a drain page's replay: the steps with links, the step
// shown, and the steps as JSON for world.js.
type replayData struct {
	*view.DrainReplay
	Step       int
	Steps      []stepRow
	First      string
	Prev, Next string
	Last       string
	// Steps lists a window of the steps around the one shown; Earlier
	// and Later link to the steps before and after it ("" for none).
	Earlier, Later string
	// Data is the replay for world.js (the template writes it as JSON).
	Data any
}

type stepRow struct {
	view.Step
	Href    string
	Current bool
	Causes  []causeRow
}

func (wp *worldPages) drain(w http.ResponseWriter, r *http.Request) {
	world, d, err := wp.world()
	if err != nil {
		wp.s.fail(w, http.StatusInternalServerError, "World model", err.Error())
		return
	}
	if d != nil {
		wp.s.fail(w, http.StatusNotFound, "World model", d.Problem)
		return
	}
	n, err := strconv.Atoi(r.PathValue("n"))
	if err != nil || n < 1 {
		wp.s.fail(w, http.StatusNotFound, "Drain "+r.PathValue("n"), "a drain is named by its number, from 1: /ui/world/drain/N")
		return
	}
	rep, err := world.Drain(n)
	if err != nil {
		code := http.StatusNotFound
		if errors.As(err, new(*store.DamageError)) {
			code = http.StatusInternalServerError // a ledger that does not check
		}
		wp.s.fail(w, code, fmt.Sprintf("Drain %d", n), err.Error())
		return
	}
	step := len(rep.Steps)
	if v := r.URL.Query().Get("step"); v != "" {
		if k, err := strconv.Atoi(v); err == nil && k >= 0 && k <= len(rep.Steps) {
			step = k
		}
	}
	p := world.GraphPage()
	current := ""
	if step > 0 {
		current = rep.Steps[step-1].R.Node
	}
	base := fmt.Sprintf("/ui/world/drain/%d?step=", n)
	rd := &replayData{DrainReplay: rep, Step: step, First: base + "0", Last: base + strconv.Itoa(len(rep.Steps))}
	if step > 0 {
		rd.Prev = base + strconv.Itoa(step-1)
	}
	if step < len(rep.Steps) {
		rd.Next = base + strconv.Itoa(step+1)
	}
	lo, hi := stepWindow(step, len(rep.Steps))
	if lo > 0 {
		rd.Earlier = base + strconv.Itoa(lo)
	}
	if hi < len(rep.Steps) {
		rd.Later = base + strconv.Itoa(hi+1)
	}
	for _, st := range rep.Steps[lo:hi] {
		row := stepRow{Step: st, Href: base + strconv.Itoa(st.N), Current: st.N == step}
		for _, c := range st.Wake.Causes {
			row.Causes = append(row.Causes, causeRow{Cause: c, Href: nodeHref(c.Producer)})
		}
		rd.Steps = append(rd.Steps, row)
	}
	rd.Data = replayJSON(rep, p)
	wd := &worldData{Page: p, SVG: picture(p, rep.At(step), current), Replay: rd, Legend: legend(p.Counts, false)}
	wp.s.render(w, http.StatusOK, "world.tmpl", "world", "", wd)
}

// stepsShown is how many steps a drain's page lists at once.
const stepsShown = 100

// stepWindow is the steps [lo, hi) a drain's page lists when it shows
// step k of n: stepsShown of them, k among them.
func stepWindow(k, n int) (lo, hi int) {
	lo = max(0, k-stepsShown/2)
	hi = min(n, lo+stepsShown)
	lo = max(0, hi-stepsShown)
	return lo, hi
}

// replayJSON is what world.js steps through: each node's class and
// title before the drain, and those each step moves.
func replayJSON(rep *view.DrainReplay, p *view.GraphPage) any {
	type change struct {
		ID    string `json:"id"`
		Class string `json:"class"`
		Title string `json:"title"`
	}
	type step struct {
		Node    string   `json:"node"`
		Changes []change `json:"changes"`
	}
	l := p.Layout
	conv := func(ss []view.NodeStatus) []change {
		out := []change{}
		for _, s := range ss {
			if n := l.Node(s.ID); n != nil {
				out = append(out, change{s.ID, nodeClass(n, s, false), nodeTitle(n, s)})
			}
		}
		return out
	}
	v := struct {
		Before []change `json:"before"`
		Steps  []step   `json:"steps"`
	}{Before: conv(rep.Before)}
	for _, st := range rep.Steps {
		v.Steps = append(v.Steps, step{Node: st.R.Node, Changes: conv(st.Changes)})
	}
	return v
}

package graph

import (
	"fmt"
	"slices"
	"strings"

	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/spec"
)

// Routes a gateway declares (decided). A top-level item of a gateway's
// ### Receives whose first line is `METHOD /path` (the whole item or the
// path may be in backticks: `- POST /inbox/deliver`) declares an HTTP
// route: `prose serve` answers a request at that path as it answers
// POST /trigger/ID for the gateway, the request's body being the event.
// Further lines of the item describe it and are not read.
//
//   - Methods: POST, PUT and PATCH are served. Any other method of HTTP
//     (GET, HEAD, DELETE, OPTIONS, ...) is an error at the item: a GET
//     carries no body and is sent without meaning a change (a crawler, a
//     link preview, a prefetch), so a world that woke on one would render
//     for what nobody sent; a webhook declared so would never be served.
//     A method in small letters (`post /x`) is an error naming the
//     capitals (HTTP methods are case-sensitive).
//   - Paths: a path begins with /, and is matched exactly, byte for byte
//     as the request's (decoded) path: no parameters (`{id}`), wildcards,
//     query, fragment, percent-encoding, or empty, `.` or `..` segment.
//     Anything else on the item's first line after the path is an error
//     (write the route alone, describe it on the next line or item).
//   - An item whose first word is a method in capitals followed by one
//     word holding a / that does not begin with one (`POST webhooks/x`)
//     is an error: it reads as a route and would be served at no path.
//     Prose (`POST requests from GitHub arrive here`) declares nothing.
//   - One path belongs to one gateway: a second gateway declaring a path
//     declared before (file order) is an error at its item, whatever the
//     methods; one gateway may declare a path with several methods.
//   - A path at or under one of serve's own endpoints (ServeEndpoints)
//     is an error at its item: serve would answer it itself.
//
// Every one is an error, not a warning: a route prose does not serve is
// a webhook whose events are lost while the world reports itself
// current. A route is served behind the same Authorization header as
// every other endpoint (a server beyond loopback needs the token; the
// token is never read from the URL).
type Route struct {
	Method string
	Path   string
	// Pos is where the item's method is written.
	Pos diag.Position

	file *diag.File
	at   diag.Pos
}

// String is the route as written: "POST /inbox/deliver".
func (r Route) String() string { return r.Method + " " + r.Path }

// Diagnostic codes of routes.
const (
	// CodeRoute is a route item prose cannot serve (its method, its
	// path, or words after it).
	CodeRoute = "graph/route"
	// CodeRouteTaken is a route whose path another gateway, or serve
	// itself, answers.
	CodeRouteTaken = "graph/route-taken"
)

// RouteMethods are the methods a route is served with.
var RouteMethods = []string{"POST", "PUT", "PATCH"}

// httpMethods are the methods of HTTP (RFC 9110, and PATCH): an item
// beginning with one reads as a route.
var httpMethods = []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "CONNECT", "TRACE"}

// ServeEndpoints are the paths prose serve answers itself (serve's
// HTTP API and its page at /ui): a route at one of them or under it
// (/trigger/x) is taken.
var ServeEndpoints = []string{"/health", "/status", "/nodes", "/receipts", "/graph", "/trigger", "/drains", "/metrics", "/ui"}

// ServeEndpoint is the endpoint of serve that urlPath is or is under,
// "" when none.
func ServeEndpoint(urlPath string) string {
	for _, e := range ServeEndpoints {
		if urlPath == e || strings.HasPrefix(urlPath, e+"/") {
			return e
		}
	}
	return ""
}

// Routes are the routes n's ### Receives declares, in order (none for a
// node that is no gateway).
func (n *Node) Routes() []Route { return n.routes }

// RouteAt is the gateway a route of g is declared at urlPath by, with
// the routes it declares there (their methods); nil when none.
func (g *Graph) RouteAt(urlPath string) (*Node, []Route) {
	for _, n := range g.Nodes {
		var at []Route
		for _, r := range n.routes {
			if r.Path == urlPath {
				at = append(at, r)
			}
		}
		if at != nil {
			return n, at
		}
	}
	return nil, nil
}

// AllRoutes lists every route of g with its gateway's id, in node
// order: "POST /inbox/deliver (inbox-stream)".
func (g *Graph) AllRoutes() []string {
	var out []string
	for _, n := range g.Nodes {
		for _, r := range n.routes {
			out = append(out, r.String()+" ("+n.ID+")")
		}
	}
	return out
}

// routesOf reads the routes s's ### Receives declares, reporting those
// prose cannot serve (which it leaves out).
func routesOf(s *spec.Spec, diags *diag.List) []Route {
	var out []Route
	for _, sec := range s.Sections {
		if !strings.EqualFold(strings.TrimSpace(sec.Heading), "receives") {
			continue
		}
		off := int(sec.BodyPos)
		for raw := range strings.SplitAfterSeq(sec.Body, "\n") {
			line := strings.TrimRight(raw, "\r\n")
			if strings.HasPrefix(line, "- ") || strings.HasPrefix(line, "* ") {
				at := diag.Pos(off + 2 + leading(line[2:]))
				if r, ok := routeItem(s.File, at, strings.TrimSpace(line[2:]), diags); ok {
					out = append(out, r)
				}
			}
			off += len(raw)
		}
	}
	return out
}

// notGatewayRoutes reports a route in the ### Receives of s, which is no
// gateway: only a gateway takes events, so none would be served.
func notGatewayRoutes(s *spec.Spec, diags *diag.List) {
	var scratch diag.List
	if rs := routesOf(s, &scratch); len(rs) > 0 {
		diags.Errorf(rs[0].file, rs[0].at, CodeRoute, "route %s: only a gateway takes events, and this node is a %s, so no request at it would be served: make the node kind: gateway, or declare the route in the gateway that takes its events", rs[0], s.Kind)
	}
}

// routeItem reads the first line of one item, at, as a route: ok is
// false for an item that is no route, or one reported.
func routeItem(f *diag.File, at diag.Pos, text string, diags *diag.List) (Route, bool) {
	if len(text) > 1 && text[0] == '`' && strings.Count(text, "`") == 2 && strings.HasSuffix(text, "`") {
		text, at = text[1:len(text)-1], at+1
	}
	words := strings.Fields(text)
	if len(words) == 0 || !slices.Contains(httpMethods, strings.ToUpper(words[0])) {
		return Route{}, false
	}
	method := words[0]
	var target string
	if len(words) > 1 {
		target = strings.Trim(words[1], "`")
	}
	upper := method == strings.ToUpper(method)
	switch {
	case !strings.HasPrefix(target, "/") && upper && len(words) == 2 && strings.Contains(target, "/"):
		diags.Errorf(f, at, CodeRoute, "route %q: a route's path begins with /: write `%s /%s`", text, method, target)
		return Route{}, false
	case !strings.HasPrefix(target, "/"):
		return Route{}, false // prose: "POST requests from the feed"
	case !upper:
		diags.Errorf(f, at, CodeRoute, "route %q: HTTP methods are written in capitals: write `%s %s`", text, strings.ToUpper(method), target)
		return Route{}, false
	case len(words) > 2:
		diags.Errorf(f, at, CodeRoute, "route %q: write the route alone on its item (`%s %s`), its description on the next line or item", text, method, target)
		return Route{}, false
	case !slices.Contains(RouteMethods, method):
		diags.Errorf(f, at, CodeRoute, "route %q: prose serve takes a route's event by POST, PUT or PATCH only, so a %s here would never reach the gateway: declare `POST %s`, and have the sender post the event there",
			text, method, target)
		return Route{}, false
	}
	if why := badRoutePath(target); why != "" {
		diags.Errorf(f, at, CodeRoute, "route %q: %s", text, why)
		return Route{}, false
	}
	return Route{Method: method, Path: target, Pos: f.Position(at), file: f, at: at}, true
}

// badRoutePath says why a route cannot be served at p ("" when it can).
func badRoutePath(p string) string {
	if i := strings.IndexAny(p, "?#"); i >= 0 {
		return "a route is matched on its path alone: leave out " + map[byte]string{'?': "the query", '#': "the fragment"}[p[i]] + " (" + p[i:] + ")"
	}
	if strings.ContainsAny(p, "{}*<>") {
		return "a route's path is matched exactly: it takes no parameter or wildcard (" + p + "); give the varying part in the event"
	}
	if p != "/" {
		for seg := range strings.SplitSeq(strings.TrimSuffix(p[1:], "/"), "/") {
			if seg == "" || seg == "." || seg == ".." {
				return fmt.Sprintf("a route's path has no empty, . or .. segment (%s): HTTP clients and servers clean such paths, so it would never be matched", p)
			}
		}
	}
	for _, c := range p {
		if !routeChar(c) {
			return fmt.Sprintf("a route's path holds letters, digits and - . _ ~ : @ ! $ & ' ( ) + , ; = / only, written unencoded: %q is not one", c)
		}
	}
	return ""
}

func routeChar(c rune) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.ContainsRune("-._~:@!$&'()+,;=/", c)
}

// checkRoutes reports each route at a path another gateway declared
// before it (in file order: g.Nodes before order), or at one of serve's
// own endpoints; the taken route is dropped, so no request reaches it.
func (g *Graph) checkRoutes() diag.List {
	var out diag.List
	owner := map[string]*Node{}
	first := map[string]Route{}
	for _, n := range g.Nodes {
		kept := n.routes[:0]
		for _, r := range n.routes {
			if e := ServeEndpoint(r.Path); e != "" {
				out.Errorf(r.file, r.at, CodeRouteTaken, "route %s is prose serve's own endpoint %s (or under it): serve would answer it itself; give the route another path", r, e)
				continue
			}
			if o := owner[r.Path]; o != nil && o != n {
				out.Errorf(r.file, r.at, CodeRouteTaken, "route %s: path %s is also gateway %s's route (%s, %s): one path reaches one gateway; give one of them another path", r, r.Path, o.Label(), first[r.Path], first[r.Path].Pos)
				continue
			}
			if o := owner[r.Path]; o == n && slices.ContainsFunc(kept, func(k Route) bool { return k.Method == r.Method && k.Path == r.Path }) {
				out.Warnf(r.file, r.at, CodeRouteTaken, "route %s is declared twice by %s: leave out one", r, n.Label())
				continue
			}
			if owner[r.Path] == nil {
				owner[r.Path], first[r.Path] = n, r
			}
			kept = append(kept, r)
		}
		n.routes = kept
	}
	return out
}

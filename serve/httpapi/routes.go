package httpapi

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/proselang/prose/world/graph"
)

// Declared routes (decided). A request at a path a gateway's ### Receives
// declares (`- POST /inbox/deliver`, graph.Route) is answered as
// POST /trigger/ID for that gateway: its body is the event, with the
// same size limit, checks, durable queueing and answer. The route is
// looked up in the graph the backend serves at the request, so a route
// an edit adds or removes is served, or no longer, from the reload that
// reads the edit (in the drain the edit queues), with no restart. A route sits
// behind the same Authorization header as every endpoint (Auth); no
// token is read from the URL. A method the gateway does not declare at
// its path is a 405 naming the ones it does. A path neither serve nor a
// route answers is a 404 naming the routes declared.

// routed serves the declared routes of h's graph in front of mux, and
// the 404 of a path neither answers.
func (h *handler) routed(mux *http.ServeMux) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if graph.ServeEndpoint(r.URL.Path) != "" {
			mux.ServeHTTP(w, r) // serve's own, unchanged
			return
		}
		g := h.s.Graph()
		if n, at := g.RouteAt(r.URL.Path); n != nil {
			var methods []string
			for _, rt := range at {
				if rt.Method == r.Method {
					r.SetPathValue("id", n.ID)
					h.trigger(w, r)
					return
				}
				methods = append(methods, rt.Method)
			}
			w.Header().Set("Allow", strings.Join(methods, ", "))
			writeError(w, http.StatusMethodNotAllowed, fmt.Sprintf("%s is gateway %s's route by %s (%s): send the event by %s",
				r.URL.Path, n.Label(), strings.Join(methods, ", "), at[0].Pos, methods[0]))
			return
		}
		if _, pattern := mux.Handler(r); pattern == "" {
			writeError(w, http.StatusNotFound, noRoute(r.URL.Path, g.AllRoutes()))
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// noRoute says that nothing answers at urlPath, naming the routes the
// gateways declare.
func noRoute(urlPath string, routes []string) string {
	msg := fmt.Sprintf("nothing is served at %s: ", urlPath)
	if len(routes) == 0 {
		msg += "no gateway's ### Receives declares a route (`- POST /path`)"
	} else {
		msg += "the routes the gateways declare are " + strings.Join(routes, ", ")
	}
	return msg + " (read from the graph served: a route an edit adds is served once the drain the edit queues has reloaded the project); serve's own endpoints are " +
		strings.Join(graph.ServeEndpoints, ", ") + " (POST /trigger/ID sends an event to any gateway)"
}

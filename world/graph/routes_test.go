package graph

import (
	"strings"
	"testing"
)

// gatewaySrc is a gateway named name whose ### Receives holds items.
func gatewaySrc(name string, items ...string) string {
	return "---\nname: " + name + "\nkind: gateway\n---\n\n# " + name + "\n\n### Continuity\n\n- external-driven\n\n### Receives\n\n" +
		strings.Join(items, "\n") + "\n\n### Maintains\n\n- `latest`: the latest event\n"
}

// A route item of a gateway's Receives is read with its position; prose
// items beside it declare nothing.
func TestRoutesRead(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"hook.prose.md": gatewaySrc("hook", "- POST /webhooks/github/stars", "- Provider: GitHub", "- `PUT /hook/put`",
			"- PATCH `/hook/patch`", "- POST requests from the feed arrive here", "- Event: star"),
	})
	g, diags, err := Load(dir)
	if err != nil || diags.HasErrors() {
		t.Fatal(err, diags)
	}
	rs := g.Node("hook").Routes()
	var got []string
	for _, r := range rs {
		got = append(got, r.String())
	}
	if strings.Join(got, "|") != "POST /webhooks/github/stars|PUT /hook/put|PATCH /hook/patch" {
		t.Fatalf("routes %q", got)
	}
	if p := rs[0].Pos; p.Line != 14 || p.Col != 3 || !strings.HasSuffix(p.File, "hook.prose.md") {
		t.Errorf("first route at %s, want hook.prose.md:14:3", p)
	}
	if n, at := g.RouteAt("/hook/put"); n == nil || n.ID != "hook" || len(at) != 1 || at[0].Method != "PUT" {
		t.Errorf("RouteAt(/hook/put) = %v %v", n, at)
	}
	if n, _ := g.RouteAt("/hook/put/"); n != nil {
		t.Errorf("RouteAt matches a path that is not declared: %s", n.ID)
	}
	text, _ := g.Format("text")
	js, _ := g.Format("json")
	if !strings.Contains(string(text), "routes: POST /webhooks/github/stars, PUT /hook/put, PATCH /hook/patch\n") ||
		!strings.Contains(string(js), `"routes": [`) {
		t.Errorf("prose graph does not show the routes:\n%s\n%s", text, js)
	}
	if all := g.AllRoutes(); len(all) != 3 || all[0] != "POST /webhooks/github/stars (hook)" {
		t.Errorf("AllRoutes = %q", all)
	}
}

// A route prose would not serve is an error at its item, naming the fix.
func TestRouteRefused(t *testing.T) {
	cases := []struct{ item, want string }{
		{"- GET /hook", "declare `POST /hook`"},
		{"- DELETE /hook", "declare `POST /hook`"},
		{"- post /hook", "write `POST /hook`"},
		{"- POST webhooks/x", "write `POST /webhooks/x`"},
		{"- POST /hook the feed", "write the route alone"},
		{"- POST /hook?x=1", "leave out the query"},
		{"- POST /hook/{id}", "no parameter or wildcard"},
		{"- POST /a//b", "no empty, . or .. segment"},
		{"- POST /a/../b", "no empty, . or .. segment"},
		{"- POST /a%20b", "written unencoded"},
		{"- POST /trigger/hook", "serve's own endpoint /trigger"},
		{"- PUT /ui", "serve's own endpoint /ui"},
		{"- POST /health", "serve's own endpoint /health"},
	}
	for _, c := range cases {
		dir := writeFiles(t, map[string]string{"hook.prose.md": gatewaySrc("hook", c.item)})
		g, diags, err := Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		errs := diags.Errors()
		if len(errs) != 1 || !strings.Contains(errs[0].Message, c.want) || errs[0].Position.Line != 14 || errs[0].Position.Col != 3 {
			t.Errorf("%s: %v, want one error at line 14:3 saying %q", c.item, diags, c.want)
			continue
		}
		if rs := g.Node("hook").Routes(); len(rs) != 0 {
			t.Errorf("%s: served as %v", c.item, rs)
		}
	}
}

// Two gateways declaring one path is an error at the second (file
// order), naming the first; one gateway may take a path by two methods.
func TestRouteCollision(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"a.prose.md": gatewaySrc("a", "- POST /hook", "- PUT /hook"),
		"b.prose.md": gatewaySrc("b", "- PATCH /other", "- PUT /hook"),
	})
	g, diags, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	errs := diags.Errors()
	if len(errs) != 1 || errs[0].Code != CodeRouteTaken || !strings.HasSuffix(errs[0].Position.File, "b.prose.md") || errs[0].Position.Line != 15 ||
		!strings.Contains(errs[0].Message, "also gateway a's route (POST /hook, ") {
		t.Fatalf("diagnostics %v, want one error at b.prose.md:15 naming a's route", diags)
	}
	if n, at := g.RouteAt("/hook"); n == nil || n.ID != "a" || len(at) != 2 {
		t.Errorf("/hook reaches %v %v, want a by POST and PUT", n, at)
	}
	if n, _ := g.RouteAt("/other"); n == nil || n.ID != "b" {
		t.Errorf("/other reaches %v, want b", n)
	}
}

// A route in the Receives of a node that is no gateway is an error: no
// request at it would be served.
func TestRouteOfAResponsibility(t *testing.T) {
	src := strings.Replace(gatewaySrc("r", "- POST /hook"), "kind: gateway", "kind: responsibility", 1)
	src = strings.Replace(src, "### Continuity\n\n- external-driven\n\n", "", 1)
	dir := writeFiles(t, map[string]string{"r.prose.md": src})
	_, diags, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, d := range diags.Errors() {
		found = found || d.Code == CodeRoute && strings.Contains(d.Message, "only a gateway takes events") && d.Position.Line == 10
	}
	if !found {
		t.Errorf("diagnostics %v, want the route refused at line 10", diags)
	}
}

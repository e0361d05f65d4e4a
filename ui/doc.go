// Package ui is prose's web page: the journaled runs, the gates they wait
// at, the world model and a served world's queue, as server-rendered HTML
// that updates live over server-sent events. It reads only what prose
// writes (run journals, the world's state directory, serve's queue), so it
// works on a state directory copied from elsewhere; what it changes (a
// gate's answer, a resume, a trigger) it changes through the same library
// calls as the CLI. The page is a view: the library does the work.
//
// Main types: Options, Server, Event. Entry points: New, Server.Handler,
// Server.Close. What a page reads is a library's: journal (runs, gates),
// gate.Record (answers), run.Resume and run.Replay, serve.ReadQueue and
// serve.Due (the serve page), the world's store.
//
// Every page lives under /ui/ (prose serve mounts the handler there;
// prose ui serves it at its root, where / leads to /ui/):
//
//	GET  /ui/                     the runs, newest first (filter, pages)
//	GET  /ui/runs/ID              one run: its calls as a timeline
//	POST /ui/runs/ID/answer       answer a gate (as prose answer)
//	POST /ui/runs/ID/resume       resume a run (as prose resume)
//	POST /ui/runs/ID/replay       replay a run (as prose replay)
//	GET  /ui/serve                queue, connectors, next wakes, a trigger form
//	POST /ui/serve/trigger        queue an event (as POST /trigger/ID)
//	GET  /ui/world...             the world model (world.go)
//	GET  /ui/events?topic=T       server-sent events (see Event)
//	GET  /ui/static/...           the embedded CSS and script
//
// # Files
//
// Routes are registered by file: routes.go calls runRoutes (runs.go),
// gateRoutes (gates.go), serveRoutes (serve.go) and worldRoutes
// (world.go), so each group of pages is one file with its templates.
//
// # Templates
//
// Every page is one file templates/NAME.tmpl that defines "title" and
// "content"; templates/layout.tmpl wraps it (head, nav, footer) and
// templates/partials.tmpl holds what pages share. Server.render executes
// a page by its file name with a page value whose Data is the page's own.
// Pages are readable without script; ui.js only adds live updates.
//
// # Live updates
//
// Server.publish(topic, data) sends an Event to every subscriber of the
// topic; Server.subscribe(topics...) returns a channel of them. GET
// /ui/events streams the topics asked for as server-sent events (event:
// TOPIC, data: JSON). While at least one subscriber listens, a watcher
// polls (Options.Poll) the files prose writes and publishes:
//
//	"runs"  {"ids": [...]}    run journals that appeared or changed
//	"world" {"files": [...]}  files of the state directory that changed
//	"serve" {}                serve's queue file changed
//
// A page names the topics it follows in <body data-live="runs">; ui.js
// then fetches the page again when one arrives and swaps its <main>, or
// hands the event to the handlers registered with proseUI.on(topic, fn).
//
// # Security
//
// Decided, as for prose serve: with Options.Token every request needs it
// (an Authorization: Bearer header, or the cookie that ?token=TOKEN sets
// once, after which the page redirects to the URL without it). Without a
// token (loopback only; the CLI refuses otherwise) a request whose Host is
// not a loopback name is refused, so that a page on another site cannot
// reach the server by rebinding its own name to 127.0.0.1. Every POST must
// come from the page itself: a browser's Sec-Fetch-Site must be
// same-origin (or none), an Origin header must name the server's own
// origin, and the form must carry the server's CSRF token (a random value
// of this process, put in every form).
package ui

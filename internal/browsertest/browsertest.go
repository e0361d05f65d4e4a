// Package browsertest drives a headless Chromium from Go tests: it finds
// the browser (Debian's chromium, or $PROSE_CHROMIUM), starts it with a
// fresh profile and nothing that talks to the network on its own, and
// fails the test on any request a page makes to an address other than
// 127.0.0.1 (or ::1, localhost), which it also blocks.
//
// Where no browser can be found the test is skipped with a message, and
// fails when the environment variable CI is set (CI installs chromium).
//
// Entry points: New (a browser tab's context), Browser (the path),
// Screenshot (a PNG of the page into $PROSE_UI_SCREENSHOTS).
package browsertest

import (
	"context"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// ScreenshotsEnv names the directory Screenshot writes PNGs to; unset,
// Screenshot writes none.
const ScreenshotsEnv = "PROSE_UI_SCREENSHOTS"

// Browser returns the path of a Chromium to drive, or skips t (fails it
// under CI) when there is none.
func Browser(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("PROSE_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := "no Chromium found (apt-get install chromium, or set PROSE_CHROMIUM to a Chrome or Chromium binary)"
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// Tab is a browser tab of a test.
type Tab struct {
	// Ctx runs chromedp actions in the tab.
	Ctx context.Context
	t   testing.TB
	mu  sync.Mutex
	// Requests is every URL the tab asked for, in order.
	requests []string
	// acts counts Fill's actions, to mark each one.
	acts int
}

// New starts a headless Chromium with a fresh profile and returns a tab
// whose requests are checked: one to an address other than loopback
// fails t and is blocked. The browser ends with the test.
func New(t testing.TB) *Tab {
	t.Helper()
	path := Browser(t)
	profile := t.TempDir() // removed after the browser has ended (cleanups run last first)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("metrics-recording-only", true),
		chromedp.Flag("no-pings", true),
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(1280, 900),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(actx, chromedp.WithLogf(func(string, ...any) {}), chromedp.WithErrorf(func(string, ...any) {}))
	t.Cleanup(func() {
		cancelTab()
		cancelAlloc()
	})
	tab := &Tab{Ctx: ctx, t: t}
	paused := chromedp.Events(ctx, fetch.RequestPaused)
	start, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	if _, err := chromedp.Call(start, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*"}}}); err != nil {
		t.Fatalf("starting %s: %v", path, err)
	}
	go func() {
		for e, err := range paused {
			if err != nil {
				return
			}
			tab.decide(ctx, e)
		}
	}()
	return tab
}

// decide lets a loopback request through and blocks any other.
func (tab *Tab) decide(ctx context.Context, e fetch.EventRequestPaused) {
	u := e.Request.URL
	tab.mu.Lock()
	tab.requests = append(tab.requests, u)
	tab.mu.Unlock()
	if !Local(u) {
		tab.t.Errorf("a page asked for %s, which is not on 127.0.0.1: nothing may leave this machine", u)
		chromedp.Call(ctx, fetch.FailRequest, fetch.FailRequestParams{RequestID: e.RequestID, ErrorReason: network.ErrorReasonBlockedByClient})
		return
	}
	chromedp.Call(ctx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: e.RequestID})
}

// Requests is every URL the tab asked for so far.
func (tab *Tab) Requests() []string {
	tab.mu.Lock()
	defer tab.mu.Unlock()
	return append([]string(nil), tab.requests...)
}

// Do runs steps in the tab within a minute, failing t on an error.
func (tab *Tab) Do(steps ...chromedp.Action[chromedp.Void]) {
	tab.t.Helper()
	ctx, cancel := context.WithTimeout(tab.Ctx, 60*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		tab.t.Fatalf("browser: %v", err)
	}
}

// Get runs an action that returns a value, within a minute, failing t on
// an error.
func Get[T any](tab *Tab, a chromedp.Action[T]) T {
	tab.t.Helper()
	ctx, cancel := context.WithTimeout(tab.Ctx, 60*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		tab.t.Fatalf("browser: %v", err)
	}
	return v
}

// Local reports whether a URL a page asked for stays on this machine:
// a loopback host, or a URL with no host at all (data:, about:blank).
func Local(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	switch u.Scheme {
	case "data", "about", "blob":
		return true
	case "http", "https", "ws", "wss":
	default:
		return false
	}
	h := u.Hostname()
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// Screenshot writes a PNG of the whole page to $PROSE_UI_SCREENSHOTS/NAME.png
// when that variable is set (nothing otherwise).
func (tab *Tab) Screenshot(name string) {
	tab.t.Helper()
	dir := os.Getenv(ScreenshotsEnv)
	if dir == "" {
		return
	}
	png := Get(tab, chromedp.FullScreenshot(100))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tab.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		tab.t.Fatal(err)
	}
}

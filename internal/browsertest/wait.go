package browsertest

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/chromedp/chromedp"
)

// WaitFor evaluates the JavaScript expression cond in the page until it
// is true, across page loads (an error while a page loads counts as
// false), and fails t when it is not true within a minute.
func (tab *Tab) WaitFor(cond string) {
	tab.t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		ctx, cancel := context.WithTimeout(tab.Ctx, 5*time.Second)
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool]("Boolean("+cond+")"))
		cancel()
		if err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			html, _ := chromedp.Run(tab.Ctx, chromedp.Evaluate[string]("document.documentElement.outerHTML"))
			tab.t.Fatalf("the page did not come to %s within a minute (last error %v); it shows:\n%s", cond, err, html)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Eval evaluates a JavaScript expression in the page and returns its
// value as T.
func Eval[T any](tab *Tab, expr string) T {
	tab.t.Helper()
	return Get(tab, chromedp.Evaluate[T](expr))
}

// Fill sets each field (a CSS selector) to its value, firing input and
// change as typing would, and then clicks each selector in clicks in
// order, all in one evaluation in the page, so that no live refresh of
// the page falls between finding an element and using it. It retries
// until every element is there, and fails t when they are not within a
// minute.
func (tab *Tab) Fill(fields map[string]string, clicks ...string) {
	tab.t.Helper()
	f, _ := json.Marshal(fields)
	c, _ := json.Marshal(clicks)
	// The evaluation is retried when it fails, and it may fail after it
	// acted (the click navigates): a mark in the tab's session storage,
	// which outlives the navigation, keeps it from acting twice.
	tab.acts++
	mark, _ := json.Marshal(fmt.Sprintf("browsertest-act-%d", tab.acts))
	tab.WaitFor(`(function (fields, clicks, mark) {
  if (sessionStorage.getItem(mark)) { return true; }
  var els = {};
  for (var sel in fields) { els[sel] = document.querySelector(sel); if (!els[sel]) { return false; } }
  var cs = clicks.map(function (sel) { return document.querySelector(sel); });
  if (cs.some(function (e) { return !e; })) { return false; }
  for (var sel in fields) {
    var e = els[sel];
    e.focus();
    e.value = fields[sel];
    e.dispatchEvent(new Event("input", { bubbles: true }));
    e.dispatchEvent(new Event("change", { bubbles: true }));
  }
  sessionStorage.setItem(mark, "1");
  cs.forEach(function (e) { e.click(); });
  return true;
})(` + string(f) + `, ` + string(c) + `, ` + string(mark) + `)`)
}

// Click clicks each selector in order in one evaluation, as Fill does.
func (tab *Tab) Click(sels ...string) {
	tab.t.Helper()
	tab.Fill(nil, sels...)
}

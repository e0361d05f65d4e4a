package browsertest

import (
	"context"
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

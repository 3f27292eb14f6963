// Package browsertest opens the web UI in a real browser, Debian's
// chromium (make test-deps installs it), for the tests that check what a
// user sees there: cmd/crdlab's, which boot a lab, and lab/ui's, which feed
// the UI's server alone.
package browsertest

import (
	"context"
	"os/exec"
	"testing"

	"github.com/chromedp/chromedp"
)

// Chromium returns the path of the machine's Chromium, or skips the test
// saying how to get one.
func Chromium(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "chrome"} {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	t.Skip("SKIP: no Chromium on this machine, so the web UI is not tested in a browser: " +
		"'make test-deps' installs Debian's chromium (apt-get install chromium)")
	return ""
}

// Open opens url in a new Chromium (chrome, its executable) of its own,
// 1500x950, with no background traffic, for the rest of the test.
func Open(t testing.TB, chrome, url string) context.Context {
	t.Helper()
	ctx, cancel := chromedp.NewExecAllocator(context.Background(), append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chrome), chromedp.NoSandbox, chromedp.WindowSize(1500, 950),
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.UserDataDir(t.TempDir()))...)
	t.Cleanup(cancel)
	ctx, cancelTab := chromedp.NewContext(ctx)
	t.Cleanup(cancelTab)
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatalf("chromium could not open %s: %v", url, err)
	}
	return ctx
}

package main

import (
	"bufio"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/crdlab/crdlab/lab/ui/browsertest"
)

// uiURL is the web UI's address with its token, as 'crdlab up' prints it.
var uiURL = regexp.MustCompile(`http://127\.0\.0\.1:[0-9]+/\?token=[0-9a-f]+`)

// artifacts is where a test keeps what CI should show (a screenshot).
func artifacts(t *testing.T, sub string) string {
	dir := os.Getenv("CRDLAB_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join("..", "..", "_artifacts")
	}
	dir = filepath.Join(dir, sub)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// graphBox is a box of the page's object graph.
type graphBox struct {
	UID, Kind, Name, Owner, Node, State string
	Sel                                 bool
}

// TestWebUIInABrowser is issue 15's acceptance as a new user tries it: the
// URL 'crdlab up' prints, opened in Debian's chromium, shows the nodes; a
// Deployment of 3 made with kubectl appears as Deployment → ReplicaSet → 3
// Pods, each linked to its node; a Pod deleted with kubectl is replaced,
// the replicaset controller's CREATE is on the timeline and the graph
// shows the new Pod; its page has its history and YAML; a scenario run
// against the lab shows beside the timeline. A request without the token
// is refused.
func TestWebUIInABrowser(t *testing.T) {
	chrome := browsertest.Chromium(t)
	c := newCLI(t)
	up := c.command("up")
	stdout, err := up.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	up.Stderr = os.Stderr
	if err := up.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = up.Process.Signal(syscall.SIGINT)
		_ = up.Wait()
	})
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if u := uiURL.FindString(sc.Text()); u != "" {
				select {
				case found <- u:
				default:
				}
			}
		}
	}()
	var url string
	select {
	case url = <-found:
	case <-time.After(2 * time.Minute):
		t.Fatal("crdlab up printed no web UI URL within 2 minutes")
	}
	base, token, _ := strings.Cut(url, "?token=")

	t.Run("refused without the token", func(t *testing.T) {
		for _, tc := range []struct {
			what, url, host string
			want            int
		}{
			{"the page without a token", base, "", http.StatusUnauthorized},
			{"the stream without a token", base + "api/stream", "", http.StatusUnauthorized},
			{"the objects with a wrong token", base + "api/state?token=" + strings.Repeat("0", len(token)), "", http.StatusUnauthorized},
			{"another host name (DNS rebinding)", base + "api/state?token=" + token, "crdlab.example:80", http.StatusMisdirectedRequest},
			{"the objects with the token", base + "api/state?token=" + token, "", http.StatusOK},
		} {
			req, _ := http.NewRequest(http.MethodGet, tc.url, nil)
			if tc.host != "" {
				req.Host = tc.host
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Errorf("%s: %d, want %d", tc.what, resp.StatusCode, tc.want)
			}
		}
	})

	ctx := browsertest.Open(t, chrome, url)
	if addr, err := chromedp.Run(ctx, chromedp.Location()); err != nil || strings.Contains(addr, "token") {
		t.Errorf("address bar %q (%v): the page should take the token out of it", addr, err)
	}

	boxes := func() []graphBox {
		b, err := chromedp.Run(ctx, chromedp.Evaluate[[]graphBox](`[...document.querySelectorAll("#graph .box")].map(g => ({
			UID: g.dataset.uid, Kind: g.dataset.kind, Name: g.dataset.name, Owner: g.dataset.owner,
			Node: g.dataset.node, State: g.dataset.state, Sel: g.classList.contains("sel")}))`))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	hasEdge := func(from, to string) bool {
		n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](fmt.Sprintf(`document.querySelectorAll('#graph path[data-from=%q][data-to=%q]').length`, from, to)))
		return n == 1
	}
	// waitFor polls the page until check passes (nil) or fails the test
	// after a minute with the last reason; it returns how long it took.
	waitFor := func(what string, check func() error) time.Duration {
		t.Helper()
		start := time.Now()
		var last error
		for time.Since(start) < time.Minute {
			if last = check(); last == nil {
				return time.Since(start)
			}
			time.Sleep(50 * time.Millisecond)
		}
		t.Fatalf("%s: not within a minute: %v", what, last)
		return 0
	}

	// click clicks the element selector finds, in one step of the page: the
	// graph and the timeline are drawn anew at every change, so a node that
	// chromedp.Click looked up can be gone by the time it clicks it ("Could
	// not find node with given id").
	click := func(what, selector string) {
		t.Helper()
		waitFor(what, func() error {
			found, err := chromedp.Run(ctx, chromedp.Evaluate[bool](fmt.Sprintf(
				`(() => { const e = document.querySelector(%q); if (!e) return false; e.dispatchEvent(new MouseEvent("click", {bubbles: true})); return true; })()`, selector)))
			if err != nil {
				return err
			}
			if !found {
				return fmt.Errorf("nothing matches %s", selector)
			}
			return nil
		})
	}

	waitFor("the page shows the 3 simulated nodes", func() error {
		var nodes []string
		for _, b := range boxes() {
			if b.Kind == "Node" && b.State == "Ready" {
				nodes = append(nodes, b.Name)
			}
		}
		if !slices.Equal(nodes, []string{"lab-node-1", "lab-node-2", "lab-node-3"}) {
			return fmt.Errorf("Ready nodes %v", nodes)
		}
		return nil
	})

	if shown, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`getComputedStyle(document.getElementById("scenario-pane")).display !== "none"`)); err != nil || shown {
		t.Errorf("the scenario pane shows (%v) before any scenario ran", err)
	}

	c.kubectl("", "create", "deployment", "web", "--image=nginx", "--replicas=3")
	var pods []graphBox
	nodeUID := map[string]string{}
	took := waitFor("Deployment → ReplicaSet → 3 Pods on nodes", func() error {
		all := boxes()
		var deploy, rs graphBox
		pods = nil
		for _, b := range all {
			switch {
			case b.Kind == "Node":
				nodeUID[b.Name] = b.UID
			case b.Kind == "Deployment" && b.Name == "web":
				deploy = b
			}
		}
		for _, b := range all {
			if b.Kind == "ReplicaSet" && deploy.UID != "" && b.Owner == deploy.UID {
				rs = b
			}
		}
		for _, b := range all {
			if b.Kind == "Pod" && rs.UID != "" && b.Owner == rs.UID {
				pods = append(pods, b)
			}
		}
		switch {
		case deploy.UID == "":
			return fmt.Errorf("no Deployment web")
		case rs.UID == "" || !hasEdge(deploy.UID, rs.UID):
			return fmt.Errorf("no ReplicaSet linked to the Deployment")
		case len(pods) != 3:
			return fmt.Errorf("%d Pods of the ReplicaSet", len(pods))
		}
		for _, p := range pods {
			if !hasEdge(rs.UID, p.UID) || p.Node == "" || !hasEdge(p.UID, nodeUID[p.Node]) || !strings.Contains(p.State, "Running") {
				return fmt.Errorf("pod %s: state %q on node %q, not linked yet", p.Name, p.State, p.Node)
			}
		}
		return nil
	})
	t.Logf("the graph showed Deployment → ReplicaSet → 3 Running Pods %s after kubectl create returned", took.Round(time.Millisecond))

	deleted := pods[0].Name
	c.kubectl("", "delete", "pod", deleted, "--wait=false")
	var replacement string
	took = waitFor("the replicaset controller's CREATE on the timeline, the replacement in the graph", func() error {
		creates, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('#events li[data-actor="replicaset"][data-verb="CREATE"][data-kind="Pod"]')].map(li => li.dataset.name)`))
		if err != nil {
			return err
		}
		replacement = ""
		for _, name := range creates {
			if !slices.ContainsFunc(pods, func(p graphBox) bool { return p.Name == name }) {
				replacement = name
			}
		}
		if replacement == "" {
			return fmt.Errorf("timeline's replicaset CREATE lines: %v", creates)
		}
		var names []string
		for _, b := range boxes() {
			if b.Kind == "Pod" {
				names = append(names, b.Name)
			}
		}
		if !slices.Contains(names, replacement) || slices.Contains(names, deleted) || len(names) != 3 {
			return fmt.Errorf("graph's Pods %v (deleted %s, replacement %s)", names, deleted, replacement)
		}
		return nil
	})
	t.Logf("the replacement %s was on the timeline and in the graph %s after kubectl delete returned", replacement, took.Round(time.Millisecond))

	// Its page: history with who made each change, managers, YAML.
	click("a click on the replacement's box", fmt.Sprintf(`#graph .box[data-name=%q]`, replacement))
	waitFor("the replacement's page", func() error {
		page, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("drawer").hidden ? "" : document.getElementById("page").innerText`))
		if err != nil {
			return err
		}
		for _, want := range []string{"Pod " + replacement, "replicaset CREATE", "scheduler BIND", "kubelet (simulated) STATUS", "Managed fields", "kube-controller-manager", "nodeName: lab-node-"} {
			if !strings.Contains(page, want) {
				return fmt.Errorf("no %q in the page:\n%s", want, page)
			}
		}
		return nil
	})
	var selected []graphBox
	for _, b := range boxes() {
		if b.Sel {
			selected = append(selected, b)
		}
	}
	if len(selected) != 1 || selected[0].Name != replacement {
		t.Errorf("selected boxes %+v, want the replacement %s", selected, replacement)
	}

	// Clicking a timeline line selects its object in the graph.
	click("a click on the Deployment's timeline line", `#events li[data-kind="Deployment"][data-name="web"]`)
	waitFor("the Deployment selected by its timeline line", func() error {
		for _, b := range boxes() {
			if b.Sel && (b.Kind != "Deployment" || b.Name != "web") {
				return fmt.Errorf("selected %s/%s", b.Kind, b.Name)
			}
			if b.Sel {
				return nil
			}
		}
		return fmt.Errorf("nothing selected")
	})
	_ = chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#close`)))

	// A controller of your own, reporting over the control socket as
	// lab/labtest/trace does, has its lane and its lines.
	checkYourControllersLane(t, ctx, c.stateDir)

	// A scenario run against this lab shows beside the timeline, and its
	// namespace is selected while it runs.
	out := c.mustRun("scenario", "run", "delete-pod")
	if !strings.Contains(out, "PASS delete-pod") {
		t.Fatalf("scenario run delete-pod:\n%s", out)
	}
	waitFor("the scenario's narration, steps and result", func() error {
		type scenarioPane struct {
			Hidden bool
			Text   string
			NS     string
		}
		pane, err := chromedp.Run(ctx, chromedp.Evaluate[scenarioPane](`({Hidden: getComputedStyle(document.getElementById("scenario-pane")).display === "none",
			Text: document.getElementById("scenario").innerText, NS: document.getElementById("ns").value})`))
		if err != nil {
			return err
		}
		for _, want := range []string{"delete-pod", "✓", "PASSED delete-pod"} {
			if pane.Hidden || !strings.Contains(pane.Text, want) {
				return fmt.Errorf("no %q in the scenario pane (hidden %v):\n%s", want, pane.Hidden, pane.Text)
			}
		}
		if !strings.HasPrefix(pane.NS, "crdlab-delete-pod-") {
			return fmt.Errorf("namespace %q selected, want the scenario's", pane.NS)
		}
		return nil
	})

	// The timeline list shows the run's lines in the order the terminal
	// printed them: the lab's one ordered stream.
	printed := terminalLines(out)
	if len(printed) < 10 {
		t.Fatalf("only %d timeline lines in the scenario's output:\n%s", len(printed), out)
	}
	waitFor("the run's lines in the timeline list, in the terminal's order", func() error {
		listed, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#events li")].reverse()
			.filter(li => li.dataset.namespace === document.getElementById("ns").value)
			.map(li => li.dataset.actor + " " + li.dataset.verb + " " + li.dataset.kind.toLowerCase() + "/" + li.dataset.name)`))
		if err != nil {
			return err
		}
		if len(listed) < len(printed) {
			return fmt.Errorf("%d lines listed, %d printed", len(listed), len(printed))
		}
		for i := range printed {
			if listed[i] != printed[i] {
				return fmt.Errorf("line %d: listed %q, printed %q\nlisted:\n  %s\nprinted:\n  %s", i, listed[i], printed[i],
					strings.Join(listed, "\n  "), strings.Join(printed, "\n  "))
			}
		}
		return nil
	})

	// Back to default for the picture: the Deployment, its ReplicaSet and
	// Pods on their nodes, a Pod's page open.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { const ns = document.getElementById("ns");
		ns.value = "default"; ns.dispatchEvent(new Event("change"));
		const w = document.getElementById("window"); w.value = "10000"; return w.dispatchEvent(new Event("change")); })()`)); err != nil {
		t.Fatal(err)
	}
	shot := func(name string) {
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(artifacts(t, "ui"), name)
		if err := os.WriteFile(path, png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot: %s", path)
	}
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`#graph .box[data-name=%q]`, replacement)))); err != nil {
		t.Fatal(err)
	}
	shot("web-ui.png")
	click("a click on the replacement's box", fmt.Sprintf(`#graph .box[data-name=%q]`, replacement))
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`#history details`))); err != nil {
		t.Fatal(err)
	}
	shot("web-ui-object.png")

	// Nothing the page needs comes from elsewhere: every resource it loaded
	// is the lab's own.
	origins, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...new Set(performance.getEntriesByType("resource").map(e => new URL(e.name).origin))]`))
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range origins {
		if o+"/" != base {
			t.Errorf("the page loaded a resource from %s", o)
		}
	}
}

// printedLine is a timeline line of 'crdlab scenario run': time, actor,
// verb, object, detail.
var printedLine = regexp.MustCompile(`^\s*[+-][0-9.]+s  (.*?) +([A-Z]+) +(\S+)(.*)$`)

// terminalLines returns the timeline lines a scenario run printed about
// objects in its namespace, as "actor VERB kind/name", in order, but for
// lines marked late (the UI puts them in their place).
func terminalLines(out string) []string {
	var lines []string
	for _, line := range strings.Split(out, "\n") {
		m := printedLine.FindStringSubmatch(line)
		if m == nil || strings.Contains(m[4], "(late:") || strings.HasPrefix(m[4], " -n ") {
			continue
		}
		switch kind, _, _ := strings.Cut(m[3], "/"); kind {
		case "namespace", "node", "customresourcedefinition", "apiservice", "nodemetrics", "labsummary":
			continue // not in the scenario's namespace
		}
		lines = append(lines, m[1]+" "+m[2]+" "+m[3])
	}
	return lines
}

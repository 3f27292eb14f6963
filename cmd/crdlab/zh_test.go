package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/crdlab/crdlab/lab/lang"
	"github.com/crdlab/crdlab/lab/ui/browsertest"
	"github.com/crdlab/crdlab/scenarios"
)

// zhLocale is a Chinese reader's locale.
const zhLocale = "LANG=zh_CN.UTF-8"

var (
	// A line of the timeline: +0.123s  actor  VERB  object.
	timelineLine = regexp.MustCompile(`^\s*[+-]\d+\.\d{3}s  `)
	seconds      = regexp.MustCompile(`\d+\.\d+s\b`)
	millis       = regexp.MustCompile(`\b\d+ms\b`)
	scenarioNS   = regexp.MustCompile(`(crdlab-[a-z0-9-]+?)-[a-z0-9]{5}\b`)
	podName      = regexp.MustCompile(`\bpod/web-[a-z0-9]+-[a-z0-9]{5}\b`)
	pid          = regexp.MustCompile(`\bpid \d+`)
	localURL     = regexp.MustCompile(`127\.0\.0\.1:\d+`)
	token        = regexp.MustCompile(`token=[0-9a-f]+`)
)

// normalise makes a run's output comparable with a golden file: the
// timeline's lines go (their order and number vary from run to run: the
// caller checks them), and times, pids, ports, tokens, the state dir and
// the random parts of names become placeholders. A note that the cluster
// was still busy after the last step, which depends on the machine's
// speed, goes too.
func normalise(out, stateDir string) (kept string, timeline []string) {
	var b strings.Builder
	for _, line := range strings.Split(out, "\n") {
		if timelineLine.MatchString(line) {
			timeline = append(timeline, line)
			continue
		}
		if strings.Contains(line, "集群仍在忙") || strings.Contains(line, "still busy") {
			continue
		}
		line = strings.ReplaceAll(line, stateDir, "<state-dir>")
		line = seconds.ReplaceAllString(line, "<s>")
		line = millis.ReplaceAllString(line, "<ms>")
		line = scenarioNS.ReplaceAllString(line, "$1-<id>")
		line = podName.ReplaceAllString(line, "pod/web-<id>")
		line = pid.ReplaceAllString(line, "pid <pid>")
		line = localURL.ReplaceAllString(line, "127.0.0.1:<port>")
		line = token.ReplaceAllString(line, "token=<token>")
		b.WriteString(line + "\n")
	}
	return strings.TrimSuffix(b.String(), "\n"), timeline
}

// checkFullWidth fails on half-width punctuation in what crdlab built at
// run time in Chinese (lang.MixedPunctuation): its own lines, not the
// timeline's, whose details quote Kubernetes and the controllers.
func checkFullWidth(t *testing.T, what, out string) {
	t.Helper()
	var own []string
	for _, line := range strings.Split(out, "\n") {
		if !timelineLine.MatchString(line) {
			own = append(own, line)
		}
	}
	if bad := lang.MixedPunctuation(strings.Join(own, "\n")); len(bad) > 0 {
		t.Errorf("crdlab %s: half-width punctuation in Chinese: %q\n%s", what, bad, out)
	}
}

// A Chinese reader's session: 'crdlab up -d' in a zh_CN locale speaks
// Chinese (golden), and so do the scenarios run against it (a golden of
// delete-pod, its timeline's actors glossed), a scenario written only in
// English still runs, every built-in scenario passes in Chinese, and
// status, node, reset, down and the common errors are Chinese.
func TestChineseSession(t *testing.T) {
	c := newCLI(t)
	c.env = []string{zhLocale}

	if out, code := c.run("status"); code != 3 || !strings.Contains(out, "上没有正在运行的实验环境") {
		t.Errorf("status with no lab, in Chinese: exit %d:\n%s", code, out)
	}
	if out, code := c.run("node", "list"); code == 0 || !strings.HasPrefix(out, "错误：状态目录 ") || !strings.Contains(out, "crdlab up -d") {
		t.Errorf("node list with no lab, in Chinese: exit %d:\n%s", code, out)
	}
	if out, code := c.run("scenario", "run", "no-such"); code == 0 || !strings.Contains(out, `错误：没有名为 "no-such" 的场景`) || !strings.Contains(out, "delete-pod") {
		t.Errorf("an unknown scenario, in Chinese: exit %d:\n%s", code, out)
	}
	if out, code := c.run("scenario", "run", "../../scenarios/testdata/invalid/three-problems.yaml"); code == 0 ||
		!strings.Contains(out, "错误：场景文件 ../../scenarios/testdata/invalid/three-problems.yaml 有 3 处问题") || !strings.Contains(out, `three-problems.yaml:11: spec.steps[1]: unknown step "sleep"`) {
		t.Errorf("a bad scenario file, in Chinese: exit %d:\n%s", code, out)
	}

	out := c.mustRun("up", "-d")
	checkFullWidth(t, "up -d", out)
	golden, _ := normalise(out, c.stateDir)
	goldenCompare(t, "up-d-zh", golden+"\n")

	// Against this lab, delete-pod in Chinese: narration, steps, result and
	// explanation; the timeline's actors glossed.
	out, code := c.run("scenario", "run", "delete-pod", "--lang", "zh")
	if code != 0 {
		t.Fatalf("scenario run delete-pod --lang zh: exit %d:\n%s", code, out)
	}
	checkFullWidth(t, "scenario run delete-pod", out)
	golden, tl := normalise(out, c.stateDir)
	goldenCompare(t, "scenario-run-delete-pod-zh", golden+"\n")
	for _, want := range []string{
		"你（场景）                   CREATE  deployment/web",
		"replicaset（副本集控制器）   CREATE  pod/web-",
		"scheduler（调度器）          BIND    pod/web-",
		"kubelet（模拟的节点代理）    STATUS  pod/web-",
	} {
		if !slices.ContainsFunc(tl, func(line string) bool {
			return strings.Contains(strings.Join(strings.Fields(line), " "), strings.Join(strings.Fields(want), " "))
		}) {
			t.Errorf("the timeline lacks %q:\n%s", want, strings.Join(tl, "\n"))
		}
	}

	// A scenario with no Chinese text runs in Chinese: its own text in
	// English, crdlab's words in Chinese. Here the language is the lab's:
	// no --lang, and a locale that names none.
	c.env = []string{"LANG=C.UTF-8"}
	out, code = c.run("scenario", "run", "../../scenarios/testdata/zh/english-only.yaml")
	if code != 0 || !strings.Contains(out, "Apply a ConfigMap, then expect it.") || !strings.Contains(out, "应用 configmap/a") ||
		!strings.Contains(out, "通过 english-only") || !strings.Contains(out, "crdlab's words in Chinese.") {
		t.Errorf("an English-only scenario against a Chinese lab: exit %d:\n%s", code, out)
	}
	c.env = []string{zhLocale}

	// Every built-in scenario passes in Chinese; one at scale (spec.lab)
	// is skipped, saying why in Chinese.
	builtin, err := scenarios.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	atScale := 0
	for _, s := range builtin {
		if s.Spec.Lab != nil {
			atScale++
		}
	}
	out, code = c.run("scenario", "run", "--all", "--lang", "zh")
	checkFullWidth(t, "scenario run --all", out)
	if code != 0 || strings.Count(out, "\n通过 ") != len(builtin)-atScale ||
		(atScale > 0 && !strings.Contains(out, "这个实验环境有 3 个模拟节点")) || !strings.Contains(out, "汇总") {
		t.Errorf("scenario run --all --lang zh: exit %d, want %d 通过, %d skipped at scale:\n%s", code, len(builtin)-atScale, atScale, out)
	}

	out = c.mustRun("status")
	checkFullWidth(t, "status", out)
	if !strings.Contains(out, "  运行时长：") || !strings.Contains(out, "  语言：      zh") || !strings.Contains(out, "受监管的进程") {
		t.Errorf("status in Chinese:\n%s", out)
	}
	out = c.mustRun("node", "stop", "lab-node-2")
	checkFullWidth(t, "node stop", out)
	if !strings.Contains(out, "节点 lab-node-2：kubelet 已停止") {
		t.Errorf("node stop in Chinese:\n%s", out)
	}
	if out := c.mustRun("node", "list"); !strings.Contains(out, "lab-node-2   已停止") || strings.Count(out, "运行中") != 2 {
		t.Errorf("node list in Chinese:\n%s", out)
	}
	if out := c.mustRun("reset"); !strings.Contains(out, "实验环境已重置，用时") {
		t.Errorf("reset in Chinese:\n%s", out)
	}
	// --lang wins over the locale.
	if out := c.mustRun("node", "list", "--lang", "en"); strings.Count(out, "running") != 3 {
		t.Errorf("node list --lang en in a Chinese locale:\n%s", out)
	}
	if out := c.mustRun("down"); !strings.Contains(out, "实验环境已停止") {
		t.Errorf("down in Chinese:\n%s", out)
	}
}

// The web UI in Chinese, as a reader of the seed opens it: a lab started
// with --lang zh opens its page in Chinese, the graph's state words, the
// timeline's controls and actors, and the scenario pane are Chinese; the
// switch goes back to English and is remembered. The screenshot is kept
// in docs/images/ui-zh.png with -update (docs/zh shows it).
func TestWebUIInChinese(t *testing.T) {
	chrome := browsertest.Chromium(t)
	c := newCLI(t)
	up := c.command("up", "--lang", "zh")
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
	said := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			select {
			case said <- sc.Text():
			default:
			}
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
	var first []string
	for len(said) > 0 {
		first = append(first, <-said)
	}
	if s := strings.Join(first, "\n"); !strings.Contains(s, "实验环境已就绪") || !strings.Contains(s, "在浏览器里观察它") {
		t.Errorf("crdlab up --lang zh did not speak Chinese:\n%s", s)
	}

	ctx := browsertest.Open(t, chrome, url)
	waitFor := func(what string, check func() error) {
		t.Helper()
		start := time.Now()
		var last error
		for time.Since(start) < time.Minute {
			if last = check(); last == nil {
				return
			}
			time.Sleep(50 * time.Millisecond) // polling the page
		}
		t.Fatalf("%s: not within a minute: %v", what, last)
	}
	text := func(js string) string {
		s, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	type shown struct{ Header, Timeline, States string }
	page := func() shown {
		s, err := chromedp.Run(ctx, chromedp.Evaluate[shown](`({Header: document.querySelector("header").innerText,
			Timeline: document.querySelector("#timeline-pane h2").innerText + " " + document.querySelector("#graph-pane h2").innerText,
			States: [...document.querySelectorAll("#graph .box")].map(g => g.dataset.kind + " " + g.dataset.name + ": " + g.querySelector(".state").textContent).join("\n")})`))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}

	// The page opens in the lab's language: labels, pane titles, the
	// timeline's controls; the nodes' state words.
	waitFor("the page in Chinese with 3 Ready nodes", func() error {
		p := page()
		for _, want := range []string{"名称空间", "所有类型", "跟随场景", "已连接", "语言"} {
			if !strings.Contains(p.Header, want) {
				return fmt.Errorf("header %q lacks %q", p.Header, want)
			}
		}
		for _, want := range []string{"时间线", "参与者", "全部", "只看这个名称空间", "泳道时间窗", "清除筛选", "对象"} {
			if !strings.Contains(p.Timeline, want) {
				return fmt.Errorf("pane titles and timeline controls %q lack %q", p.Timeline, want)
			}
		}
		if strings.Count(p.States, ": 就绪") != 3 {
			return fmt.Errorf("want 3 nodes 就绪:\n%s", p.States)
		}
		return nil
	})

	c.kubectl("", "create", "deployment", "web", "--image=nginx", "--replicas=3")
	waitFor("the Deployment 就绪 3/3, its Pods 运行中，就绪", func() error {
		p := page()
		if !strings.Contains(p.States, "Deployment web: 就绪 3/3") || strings.Count(p.States, ": 运行中，就绪") != 3 {
			return fmt.Errorf("states:\n%s", p.States)
		}
		return nil
	})
	waitFor("the timeline's actors glossed", func() error {
		if s := text(`[...document.querySelectorAll("#events li .actor")].map(e => e.textContent).join("\n")`); !strings.Contains(s, "replicaset（副本集控制器）") {
			return fmt.Errorf("actors:\n%s", s)
		}
		return nil
	})
	// The timeline's details, as the terminal says them (timeline.DetailIn).
	details := func() string {
		return text(`[...document.querySelectorAll("#events li .detail")].map(e => e.textContent).join("\n")`)
	}
	waitFor("the timeline's details in Chinese", func() error {
		if s := details(); !strings.Contains(s, "运行中，就绪") || strings.Contains(s, "Running, Ready") {
			return fmt.Errorf("details:\n%s", s)
		}
		return nil
	})

	// A scenario run against the lab speaks its language (no --lang, and a
	// locale that names none), and so does the scenario pane.
	out := c.mustRun("scenario", "run", "delete-pod")
	if !strings.Contains(out, "通过 delete-pod") {
		t.Fatalf("scenario run delete-pod against a Chinese lab:\n%s", out)
	}
	waitFor("the scenario pane in Chinese", func() error {
		s := text(`document.getElementById("scenario-pane").innerText`)
		for _, want := range []string{"场景", "删掉的 Pod 又回来了", "控制器 / 和解循环", "名称空间 crdlab-delete-pod-", "应用 deployment/web", "✓", "通过 delete-pod", "没有人让 Kubernetes 重建这个 Pod"} {
			if !strings.Contains(s, want) {
				return fmt.Errorf("no %q in the scenario pane:\n%s", want, s)
			}
		}
		return nil
	})

	// The picture for docs/zh: the default namespace's Deployment, with
	// the scenario's report beside.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { document.getElementById("follow").checked = false;
		const ns = document.getElementById("ns"); ns.value = "default"; return ns.dispatchEvent(new Event("change")); })()`)); err != nil {
		t.Fatal(err)
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(artifacts(t, "ui"), "ui-zh.png")
	if *update {
		path = filepath.Join("..", "..", "docs", "images", "ui-zh.png")
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)

	// The switch: English at once, and remembered on reload.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { const l = document.getElementById("lang"); l.value = "en"; return l.dispatchEvent(new Event("change")); })()`)); err != nil {
		t.Fatal(err)
	}
	check := func(when string) {
		waitFor("the page in English "+when, func() error {
			p := page()
			if !strings.Contains(p.Header, "namespace") || !strings.Contains(p.Timeline, "Timeline") || !strings.Contains(p.States, "Deployment web: Ready 3/3") {
				return fmt.Errorf("header %q, panes %q, states:\n%s", p.Header, p.Timeline, p.States)
			}
			return nil
		})
	}
	check("after the switch")
	waitFor("the timeline's details in English", func() error {
		if s := details(); !strings.Contains(s, "Running, Ready") || strings.Contains(s, "运行中，就绪") {
			return fmt.Errorf("details:\n%s", s)
		}
		return nil
	})
	if err := chromedp.Do(ctx, chromedp.Reload()); err != nil {
		t.Fatal(err)
	}
	check("after a reload")
}

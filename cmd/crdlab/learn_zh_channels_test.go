package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
)

// playNewLessonsInChinese plays the three lessons of issue 38 as a Chinese
// learner meets them, in both places they are shown: a terminal (tmux,
// LANG=zh_CN.UTF-8) and the web UI switched to Chinese. Each lesson's
// first task reads in Chinese in both; Enter gives a hint in the terminal,
// the hint button the next one in the page; the course map shows the
// lesson's progress. scope-columns' and versions-admission's first tasks
// are done with their answer tables' first right answer: ✓ in both, and
// one more task done on the map. operator's needs the learner's Operator
// built (its English play does it): it is left open, and Ctrl-C ends it.
// The answer tables check every verdict in Chinese too (scenarios'
// answers_test.go).
func playNewLessonsInChinese(t *testing.T, c *cli) {
	tm := newTmux(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if _, code := c.run("status"); code != 0 { // run alone (-run), not after the lessons before
		c.mustRun("up", "-d")
	}
	page, parent := openLessonPage(t, c), t
	if _, err := chromedp.Run(page.ctx, chromedp.Evaluate[any](`setLang("zh")`)); err != nil {
		t.Fatal(err)
	}
	waitText, click := page.waitText, page.click
	answers := filepath.Join("..", "..", "scenarios", "lessons", "_answers")

	for _, lesson := range []struct {
		name, title string
		tasks       int
		// task, hint1 and hint2: words of the first task's text and of its
		// first two hints in Chinese (no spaces: the terminal wraps lines).
		task, hint1, hint2 string
		// answer, if any, is the first task's right answer; done is the
		// task's Chinese name.
		answer, done string
	}{
		{name: "scope-columns", title: "作用域", tasks: 3, task: "不过是名称空间级别的",
			hint1: "改成", hint2: "作用域就不能再改了",
			answer: filepath.Join(answers, "scope-columns", "groups-crd.cluster.yaml"), done: "Group，一种集群级别的资源类型"},
		{name: "versions-admission", title: "版本", tasks: 3, task: "密码应当放进",
			hint1: "是一个列表", hint2: "保持原样",
			answer: filepath.Join(answers, "versions-admission", "users-crd.served.yaml"), done: "在 v1beta1 之外提供 v1，并按 v1 存储"},
		{name: "operator", title: "属主引用", tasks: 6, task: "加上它自己的",
			hint1: "子资源和", hint2: "悄悄删掉"},
	} {
		t.Run(lesson.name, func(t *testing.T) {
			page.t = t // its failures are the subtest's
			defer func() { page.t = parent }()
			tm.keys("clear", "Enter")
			tm.run("clear-history", "-t", tm.session)
			tm.keys(fmt.Sprintf("env %s=1 CRDLAB_STATE_DIR=%s LANG=zh_CN.UTF-8 %s learn %s --restart; echo learn-exited-$?", asMainEnv, c.stateDir, self, lesson.name), "Enter")
			l := &lessonRun{t: t, c: c, screen: tm.screen}
			l.waitFor("▶ "+lesson.name, "你的任务")
			l.waitFor("你的任务", lesson.task)
			waitText("#scenario .task .tasktext", lesson.task)

			tm.keys("Enter") // a hint, please
			l.waitFor("你的任务", "提示 1/")
			l.waitFor("提示 1/", lesson.hint1)
			click("#scenario .task button.hint")
			waitText("#scenario .task .hintanswer", lesson.hint2)
			waitText("#scenario .task ol.hints", "提示 2/")

			row := fmt.Sprintf(`#course tr[data-lesson=%q]`, lesson.name)
			// The button opens the map, and closes it when open.
			if closed, err := chromedp.Run(page.ctx, chromedp.Evaluate[bool](`document.getElementById("course-drawer").hidden`)); err != nil {
				t.Fatal(err)
			} else if closed {
				click("#course-open")
			}
			waitText(row+" td.done", fmt.Sprintf("0/%d", lesson.tasks))
			waitText(row, lesson.title)
			if lesson.answer == "" {
				tm.keys("C-c")
				l.waitFor("▶ "+lesson.name, "learn-exited-130")
				return
			}
			c.kubectl("", "apply", "-f", lesson.answer)
			l.waitFor("✓ "+lesson.done, "完成")
			waitText("#scenario .task .check.passed", "✓")
			waitText(row+" td.done", fmt.Sprintf("1/%d", lesson.tasks))
			tm.keys("C-c")
			l.waitFor("▶ "+lesson.name, "learn-exited-130")
		})
	}
}

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
)

// playNewLessonsInTwoLanguages plays the three lessons of issue 38 as an
// English and then a Chinese learner meets them, in both places they are
// shown: a terminal (tmux, LANG=C.UTF-8 then zh_CN.UTF-8) and the web UI
// switched to the language. Each lesson's first task reads in the
// language in both; Enter gives a hint in the terminal,
// the hint button the next one in the page; the course map shows the
// lesson's progress. scope-columns' and versions-admission's first tasks
// are done with their answer tables' first right answer: ✓ in both, and
// one more task done on the map. operator's needs the learner's Operator
// built (its English play does it): it is left open, and Ctrl-C ends it.
// The answer tables check every verdict in Chinese too (scenarios'
// answers_test.go).
func playNewLessonsInTwoLanguages(t *testing.T, c *cli) {
	tm := newTmux(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if _, code := c.run("status"); code != 0 { // run alone (-run), not after the lessons before
		c.mustRun("up", "-d")
	}
	page, parent := openLessonPage(t, c), t
	waitText, click := page.waitText, page.click
	answers := filepath.Join("..", "..", "scenarios", "lessons", "_answers")

	// A lesson's words in one language: of its first task's text and of
	// its first two hints (single words: the lesson wraps its lines), its
	// first task's name, and its title on the course map.
	type words struct{ task, hint1, hint2, done, title string }
	type lessonWords struct {
		name  string
		tasks int
		// answer, if any, is the first task's right answer.
		answer string
		en, zh words
	}
	lessons := []lessonWords{
		{name: "scope-columns", tasks: 3, answer: filepath.Join(answers, "scope-columns", "groups-crd.cluster.yaml"),
			en: words{task: "cluster-scoped", hint1: "Namespaced", hint2: "immutable", done: "Group, a cluster-scoped kind", title: "Scope and columns"},
			zh: words{task: "不过是名称空间作用域的", hint1: "改成", hint2: "作用域就不能再改了", done: "Group，一种集群作用域的资源类型", title: "作用域"}},
		{name: "versions-admission", tasks: 3, answer: filepath.Join(answers, "versions-admission", "users-crd.served.yaml"),
			en: words{task: "company", hint1: "copy", hint2: "storage: false", done: "v1 served beside v1beta1, and stored", title: "Versions and admission"},
			zh: words{task: "密码应当放进", hint1: "是一个列表", hint2: "保持原样", done: "在 v1beta1 之外提供 v1，并按 v1 存储", title: "版本"}},
		{name: "operator", tasks: 6,
			en: words{task: "subresource", hint1: "patch", hint2: "silently", title: "An Operator"},
			zh: words{task: "加上它自己的", hint1: "子资源和", hint2: "悄悄删掉", title: "属主引用"}},
	}
	for _, l := range []struct {
		lang, locale                     string
		yourTask, hint1, hint2, doneWord string
		words                            func(lessonWords) words
	}{
		{"en", "C.UTF-8", "Your task", "Hint 1/", "Hint 2/", "done", func(w lessonWords) words { return w.en }},
		{"zh", "zh_CN.UTF-8", "你的任务", "提示 1/", "提示 2/", "完成", func(w lessonWords) words { return w.zh }},
	} {
		if _, err := chromedp.Run(page.ctx, chromedp.Evaluate[any](fmt.Sprintf(`setLang(%q)`, l.lang))); err != nil {
			t.Fatal(err)
		}
		for _, lesson := range lessons {
			w := l.words(lesson)
			t.Run(l.lang+"/"+lesson.name, func(t *testing.T) {
				page.t = t // its failures are the subtest's
				defer func() { page.t = parent }()
				tm.keys("clear", "Enter")
				tm.run("clear-history", "-t", tm.session)
				tm.keys(fmt.Sprintf("env %s=1 CRDLAB_STATE_DIR=%s LANG=%s %s learn %s --restart; echo learn-exited-$?", asMainEnv, c.stateDir, l.locale, self, lesson.name), "Enter")
				lr := &lessonRun{t: t, c: c, screen: tm.screen}
				lr.waitFor("▶ "+lesson.name, l.yourTask)
				lr.waitFor(l.yourTask, w.task)
				waitText("#scenario .task .tasktext", w.task)

				tm.keys("Enter") // a hint, please
				lr.waitFor(l.yourTask, l.hint1)
				lr.waitFor(l.hint1, w.hint1)
				click("#scenario .task button.hint")
				waitText("#scenario .task .hintanswer", w.hint2)
				waitText("#scenario .task ol.hints", l.hint2)

				row := fmt.Sprintf(`#course tr[data-lesson=%q]`, lesson.name)
				// The button opens the map, and closes it when open.
				if closed, err := chromedp.Run(page.ctx, chromedp.Evaluate[bool](`document.getElementById("course-drawer").hidden`)); err != nil {
					t.Fatal(err)
				} else if closed {
					click("#course-open")
				}
				waitText(row+" td.done", fmt.Sprintf("0/%d", lesson.tasks))
				waitText(row, w.title)
				if lesson.answer != "" {
					c.kubectl("", "apply", "-f", lesson.answer)
					lr.waitFor("✓ "+w.done, l.doneWord)
					waitText("#scenario .task .check.passed", "✓")
					waitText(row+" td.done", fmt.Sprintf("1/%d", lesson.tasks))
				}
				tm.keys("C-c")
				lr.waitFor("▶ "+lesson.name, "learn-exited-130")
			})
		}
	}
}

package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/crdlab/crdlab/lab/labtest/control"
)

// lessonWait bounds each wait for a lesson's output: a task's check polls
// every half second, and the controllers answer within seconds.
const lessonWait = 2 * time.Minute

// Each lesson, played by a learner (kubectl, files, crdlab commands)
// against one lab: every task stays open after a wrong action, with a hint
// to give, and passes after the right one, showing the learner's writes;
// crd-validation is driven through a terminal (tmux); progress survives
// crdlab down and up.
func TestLessons(t *testing.T) {
	c := newCLI(t)
	t.Cleanup(func() { c.run("down") })
	learner := func(t *testing.T) *cli { return &cli{t: t, stateDir: c.stateDir} }

	t.Run("crd-basics", func(t *testing.T) { playCRDBasics(t, learner(t)) })
	t.Run("crd-validation in a terminal", func(t *testing.T) { playCRDValidation(t, learner(t)) })
	t.Run("versions-admission", func(t *testing.T) { playVersionsAdmission(t, learner(t)) })
	t.Run("no-controller", func(t *testing.T) { playNoController(t, learner(t)) })
	t.Run("aggregator", func(t *testing.T) { playAggregator(t, learner(t)) })
	t.Run("reconcile-loop", func(t *testing.T) { playReconcileLoop(t, learner(t)) })
	t.Run("operator", func(t *testing.T) { playOperator(t, learner(t)) })
	t.Run("the web UI shows the task", func(t *testing.T) { playLessonInTheUI(t, learner(t)) })
	t.Run("a lesson file, in Chinese, hints unasked", func(t *testing.T) {
		lc := learner(t)
		file := filepath.Join("testdata", "lesson-color.yaml")
		if out, code := lc.run("scenario", "run", file); code == 0 || !strings.Contains(out, "crdlab learn") {
			t.Errorf("scenario run of a lesson: exit %d:\n%s", code, out)
		}
		l := lc.startLesson(file, "--lang", "zh")
		l.waitFor("你的任务", "用 kubectl 创建 ConfigMap color")
		l.waitFor("你的任务", "提示 1/2") // after hintAfter, unasked
		l.waitFor("你的任务", "提示 2/2")
		lc.kubectl("", "create", "configmap", "color", "--from-literal=color=green")
		if s := l.waitFor("✓ 创建 ConfigMap", "你（kubectl）"); !strings.Contains(s, "完成。你的写操作引发了这些") {
			t.Errorf("the task's summary in Chinese:\n%s", s)
		}
		if out, code := l.wait(); code != 0 {
			t.Errorf("exit %d:\n%s", code, out)
		}
	})
	t.Run("progress survives down and up", func(t *testing.T) {
		lc := learner(t)
		// Half of no-controller, then Ctrl-C.
		l := lc.startLesson("no-controller", "--restart")
		l.waitFor("▶ no-controller", "Your task")
		lc.kubectl("", "apply", "-f", lc.file("no-controller", "webapp-shop.yaml"))
		l.done("a WebApp, with no controller")
		l.waitFor("✓ no Deployment for shop", "Your task")
		l.interrupt()
		if out, code := l.wait(); code != 130 || !strings.Contains(out, "your progress is kept (1 of 2 tasks done)") {
			t.Errorf("interrupted: exit %d, want 130:\n%s", code, out)
		}
		lc.mustRun("down")
		lc.mustRun("up", "-d")
		list := lc.mustRun("learn", "list")
		for _, want := range []string{"crd-basics ", "3/3", "crd-validation ", "2/2", "no-controller ", "aggregator ", "reconcile-loop "} {
			if !strings.Contains(list, want) {
				t.Errorf("learn list lacks %q:\n%s", want, list)
			}
		}
		out := lc.mustRun("learn", "crd-basics")
		if strings.Count(out, "done in an earlier session") < 3 || !strings.Contains(out, "PASS crd-basics") || strings.Contains(out, "Your task") {
			t.Errorf("crd-basics again, after down and up: want its 3 tasks done already:\n%s", out)
		}
		if !regexp.MustCompile(`(?m)^no-controller .* 1/2$`).MatchString(list) {
			t.Errorf("learn list: want no-controller 1/2:\n%s", list)
		}
		// no-controller, half done in the lab before: this lab is new (a
		// lab's cluster is ephemeral) and runs its WebApp controller again,
		// which would pass the second task with no work: the lesson starts
		// over, and the learner does both tasks again.
		l = lc.startLesson("no-controller")
		out = l.waitFor("the lab was started again since your last session", "Create the WebApp shop")
		if !strings.Contains(out, "webapp-operator stopped") || strings.Contains(out, "done in an earlier session") {
			t.Errorf("the lesson did not start over in a new lab:\n%s", out)
		}
		lc.kubectl("", "apply", "-f", lc.file("no-controller", "webapp-shop.yaml"))
		l.done("a WebApp, with no controller")
		l.stillOpen("turn the controller on")
		lc.mustRun("controller", "start", "webapp-operator")
		l.done("turn the controller on")
		if out, code := l.wait(); code != 0 {
			t.Errorf("exit %d:\n%s", code, out)
		}
	})
	t.Run("the new lessons in English and Chinese, in a terminal and in the web UI", func(t *testing.T) {
		playNewLessonsInTwoLanguages(t, learner(t))
	})
}

// lessonRun is a 'crdlab learn' the test plays the learner of: its output
// read from a pipe, or from a tmux pane.
type lessonRun struct {
	t         *testing.T
	c         *cli
	screen    func() string
	wait      func() (string, int)
	interrupt func() // Ctrl-C
}

// startLesson runs 'crdlab learn args...' with its output on a pipe.
func (c *cli) startLesson(args ...string) *lessonRun {
	c.t.Helper()
	cmd := c.command(append([]string{"learn"}, args...)...)
	var mu sync.Mutex
	var buf bytes.Buffer
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		b := make([]byte, 4096)
		for {
			n, err := pr.Read(b)
			mu.Lock()
			buf.Write(b[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	done := make(chan int, 1)
	go func() {
		err := cmd.Wait()
		pw.Close()
		code := 0
		if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
			code = ee.ExitCode()
		}
		done <- code
	}()
	c.t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
		}
	})
	screen := func() string {
		mu.Lock()
		defer mu.Unlock()
		return buf.String()
	}
	return &lessonRun{t: c.t, c: c, screen: screen, interrupt: func() { _ = cmd.Process.Signal(syscall.SIGINT) }, wait: func() (string, int) {
		select {
		case code := <-done:
			<-copied
			return screen(), code
		case <-time.After(lessonWait):
			c.t.Fatalf("crdlab learn %s did not end within %s:\n%s", strings.Join(args, " "), lessonWait, screen())
		}
		return "", 0
	}}
}

// waitFor waits until the lesson's output has want after the text after,
// and returns the output from after on.
func (l *lessonRun) waitFor(after, want string) string {
	l.t.Helper()
	deadline := time.Now().Add(lessonWait)
	for {
		s := l.screen()
		if i := strings.Index(s, after); i >= 0 && strings.Contains(s[i:], want) {
			return s[i:]
		}
		if time.Now().After(deadline) {
			l.t.Fatalf("no %q after %q within %s in the lesson's output:\n%s", want, after, lessonWait, s)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitSince waits until the lesson's output after its first mark bytes has
// each of want, in order.
func (l *lessonRun) waitSince(mark int, want ...string) {
	l.t.Helper()
	deadline := time.Now().Add(lessonWait)
	for {
		rest, found := l.screen()[mark:], true
		for _, w := range want {
			i := strings.Index(rest, w)
			if i < 0 {
				found = false
				break
			}
			rest = rest[i+len(w):]
		}
		if found {
			return
		}
		if time.Now().After(deadline) {
			l.t.Fatalf("no %q in the lesson's output since byte %d within %s:\n%s", want, mark, lessonWait, l.screen()[mark:])
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// stillOpen checks that the task named stays open after what the learner
// just did: two hints asked from another terminal are both answered by
// the waiting task (the second after a check that began after the first,
// so after the learner's action), and the task has not passed.
func (l *lessonRun) stillOpen(task string) {
	l.t.Helper()
	for range 2 {
		out := l.c.mustRun("learn", "hint")
		if strings.Contains(out, "no task is waiting") || strings.Contains(out, "lesson has ended") {
			l.t.Fatalf("task %q: crdlab learn hint answered %q: the task does not wait", task, out)
		}
	}
	if s := l.screen(); strings.Contains(s, "✓ "+task) {
		l.t.Fatalf("task %q passed before the learner's right action:\n%s", task, s)
	}
}

// done waits until the task named passes, and returns what the lesson says
// the learner's writes did (or what happened meanwhile).
func (l *lessonRun) done(task string) string {
	l.t.Helper()
	out := l.waitFor("✓ "+task, "done. What ")
	summary, _, _ := strings.Cut(out, "\n[")
	return summary
}

// file is where the learner finds (and edits) a file of the lesson.
func (c *cli) file(lesson, name string) string {
	return filepath.Join(control.Dir(c.stateDir).Learn(), lesson, name)
}

func (c *cli) write(path, content string) {
	c.t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		c.t.Fatal(err)
	}
}

func playCRDBasics(t *testing.T, c *cli) {
	l := c.startLesson("crd-basics")
	l.waitFor("no lab running", "lab ready")
	l.waitFor("▶ crd-basics", "Your task")
	v1beta1 := c.file("crd-basics", "users-crd.yaml")

	task := "the User CRD, in apiextensions.k8s.io/v1"
	if out := c.kubectlFails("apply", "-f", v1beta1); !strings.Contains(out, `no matches for kind "CustomResourceDefinition" in version "apiextensions.k8s.io/v1beta1"`) {
		t.Errorf("kubectl apply of the seed's v1beta1 CRD: %s", out)
	}
	l.stillOpen(task)
	l.waitFor("Your task", "? Hint 1/4")
	v1 := c.mustRun("crd", "migrate", v1beta1)
	c.kubectl(v1, "apply", "-f", "-")
	if s := l.done(task); !strings.Contains(s, "you (kubectl)  CREATE  customresourcedefinition/users.auth.ilinux.io") {
		t.Errorf("the task's summary lacks the learner's create:\n%s", s)
	}

	task = "a User, found by its short name"
	l.stillOpen(task)
	c.kubectl("", "apply", "-f", c.file("crd-basics", "user-admin.yaml"))
	if out := c.kubectl("", "get", "u"); !strings.Contains(out, "admin") {
		t.Errorf("kubectl get u:\n%s", out)
	}
	if s := l.done(task); !strings.Contains(s, "CREATE  user/admin") {
		t.Errorf("the task's summary lacks the learner's create:\n%s", s)
	}

	task = "kubectl get all lists Users"
	cache := "--cache-dir=" + t.TempDir()
	if out := c.kubectl("", cache, "get", "all"); strings.Contains(out, "admin") {
		t.Errorf("kubectl get all lists a User before its CRD has categories:\n%s", out)
	}
	l.stillOpen(task)
	c.kubectl("", "patch", "crd", "users.auth.ilinux.io", "--type", "merge", "-p", `{"spec":{"names":{"categories":["all"]}}}`)
	if s := l.done(task); !strings.Contains(s, "UPDATE  customresourcedefinition/users.auth.ilinux.io  spec.names.categories") {
		t.Errorf("the task's summary lacks the learner's update:\n%s", s)
	}
	c.kubectl("", cache, "api-resources")
	if out := c.kubectl("", cache, "get", "all"); !strings.Contains(out, "user.auth.ilinux.io/admin") {
		t.Errorf("kubectl get all does not list the User:\n%s", out)
	}
	if out, code := l.wait(); code != 0 || !strings.Contains(out, "PASS crd-basics") {
		t.Errorf("exit %d:\n%s", code, out)
	}
}

func playNoController(t *testing.T, c *cli) {
	l := c.startLesson("no-controller")
	l.waitFor("▶ no-controller", "Your task")
	task := "a WebApp, with no controller"
	l.stillOpen(task)
	c.kubectl("", "apply", "-f", c.file("no-controller", "webapp-shop.yaml"))
	l.done(task)
	l.waitFor("✓ no Deployment for shop", "Your task")
	if out := c.kubectl("", "get", "deployments"); strings.Contains(out, "shop") {
		t.Errorf("a Deployment for shop with no controller:\n%s", out)
	}

	task = "turn the controller on"
	l.stillOpen(task)
	if out := c.mustRun("controller", "list"); !hasLine(out, "webapp-operator", "stopped") {
		t.Errorf("controller list: want webapp-operator stopped:\n%s", out)
	}
	c.mustRun("controller", "start", "webapp-operator")
	if s := l.done(task); !strings.Contains(s, "webapp-operator") || !strings.Contains(s, "deployment/shop") {
		t.Errorf("the task's summary lacks what the operator did:\n%s", s)
	}
	if out, code := l.wait(); code != 0 || !strings.Contains(out, "PASS no-controller") {
		t.Errorf("exit %d:\n%s", code, out)
	}
}

func playAggregator(t *testing.T, c *cli) {
	l := c.startLesson("aggregator")
	l.waitFor("▶ aggregator", "Your task")
	if out := c.kubectlFails("get", "--raw", "/apis/lab.crdlab.dev/v1alpha1"); !strings.Contains(out, "NotFound") {
		t.Errorf("lab.crdlab.dev without its APIService: %s", out)
	}
	task := "register the route"
	skeleton, err := os.ReadFile(c.file("aggregator", "apiservice.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	filled := func(service string) string {
		s := strings.Replace(string(skeleton), "group: ___", "group: lab.crdlab.dev", 1)
		s = strings.Replace(s, "version: ___", "version: v1alpha1", 1)
		s = strings.Replace(s, "namespace: ___", "namespace: kube-system", 1)
		return strings.Replace(s, "name: ___", "name: "+service, 1)
	}
	if out := c.kubectlFails("apply", "-f", c.file("aggregator", "apiservice.yaml")); !strings.Contains(strings.ToLower(out), "invalid") {
		t.Errorf("the skeleton with its blanks: %s", out)
	}
	c.kubectl(filled("crdlab-aggregatd"), "apply", "-f", "-") // a typo: no such Service
	l.stillOpen(task)
	c.kubectl(filled("crdlab-aggregated"), "apply", "-f", "-")
	if s := l.done(task); !strings.Contains(s, "apiservice/v1alpha1.lab.crdlab.dev") {
		t.Errorf("the task's summary lacks the learner's APIService:\n%s", s)
	}
	if out := c.kubectl("", "get", "--raw", "/apis/lab.crdlab.dev/v1alpha1/summaries/lab"); !strings.Contains(out, `"kind":"LabSummary"`) {
		t.Errorf("kubectl get --raw through the learner's route: %s", out)
	}
	if out, code := l.wait(); code != 0 || !strings.Contains(out, "PASS aggregator") {
		t.Errorf("exit %d:\n%s", code, out)
	}
	// The learner's route stays after the lesson (insecureSkipTLSVerify,
	// which the apiserver refuses beside the lab's caBundle): crdlab
	// controller start aggregated-api gives the lab its own back, as the
	// lesson's last words say, and says whose route it took.
	out := c.mustRun("controller", "start", "aggregated-api")
	for _, want := range []string{"APIService v1alpha1.lab.crdlab.dev: ", "over the one you (kubectl) wrote", "spec.insecureSkipTLSVerify was true"} {
		if !strings.Contains(out, want) {
			t.Errorf("crdlab controller start aggregated-api over the learner's route does not say %q:\n%s", want, out)
		}
	}
	route := c.kubectl("", "get", "apiservice", "v1alpha1.lab.crdlab.dev", "-o",
		`jsonpath={.spec.insecureSkipTLSVerify}/{.spec.service.name}/{.status.conditions[?(@.type=="Available")].status}`)
	if route != "/crdlab-aggregated/True" {
		t.Errorf("the route after crdlab controller start aggregated-api: %q, want the lab's (no insecureSkipTLSVerify), available", route)
	}
}

// hasLine reports whether out has a line of exactly these fields.
func hasLine(out string, fields ...string) bool {
	for _, line := range strings.Split(out, "\n") {
		if strings.Join(strings.Fields(line), " ") == strings.Join(fields, " ") {
			return true
		}
	}
	return false
}

// The learner's controller: the lesson's skeleton, completed by the test
// as a learner would, built and run against the lab.
type learnerController struct {
	t   *testing.T
	bin string
	cmd *exec.Cmd
}

// buildController completes the skeleton of reconcile-loop (its
// Reconcile, and with watchOwned also Owns) and builds it.
func buildController(t *testing.T, c *cli, watchOwned bool) *learnerController {
	t.Helper()
	dir := c.file("reconcile-loop", "controller")
	skeleton, err := os.ReadFile(filepath.Join(dir, "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	src := string(skeleton)
	for _, r := range []struct{ old, new string }{
		// The hints, pasted as they are: the skeleton imports strings.
		{"\t\t// TODO(you): fill cm.Data", `		id, _, _ := unstructured.NestedInt64(user.Object, "spec", "userID")
		email, _, _ := unstructured.NestedString(user.Object, "spec", "email")
		groups, _, _ := unstructured.NestedStringSlice(user.Object, "spec", "groups")
		cm.Data = map[string]string{"userID": fmt.Sprint(id), "email": email, "groups": strings.Join(groups, ",")}
		if err := controllerutil.SetControllerReference(user, cm, r.Scheme()); err != nil {
			return err
		}
		// done: fill cm.Data`},
	} {
		if !strings.Contains(src, r.old) {
			t.Fatalf("the skeleton has no %q", r.old)
		}
		src = strings.Replace(src, r.old, r.new, 1)
	}
	if watchOwned {
		src = strings.Replace(src, "\t\tComplete(&UserReconciler", "\t\tOwns(&corev1.ConfigMap{}).\n\t\tComplete(&UserReconciler", 1)
	}
	work := t.TempDir()
	for _, f := range []string{"go.mod", "go.sum"} {
		data, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatalf("the lesson's module: %v", err)
		}
		c.write(filepath.Join(work, f), string(data))
	}
	c.write(filepath.Join(work, "main.go"), src)
	bin := filepath.Join(work, "user-configmaps")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = work
	// The caller's GOFLAGS kept (make's -trimpath): the learner's module is
	// on crdlab's versions, so its packages are those go test compiled.
	build.Env = append(os.Environ(), "GOFLAGS="+strings.TrimSpace(os.Getenv("GOFLAGS")+" -mod=readonly"))
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build of the completed skeleton: %v\n%s", err, out)
	}
	return &learnerController{t: t, bin: bin}
}

func (lc *learnerController) start(c *cli) {
	lc.t.Helper()
	lc.cmd = exec.Command(lc.bin)
	lc.cmd.Env = append(os.Environ(), "KUBECONFIG="+control.Dir(c.stateDir).Kubeconfig())
	lc.cmd.Stdout, lc.cmd.Stderr = io.Discard, io.Discard
	if err := lc.cmd.Start(); err != nil {
		lc.t.Fatal(err)
	}
	lc.t.Cleanup(lc.stop)
}

func (lc *learnerController) stop() {
	if lc.cmd != nil && lc.cmd.ProcessState == nil {
		_ = lc.cmd.Process.Kill()
		_ = lc.cmd.Wait()
	}
}

// Lesson reconcile-loop: the skeleton as given does nothing (the task
// waits); completed, it makes the ConfigMaps; a controller that does not
// watch the ConfigMaps it owns leaves a deleted one deleted, and started
// again (it lists every User) it does not pass either: the check deletes
// the ConfigMap again while it runs; one that watches them passes.
func playReconcileLoop(t *testing.T, c *cli) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command: the learner's controller cannot be built")
	}
	l := c.startLesson("reconcile-loop")
	l.waitFor("▶ reconcile-loop", "Your task")
	task := "a ConfigMap for each User"
	l.stillOpen(task)

	blind := buildController(t, c, false)
	watching := buildController(t, c, true)
	blind.start(c)
	if s := l.done(task); !strings.Contains(s, "user-configmaps") || !strings.Contains(s, "configmap/user-alice") {
		t.Errorf("the task's summary lacks the learner's controller:\n%s", s)
	}

	task = "a deleted ConfigMap comes back by itself"
	l.waitFor("✓ ", "configmap/user-alice: deleted by this check")
	l.stillOpen(task) // the blind controller leaves it deleted
	l.waitFor("configmap/user-alice: deleted by this check", "not back within 10s")
	// Started again, it lists every User and makes the ConfigMap: the
	// check deletes it again, and it stays deleted.
	mark := len(l.screen())
	blind.stop()
	blind.start(c)
	l.waitSince(mark, "configmap/user-alice: deleted by this check;", "Does it watch the objects it owns (Owns)")
	l.stillOpen(task)
	blind.stop()
	watching.start(c)
	l.done(task)
	if out, code := l.wait(); code != 0 || !strings.Contains(out, "PASS reconcile-loop") {
		t.Errorf("exit %d:\n%s", code, out)
	}
}

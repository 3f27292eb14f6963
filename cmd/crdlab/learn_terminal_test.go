package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// tmux drives a lesson in a terminal: it types, and the test reads the
// screen.
type tmux struct {
	t       *testing.T
	session string
}

func newTmux(t *testing.T) *tmux {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed (make test-deps installs it): the lesson's terminal is not tested")
	}
	tm := &tmux{t: t, session: fmt.Sprintf("crdlab-learn-%d", os.Getpid())}
	tm.run("new-session", "-d", "-s", tm.session, "-x", "200", "-y", "50")
	tm.run("set-option", "-t", tm.session, "history-limit", "20000")
	t.Cleanup(func() { _ = exec.Command("tmux", "kill-session", "-t", tm.session).Run() })
	return tm
}

func (tm *tmux) run(args ...string) string {
	tm.t.Helper()
	out, err := exec.Command("tmux", args...).CombinedOutput()
	if err != nil {
		tm.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// keys types keys (tmux key names: Enter, C-c) into the terminal.
func (tm *tmux) keys(keys ...string) {
	tm.t.Helper()
	tm.run(append([]string{"send-keys", "-t", tm.session}, keys...)...)
}

// screen returns what the terminal shows, scrollback included, with
// wrapped lines joined.
func (tm *tmux) screen() string {
	tm.t.Helper()
	return tm.run("capture-pane", "-p", "-J", "-t", tm.session, "-S", "-20000")
}

// The learner runs crdlab learn crd-validation in a terminal: the task is
// shown, Enter shows a hint, a schema that still accepts userID 999999
// leaves the task open (with hints to give), the learner's kubectl apply
// of the right schema passes it and shows their write on the timeline,
// and the CEL task the same.
func playCRDValidation(t *testing.T, c *cli) {
	tm := newTmux(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	tm.keys(fmt.Sprintf("env %s=1 CRDLAB_STATE_DIR=%s LANG=C.UTF-8 %s learn crd-validation; echo learn-exited-$?", asMainEnv, c.stateDir, self), "Enter")
	l := &lessonRun{t: t, c: c, screen: tm.screen}
	l.waitFor("▶ crd-validation", "Your task")
	l.waitFor("Your task", "The seed's tony")

	tm.keys("Enter") // a hint, please
	l.waitFor("Your task", "? Hint 1/5")

	crd := c.file("crd-validation", "users-crd.v1.yaml")
	original, err := os.ReadFile(crd)
	if err != nil {
		t.Fatal(err)
	}
	c.kubectl("", "apply", "-f", c.file("crd-validation", "user-tony.yaml")) // accepted: no schema yet
	withSchema := func(maximum, rules string) string {
		return strings.Replace(string(original), "        x-kubernetes-preserve-unknown-fields: true\n", `        properties:
          spec:
            type: object
            required: [userID, groups]
            properties:
              userID: {type: integer, minimum: 1, maximum: `+maximum+`}
              groups: {type: array, items: {type: string}}
              email: {type: string}
              password: {type: string}
`+rules, 1)
	}
	task := "userID at most 65535, groups required"
	c.write(crd, withSchema("1000000", "")) // wrong: 999999 still goes through
	c.kubectl("", "apply", "-f", crd)
	l.stillOpen(task)
	c.write(crd, withSchema("65535", ""))
	c.kubectl("", "apply", "-f", crd)
	if s := l.done(task); !strings.Contains(s, "you (kubectl)") || !strings.Contains(s, "customresourcedefinition/users.auth.ilinux.io") {
		t.Errorf("the task's summary lacks the learner's apply:\n%s", s)
	}
	// A new tony (the one stored before the schema stays: the apiserver
	// lets an update keep what was invalid already).
	tony, err := os.ReadFile(c.file("crd-validation", "user-tony.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	tony2 := filepath.Join(t.TempDir(), "tony2.yaml")
	c.write(tony2, strings.Replace(string(tony), "name: tony", "name: tony2", 1))
	if out := c.kubectlFails("apply", "-f", tony2); !strings.Contains(out, "spec.userID") || !strings.Contains(out, "spec.groups") {
		t.Errorf("tony with the schema: %s", out)
	}

	task = "an administrator's userID is below 1000 (CEL)"
	cel := func(limit string) string {
		return "            x-kubernetes-validations:\n            - rule: \"!('administrators' in self.groups) || self.userID < " + limit + "\"\n              message: an administrator's userID is below " + limit + "\n"
	}
	c.write(crd, withSchema("65535", cel("10000"))) // wrong: 4242 still goes through
	c.kubectl("", "apply", "-f", crd)
	l.stillOpen(task)
	c.write(crd, withSchema("65535", cel("1000")))
	c.kubectl("", "apply", "-f", crd)
	if s := l.done(task); !strings.Contains(s, "you (kubectl)") {
		t.Errorf("the task's summary lacks the learner's apply:\n%s", s)
	}
	out := l.waitFor("▶ crd-validation", "learn-exited-")
	if !strings.Contains(out, "PASS crd-validation") || !strings.Contains(out, "learn-exited-0") {
		t.Errorf("the lesson did not pass:\n%s", out)
	}
	// The learner's write is on the lesson's timeline, as it happened.
	if !hasTimelineLine(out, "you (kubectl)", "UPDATE", "customresourcedefinition/users.auth.ilinux.io") {
		t.Errorf("no timeline line of the learner's apply:\n%s", out)
	}
}

// hasTimelineLine reports whether out has a timeline line (+1.234s ACTOR
// VERB OBJECT ...) of actor, verb and object.
func hasTimelineLine(out, actor, verb, object string) bool {
	for _, line := range strings.Split(out, "\n") {
		if i := strings.Index(line, actor); i >= 0 && strings.HasPrefix(strings.TrimSpace(line), "+") {
			f := strings.Fields(line[i+len(actor):])
			if len(f) >= 2 && f[0] == verb && f[1] == object {
				return true
			}
		}
	}
	return false
}

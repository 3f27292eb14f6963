package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"unicode"

	"github.com/spf13/cobra"

	"github.com/crdlab/crdlab/lab/labtest/control"
	"github.com/crdlab/crdlab/lab/lang"
	"github.com/crdlab/crdlab/lab/server"
	"github.com/crdlab/crdlab/scenarios"
)

// pseudoLocale is the pseudo-language's locale: every catalogued message
// shows marked, any other bare (lab/lang: Pseudo).
const pseudoLocale = "LC_ALL=xx"

// checkMarked fails on any bare English (lang.Bare) in what crdlab said:
// out, what the command line what printed, is read as the session's
// transcript (the command line, then its output), so that the output of
// crdlab kubectl is kubectl's.
func checkMarked(t *testing.T, what, out string) {
	t.Helper()
	if bare := lang.Bare(what + "\n" + out); len(bare) > 0 {
		t.Errorf("%s: English outside the catalog: %q\n%s", what, bare, out)
	}
}

// commandPaths lists every command under root (cobra's help and completion
// included), as arguments.
func commandPaths(root *cobra.Command) [][]string {
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	var out [][]string
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		out = append(out, path)
		for _, sub := range c.Commands() {
			walk(sub, append(append([]string(nil), path...), sub.Name()))
		}
	}
	walk(root, nil)
	return out
}

// Every command's --help, in the pseudo-language: cobra's words, the
// descriptions, the examples and the flags' descriptions and defaults all
// come from the catalog.
func TestPseudoHelp(t *testing.T) {
	t.Setenv("LC_ALL", "xx")
	t.Setenv("HOME", "/home/you")
	t.Setenv("CRDLAB_STATE_DIR", "")
	paths := commandPaths(newRootCommand())
	if len(paths) < 25 {
		t.Fatalf("only %d commands found: %q", len(paths), paths)
	}
	for _, path := range paths {
		args := append(append([]string(nil), path...), "--help")
		if len(path) > 0 && path[0] == "help" {
			args = path // 'crdlab help' prints the root's help
		}
		var out bytes.Buffer
		cmd := newRootCommand()
		cmd.SetArgs(args)
		cmd.SetOut(&out)
		cmd.SetErr(&out)
		if err := cmd.Execute(); err != nil {
			t.Errorf("crdlab %s: %v", strings.Join(args, " "), err)
			continue
		}
		checkMarked(t, "crdlab "+strings.Join(args, " "), out.String())
	}
}

// The help in Chinese: a Chinese locale, or --lang zh where the command
// has it.
func TestHelpGoldenZh(t *testing.T) {
	t.Setenv("LC_ALL", "zh_CN.UTF-8")
	t.Setenv("HOME", "/home/you")
	t.Setenv("CRDLAB_STATE_DIR", "")
	for name, args := range map[string][]string{
		"help-root-zh":         {"--help"},
		"help-scenario-run-zh": {"scenario", "run", "--help"},
		"help-up-zh":           {"up", "--help", "--lang", "zh"},
	} {
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			cmd := newRootCommand()
			cmd.SetArgs(args)
			cmd.SetOut(&out)
			cmd.SetErr(&out)
			if err := cmd.Execute(); err != nil {
				t.Fatal(err)
			}
			goldenCompare(t, name, out.String())
		})
	}
}

// The main paths in the pseudo-language: the common errors, the scenario
// commands, version, and one lab's session (up -d, status, node list, a
// scenario run, down). Every sentence a learner reads comes from the
// catalog.
func TestPseudoSession(t *testing.T) {
	c := newCLI(t)
	c.env = []string{pseudoLocale}
	check := func(wantCode int, args ...string) string {
		t.Helper()
		out, code := c.run(args...)
		if code != wantCode {
			t.Errorf("crdlab %s: exit %d, want %d\n%s", strings.Join(args, " "), code, wantCode, out)
		}
		checkMarked(t, "crdlab "+strings.Join(args, " "), out)
		return out
	}

	// Nothing runs yet: the common errors, and version.
	check(0, "version")
	check(0, "version", "--lang", "zh")
	check(1, "learn", "hint")
	check(1, "learn", "no-such")
	check(3, "status")
	check(1, "down")
	check(1, "node", "list")
	check(1, "controller", "list")
	check(1, "reset")
	check(1, "scenario", "run", "no-such")
	check(1, "scenario", "run", "delete-pod", "--output", "yaml")
	check(1, "up", "--nodes", "0")
	check(1, "up", "--port", "70000")
	check(1, "up", "--ui-port", "8080", "--no-ui")
	check(1, "up", "--components", "kubelet")
	check(1, "up", "--timeout", "0s")
	check(1, "up", "--no-such-flag")
	check(1, "up", "--nodes", "many")
	check(1, "up", "--nodes")

	// The scenario commands that need no cluster, and crd migrate: the
	// list's header, an explanation with a task's hints, the comments
	// that explain a migration, and its error.
	if out := check(0, "scenario", "list"); !strings.HasPrefix(out, lang.MarkOpen) {
		t.Errorf("crdlab scenario list: the header is not the catalog's:\n%s", out)
	}
	check(0, "scenario", "explain", "delete-pod")
	if out := check(0, "scenario", "explain", "../../scenarios/lessons/crd-basics.yaml"); !strings.Contains(out, "hints)"+lang.MarkClose) {
		t.Errorf("crdlab scenario explain of a lesson: no count of hints:\n%s", out)
	}
	check(0, "scenario", "lint", "../../scenarios/builtin/delete-pod.yaml")
	if out := check(0, "crd", "migrate", "../../fixtures/seed/users-crd-with-validation.yaml"); !strings.Contains(out, "# - spec.versions"+lang.Mark(": ")+lang.MarkOpen+"v1 has no spec.version") {
		t.Errorf("crdlab crd migrate: the changes are not explained from the catalog:\n%s", out)
	}
	check(1, "crd", "migrate", "../../fixtures/samples/user-admin.yaml")

	if testing.Short() {
		return
	}
	// One lab's session.
	check(0, "up", "-d", "--no-ui")
	check(0, "status")
	if out := check(0, "node", "list"); !strings.HasPrefix(out, lang.MarkOpen) {
		t.Errorf("crdlab node list: the header is not the catalog's:\n%s", out)
	}
	check(0, "kubectl", "get", "nodes") // kubectl's own words, headers too
	check(0, "controller", "list")
	check(0, "controller", "stop", "webapp-operator")
	check(0, "controller", "start", "webapp-operator")
	// A scenario that passes and one that fails, with what it found: the
	// runner's lines and the timeline's. An Event's message is Kubernetes'
	// own words.
	run := func(wantCode int, args ...string) {
		t.Helper()
		out, code := c.run(args...)
		if code != wantCode {
			t.Errorf("crdlab %s: exit %d, want %d\n%s", strings.Join(args, " "), code, wantCode, out)
		}
		checkMarked(t, "crdlab "+strings.Join(args, " "), withoutEvents(out))
	}
	run(0, "scenario", "run", "delete-pod")
	run(1, "scenario", "run", "../../scenarios/testdata/failing.yaml")

	// A lesson, played with a wrong and a right answer to each of two
	// tasks: what the check still misses, the learner's writes, and the
	// lesson's end.
	l := c.startLesson("crd-basics")
	l.waitFor("crd-basics", "Your task")
	v1beta1 := c.file("crd-basics", "users-crd.yaml")
	c.kubectlFails("apply", "-f", v1beta1) // the seed's v1beta1: not served
	l.stillOpen("the User CRD")
	v1 := check(0, "crd", "migrate", v1beta1)
	c.kubectl(v1, "apply", "-f", "-")
	l.waitFor("the User CRD, in apiextensions", "done. What ") // the step's line, then its summary
	admin, err := os.ReadFile(c.file("crd-basics", "user-admin.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	c.kubectl(strings.Replace(string(admin), "userID: 1", "userID: 2", 1), "apply", "-f", "-")
	l.waitFor("user-admin", "does not match") // the wrong userID, as the check found it
	c.kubectl(string(admin), "apply", "-f", "-")
	l.waitFor("kubectl get all lists Users", "Your task") // the next task
	l.interrupt()
	out, code := l.wait()
	if code != 130 || !strings.Contains(out, "your progress is kept") {
		t.Errorf("crdlab learn crd-basics, interrupted: exit %d, want 130\n%s", code, out)
	}
	checkMarked(t, "crdlab learn crd-basics", withoutEvents(out))
	check(0, "down")
}

// withoutEvents returns out without its timeline lines of Events, whose
// messages are Kubernetes' own words.
func withoutEvents(out string) string {
	var kept []string
	for _, line := range strings.Split(out, "\n") {
		if !(timelineLine.MatchString(line) && strings.Contains(line, " EVENT ")) {
			kept = append(kept, line)
		}
	}
	return strings.Join(kept, "\n")
}

// The lessons' own errors, in the pseudo-language and in Chinese: a
// progress file that cannot be read or kept, a second lesson on one state
// dir, and 'crdlab learn hint' with no lesson running. What they wrap (an
// error of Go's) is not crdlab's to say.
func TestPseudoLearnErrors(t *testing.T) {
	s, err := scenarios.LoadLesson("crd-basics")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []lang.Lang{lang.Pseudo, lang.ZH} {
		sd := control.Dir(t.TempDir())
		said := func(what string, err error) {
			t.Helper()
			if err == nil {
				t.Errorf("%s (%s): no error", what, l)
				return
			}
			msg := err.Error()
			if inner := errors.Unwrap(err); inner != nil {
				msg = strings.ReplaceAll(msg, inner.Error(), "…")
			}
			if bare := lang.Bare(msg); len(bare) > 0 {
				t.Errorf("%s (%s): English outside the catalog: %q\n%s", what, l, bare, msg)
			}
			if l == lang.ZH && !strings.ContainsFunc(msg, func(r rune) bool { return unicode.Is(unicode.Han, r) }) {
				t.Errorf("%s: not said in Chinese: %s", what, msg)
			}
		}
		if err := os.MkdirAll(sd.Learn(), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(progressFile(sd, "crd-basics"), []byte("{"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := loadProgress(sd, "crd-basics", l)
		said("an unreadable progress file", err)

		p := &progress{Lesson: "crd-basics"}
		blocked := control.Dir(t.TempDir())
		if err := os.WriteFile(blocked.Learn(), nil, 0o644); err != nil { // a file where its folder goes
			t.Fatal(err)
		}
		said("progress that cannot be kept", p.markDone(blocked, s, 3, "lab-1", l))

		ctx, cancel := context.WithCancel(context.Background())
		stop, err := serveHints(ctx, sd, make(chan scenarios.HintRequest), l)
		if err != nil {
			t.Fatal(err)
		}
		_, err = serveHints(ctx, sd, make(chan scenarios.HintRequest), l)
		said("a second lesson on the state dir", err)
		stop()
		cancel()

		err = askHint(context.Background(), io.Discard, sd, l)
		if !errors.Is(err, server.ErrNoLesson) {
			t.Fatalf("crdlab learn hint with no lesson: %v", err)
		}
		said("crdlab learn hint with no lesson", errors.New(errorText(l, &globalFlags{stateDir: string(sd)}, err)))
	}
}

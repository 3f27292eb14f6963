package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/crdlab/crdlab/lab/lang"
)

// pseudoLocale is the pseudo-language's locale: every catalogued message
// shows marked, any other bare (lab/lang: Pseudo).
const pseudoLocale = "LC_ALL=xx"

// checkMarked fails on any bare English (lang.Bare) in what crdlab said.
func checkMarked(t *testing.T, what, out string) {
	t.Helper()
	if bare := lang.Bare(out); len(bare) > 0 {
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

	// Nothing runs yet: the common errors.
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

	// The scenario commands that need no cluster.
	check(0, "scenario", "list")
	check(0, "scenario", "explain", "delete-pod")
	check(0, "scenario", "lint", "../../scenarios/builtin/delete-pod.yaml")

	if testing.Short() {
		return
	}
	// One lab's session.
	check(0, "up", "-d", "--no-ui")
	check(0, "status")
	check(0, "node", "list")
	check(0, "controller", "list")
	check(0, "controller", "stop", "webapp-operator")
	check(0, "controller", "start", "webapp-operator")
	// The runner's lines are checked; the timeline's (lab/timeline: its
	// details, "deletion requested (graceful)", are not in the catalog yet)
	// are logged. An Event's message is Kubernetes' own words.
	out, code := c.run("scenario", "run", "delete-pod")
	if code != 0 {
		t.Errorf("crdlab scenario run delete-pod: exit %d\n%s", code, out)
	}
	var runner, timeline []string
	for _, line := range strings.Split(out, "\n") {
		if timelineLine.MatchString(line) {
			if !strings.Contains(line, " EVENT ") {
				timeline = append(timeline, line)
			}
			continue
		}
		runner = append(runner, line)
	}
	checkMarked(t, "crdlab scenario run delete-pod (the runner's lines)", strings.Join(runner, "\n"))
	if bare := lang.Bare(strings.Join(timeline, "\n")); len(bare) > 0 {
		t.Logf("still bare on the timeline (lab/timeline): %q", bare)
	}
	check(0, "down")
}

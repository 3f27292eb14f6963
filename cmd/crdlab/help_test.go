package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestHelpGolden(t *testing.T) {
	t.Setenv("LC_ALL", "C") // English, whatever the machine's locale
	t.Setenv("HOME", "/home/you")
	t.Setenv("CRDLAB_STATE_DIR", "")
	for _, args := range [][]string{
		{"--help"},
		{"up", "--help"},
		{"down", "--help"},
		{"status", "--help"},
		{"kubectl", "--help"},
		{"version", "--help"},
		{"node", "--help"},
		{"reset", "--help"},
		{"envtest", "--help"},
		{"crd", "migrate", "--help"},
		{"scenario", "--help"},
		{"scenario", "run", "--help"},
		{"scenario", "lint", "--help"},
		{"scenario", "explain", "--help"},
		{"scenario", "list", "--help"},
		{"learn", "--help"},
		{"learn", "list", "--help"},
		{"learn", "hint", "--help"},
		{"learn", "prepare", "--help"},
		{"controller", "--help"},
	} {
		name := "help-root"
		if len(args) > 1 {
			name = "help-" + strings.Join(args[:len(args)-1], "-")
		}
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

// The scenario list and an explanation are part of the CLI's output too,
// in English and in Chinese (--lang zh, or a Chinese locale).
func TestScenarioListAndExplainGolden(t *testing.T) {
	t.Setenv("LC_ALL", "C")
	for name, args := range map[string][]string{
		"scenario-list":                  {"scenario", "list"},
		"scenario-explain-delete-pod":    {"scenario", "explain", "delete-pod"},
		"scenario-list-zh":               {"scenario", "list", "--lang", "zh"},
		"scenario-explain-delete-pod-zh": {"scenario", "explain", "delete-pod", "--lang", "zh"},
		// A lesson of two minors' tasks: both, each marked with its minors.
		"scenario-explain-versions-admission":    {"scenario", "explain", "versions-admission"},
		"scenario-explain-versions-admission-zh": {"scenario", "explain", "versions-admission", "--lang", "zh"},
		// A scenario with no Chinese text reads in English, the runner's
		// words in Chinese.
		"scenario-explain-english-only-zh": {"scenario", "explain", "../../scenarios/testdata/zh/english-only.yaml", "--lang", "zh"},
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

// The lessons' list, in both languages, with no progress yet.
func TestLearnListGolden(t *testing.T) {
	t.Setenv("CRDLAB_STATE_DIR", t.TempDir())
	for name, args := range map[string][]string{
		"learn-list":    {"learn", "list", "--lang", "en"},
		"learn-list-zh": {"learn", "--lang", "zh"},
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

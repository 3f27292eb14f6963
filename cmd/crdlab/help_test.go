package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestHelpGolden(t *testing.T) {
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
		{"crd", "migrate", "--help"},
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

package main

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"

	"github.com/crdlab/crdlab/lab/labtest/control"
)

// TestUpOptionsRoundTrip parses control.UpOptions.Args with up's own flags:
// the options they give must be those Args was given, so that a field Args
// forgets, or a flag that reads its value otherwise, fails here.
func TestUpOptionsRoundTrip(t *testing.T) {
	every := control.UpOptions{
		StateDir:        "/tmp/state dir",
		Detach:          true,
		DataDir:         "/tmp/data",
		Port:            6443,
		BinaryAssetsDir: "/opt/assets",
		Timeout:         90 * time.Second,
		Components:      []string{"nodes", "scheduler"},
		Nodes:           7,
		Zones:           2,
		NodeCapacity:    map[string]string{"cpu": "8", "memory": "32Gi"},
		PodStartDelay:   1500 * time.Millisecond,
		NoSamples:       true,
		CRDs:            []string{"config/crd", "a,b.yaml"},
		Webhooks:        []string{"config/webhook"},
		WebhookPort:     9443,
		UIPort:          8080,
		NoUI:            true,
		Kubernetes:      "1.35",
		Lang:            "zh",
		Verbosity:       2,
		OwnerPIDs:       []int{41, 42},
	}
	v := reflect.ValueOf(every)
	for i := range v.NumField() {
		if v.Field(i).IsZero() {
			t.Fatalf("every sets no %s: give it a value, so that this test checks its flag", v.Type().Field(i).Name)
		}
	}
	for name, want := range map[string]control.UpOptions{
		"defaults":        {StateDir: "/tmp/s"},
		"every field":     every,
		"no components":   {StateDir: "/tmp/s", Components: []string{}},
		"one component":   {StateDir: "/tmp/s", Components: []string{"nodes"}},
		"a scenario's":    {StateDir: "/tmp/s", Nodes: 5, Zones: 3, OwnerPIDs: []int{7}},
		"labtest's":       {StateDir: "/tmp/s", NoSamples: true, OwnerPIDs: []int{1, 2}, CRDs: []string{"x.yaml"}, WebhookPort: 1},
		"release check's": {StateDir: "/tmp/s", Detach: true, Kubernetes: "1.36"},
	} {
		t.Run(name, func(t *testing.T) {
			args := want.Args()
			got := parseUp(t, args)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("crdlab %s\ngave options (-want +got):\n%s", strings.Join(args, " "), diff)
			}
		})
	}
}

// parseUp parses args ("up" and its flags) as crdlab's root command does
// and returns the options up's flags give, without running up.
func parseUp(t *testing.T, args []string) control.UpOptions {
	t.Helper()
	root, g := newRoot()
	old, _, err := root.Find([]string{"up"})
	if err != nil {
		t.Fatal(err)
	}
	root.RemoveCommand(old)
	up, f := upCommand(g)
	up.RunE = func(*cobra.Command, []string) error { return nil }
	root.AddCommand(up)
	root.SetArgs(args)
	if err := root.Execute(); err != nil {
		t.Fatalf("crdlab %s: %v", strings.Join(args, " "), err)
	}
	return f.options()
}

//go:build e2e

// Package e2e builds crdlab's e2e.test: Kubernetes' end-to-end test binary
// with the api-machinery suites only (k8s.io/kubernetes/test/e2e/apimachinery),
// which hold every [sig-api-machinery] conformance test, all that 'make
// conformance' and 'make conformance-ci' run. Upstream's own test main
// (test/e2e/e2e_test.go) links every SIG's suites: apps, storage, network,
// node, kubectl, dra...; this one compiles about two thirds of what that
// adds to crdlab's own packages. The flags and the run are upstream's:
// framework's flags, the embedded test files, e2e.RunE2ETests.
//
// Built with -tags e2e ('make bin/e2e.test'): without the tag the module's
// go test ./... does not run Kubernetes' suites against no cluster, and its
// lint does not analyse all of test/e2e's imports.
package e2e

import (
	"flag"
	"fmt"
	"os"
	"testing"

	conformancetestdata "k8s.io/kubernetes/test/conformance/testdata"
	"k8s.io/kubernetes/test/e2e"
	"k8s.io/kubernetes/test/e2e/framework"
	"k8s.io/kubernetes/test/e2e/framework/config"
	"k8s.io/kubernetes/test/e2e/framework/testfiles"
	e2etestingmanifests "k8s.io/kubernetes/test/e2e/testing-manifests"
	testfixtures "k8s.io/kubernetes/test/fixtures"

	// The constants the suites' labels use, frozen before they register.
	_ "k8s.io/kubernetes/test/e2e/feature"

	// The suites: api-machinery's alone.
	_ "k8s.io/kubernetes/test/e2e/apimachinery"

	// As upstream's test main: the framework's debug, metrics and node
	// hooks, and ktesting's object formatting.
	_ "k8s.io/kubernetes/test/e2e/framework/debug/init"
	_ "k8s.io/kubernetes/test/e2e/framework/metrics/init"
	_ "k8s.io/kubernetes/test/e2e/framework/node/init"
	_ "k8s.io/kubernetes/test/utils/ktesting/format"
)

func TestMain(m *testing.M) {
	config.CopyFlags(config.Flags, flag.CommandLine)
	framework.RegisterCommonFlags(flag.CommandLine)
	framework.RegisterClusterFlags(flag.CommandLine)
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "e2e.test: unknown arguments %q\n", flag.Args())
		os.Exit(2)
	}
	testfiles.AddFileSource(e2etestingmanifests.GetE2ETestingManifestsFS())
	testfiles.AddFileSource(testfixtures.GetTestFixturesFS())
	testfiles.AddFileSource(conformancetestdata.GetConformanceTestdataFS())
	framework.AfterReadingAllFlags(&framework.TestContext)
	if framework.TestContext.RepoRoot != "" {
		testfiles.AddFileSource(testfiles.RootFileSource{Root: framework.TestContext.RepoRoot})
	}
	os.Exit(m.Run())
}

func TestE2E(t *testing.T) {
	e2e.RunE2ETests(t)
}

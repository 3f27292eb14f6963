package main

import (
	"context"
	"strings"

	"github.com/spf13/cobra"

	"github.com/crdlab/crdlab/lab/kubeminor"
	"github.com/crdlab/crdlab/lab/multicall"
)

// kubernetesFlagUsage is --kubernetes's usage, for up and envtest.
var kubernetesFlagUsage = minorText("Kubernetes minor to serve: {MINORS} ({BUILTIN} is built in; the others run from crdlab-k8s-<minor>) " +
	"(default: $" + kubeminor.Env + " if set, else {BUILTIN})")

// minorText fills in what a help text says of the minors crdlab serves,
// from their one list (kubeminor): {MINORS} "1.35, 1.36 or 1.37",
// {OTHERS} the minors not built in ("1.35 or 1.36"), {BUILTIN}, {OLDEST},
// and {EXAMPLE} {EXAMPLE_PATCH} the newest minor not built in and its
// patch ("1.36", "1.36.5").
func minorText(s string) string {
	others := kubeminor.ComponentsMinors()
	example := kubeminor.BuiltIn
	if len(others) > 0 {
		example = others[len(others)-1]
	}
	return strings.NewReplacer(
		"{MINORS}", kubeminor.List(kubeminor.Supported(), "or"),
		"{OTHERS}", kubeminor.List(others, "or"),
		"{BUILTIN}", kubeminor.BuiltIn,
		"{OLDEST}", kubeminor.Oldest(),
		"{EXAMPLE}", example,
		"{EXAMPLE_PATCH}", strings.TrimPrefix(kubeminor.Patch(example), "v"),
	).Replace(s)
}

func addKubernetesFlag(cmd *cobra.Command, v *string) {
	cmd.Flags().StringVar(v, "kubernetes", "", kubernetesFlagUsage)
}

// resolveKubernetes resolves, once for the command, the Kubernetes that
// --kubernetes (flag) or its variable asks for, else the built-in one, with
// its components executable.
func resolveKubernetes(ctx context.Context, flag string) (kubeminor.Kubernetes, error) {
	v := multicall.BuildVersions()
	return kubeminor.Resolve(ctx, "--kubernetes", flag, kubeminor.Here(v.Crdlab, v.Release))
}

// findComponents finds the components executable of minor, the one a
// running lab serves; nil for the minor built in. Its error names the
// executable, not a flag: the user gave none.
func findComponents(ctx context.Context, minor string) (*kubeminor.Components, error) {
	if minor == kubeminor.BuiltIn {
		return nil, nil
	}
	v := multicall.BuildVersions()
	return kubeminor.Find(ctx, minor, kubeminor.Here(v.Crdlab, v.Release))
}

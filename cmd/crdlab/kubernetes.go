package main

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/crdlab/crdlab/lab/kubeminor"
	"github.com/crdlab/crdlab/lab/multicall"
)

// kubernetesFlagUsage is --kubernetes's usage, for up and envtest.
const kubernetesFlagUsage = "Kubernetes minor to serve: 1.35, 1.36 or 1.37 (1.37 is built in; the others run from crdlab-k8s-<minor>) " +
	"(default: $" + kubeminor.Env + " if set, else 1.37)"

func addKubernetesFlag(cmd *cobra.Command, v *string) {
	cmd.Flags().StringVar(v, "kubernetes", "", kubernetesFlagUsage)
}

// chooseMinor returns the minor --kubernetes (flag) or its variable asks
// for, else the built-in one, and whether one was asked for.
func chooseMinor(flag string) (minor string, chosen bool, err error) {
	minor, err = kubeminor.Choose(flag)
	return minor, flag != "" || os.Getenv(kubeminor.Env) != "", err
}

// findComponents finds the components executable of minor; nil for the
// minor built in.
func findComponents(ctx context.Context, minor string) (*kubeminor.Components, error) {
	if minor == kubeminor.BuiltIn {
		return nil, nil
	}
	v := multicall.BuildVersions()
	c, err := kubeminor.Find(ctx, minor, kubeminor.Here(v.Crdlab, v.Release))
	if err != nil {
		return nil, fmt.Errorf("--kubernetes %s: %w", minor, err)
	}
	return c, nil
}

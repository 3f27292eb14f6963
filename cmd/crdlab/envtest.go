package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/crdlab/crdlab/lab/multicall"
)

func newEnvtestCommand() *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:   "envtest",
		Short: "Print a folder of etcd, kube-apiserver and kubectl for envtest (KUBEBUILDER_ASSETS)",
		Long: `Print the path of a binary assets folder for controller-runtime's envtest:
etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kubectl,
each a link to this binary, which runs the real component compiled into it.
It replaces 'setup-envtest use': nothing is downloaded, and the folder works
with every controller-runtime version, so an unchanged envtest suite runs
with

  KUBEBUILDER_ASSETS=$(crdlab envtest) go test ./...

In a kubebuilder project's Makefile, the test target's line

  KUBEBUILDER_ASSETS="$(shell $(ENVTEST) use $(ENVTEST_K8S_VERSION) --bin-dir $(LOCALBIN) -p path)" go test ...

becomes

  KUBEBUILDER_ASSETS="$(shell crdlab envtest)" go test ...

The folder is kept in the user's cache dir, one per crdlab build, and made
again when missing. etcd and kube-apiserver started from it stop when the
process that started them dies, even on kill -9 (envtest alone leaves them
running). The Kubernetes version they serve is the one 'crdlab version'
prints.`,
		Example: `  KUBEBUILDER_ASSETS=$(crdlab envtest) go test ./...
  crdlab envtest --dir ./bin/k8s`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if dir == "" {
				var err error
				if dir, err = defaultAssetsDir(); err != nil {
					return err
				}
			}
			abs, err := filepath.Abs(dir)
			if err != nil {
				return fmt.Errorf("--dir %s: %w", dir, err)
			}
			if _, err := multicall.Link(abs); err != nil {
				return fmt.Errorf("--dir %s: %w", dir, err)
			}
			fmt.Fprintln(cmd.OutOrStdout(), abs)
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "",
		"folder to lay the links out in (default: crdlab/envtest/<version> in the user's cache dir, $XDG_CACHE_HOME or ~/.cache)")
	return cmd
}

// defaultAssetsDir is the assets folder of this build in the user's cache
// dir: named by the Kubernetes version and crdlab's version, and by where
// this executable is, so that two builds of the same version (two
// checkouts) do not take each other's folder.
func defaultAssetsDir() (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no user cache dir (%w); give a folder with --dir", err)
	}
	self, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("unable to find this executable: %w", err)
	}
	if resolved, err := filepath.EvalSymlinks(self); err == nil {
		self = resolved
	}
	sum := sha256.Sum256([]byte(self))
	v := multicall.BuildVersions()
	name := strings.Join([]string{"k8s", strings.TrimPrefix(v.Kubernetes, "v"), "crdlab", strings.Trim(v.Crdlab, "()"), hex.EncodeToString(sum[:4])}, "-")
	name = strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-', r == '_':
			return r
		}
		return '_'
	}, name)
	return filepath.Join(cache, "crdlab", "envtest", name), nil
}

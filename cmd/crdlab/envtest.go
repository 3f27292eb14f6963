package main

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/crdlab/crdlab/lab/kubeminor"
	"github.com/crdlab/crdlab/lab/lang"
	"github.com/crdlab/crdlab/lab/multicall"
)

func newEnvtestCommand() *cobra.Command {
	var dir, kubernetes string
	cmd := &cobra.Command{
		Use:   "envtest",
		Short: "Print a folder of etcd, kube-apiserver and kubectl for envtest (KUBEBUILDER_ASSETS)",
		Long: minorText(`Print the path of a binary assets folder for controller-runtime's envtest:
etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kubectl,
each a link to this binary, which runs the real component compiled into it.
It replaces 'setup-envtest use': nothing is downloaded, and the folder works
with every controller-runtime version, so an unchanged envtest suite runs
with

  KUBEBUILDER_ASSETS=$(crdlab envtest) go test ./...

In a kubebuilder project's Makefile, the test target's line

  KUBEBUILDER_ASSETS="$(shell $(ENVTEST) use $(ENVTEST_K8S_VERSION) --bin-dir $(LOCALBIN) -p path)" go test ...

becomes

  KUBEBUILDER_ASSETS="$(shell crdlab envtest --kubernetes $(ENVTEST_K8S_VERSION))" go test ...

--kubernetes (default: $CRDLAB_KUBERNETES_VERSION, else {BUILTIN}) chooses the
Kubernetes minor: {MINORS} (v{EXAMPLE} and the exact patch served,
{EXAMPLE_PATCH}, are taken too). {BUILTIN} is built into this binary; for another minor
kube-apiserver, kube-controller-manager, kube-scheduler and kubectl link to
its components executable, crdlab-k8s-<minor> (make components
K8S=<minor>, or the release's download), and etcd to this binary.

The folder is kept in the user's cache dir, one per crdlab build and
Kubernetes minor, and made again when missing. etcd and kube-apiserver
started from it stop when the process that started them dies, even on
kill -9 (envtest alone leaves them running). 'crdlab version' prints the
Kubernetes versions this crdlab serves.`),
		Example: minorText(`  KUBEBUILDER_ASSETS=$(crdlab envtest) go test ./...
  KUBEBUILDER_ASSETS=$(crdlab envtest --kubernetes {OLDEST}) go test ./...
  crdlab envtest --dir ./bin/k8s`),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			kube, err := resolveKubernetes(cmd.Context(), lang.Default(), kubernetes)
			if err != nil {
				return err
			}
			if dir == "" {
				if dir, err = defaultAssetsDir(kube.Version); err != nil {
					return err
				}
			}
			abs, err := filepath.Abs(dir)
			if err != nil {
				return lang.Errorf("--dir %s: %w", dir, err)
			}
			if err := linkAssets(abs, kube.Components); err != nil {
				if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
					err = pe // the folder's own error: what a user can fix
				}
				return lang.Errorf("--dir %s: %w", dir, err)
			}
			fmt.Fprintln(cmd.OutOrStdout(), abs)
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "",
		"folder to lay the links out in (default: crdlab/envtest/<version> in the user's cache dir, $XDG_CACHE_HOME or ~/.cache)")
	addKubernetesFlag(cmd, &kubernetes)
	return cmd
}

// linkAssets lays out the assets folder: links to this binary, or for an
// older minor, etcd to this binary and the others to comps.
func linkAssets(dir string, comps *kubeminor.Components) error {
	if comps == nil {
		_, err := multicall.Link(dir)
		return err
	}
	self, err := os.Executable()
	if err == nil {
		self, err = filepath.EvalSymlinks(self)
	}
	if err != nil {
		return lang.Errorf("unable to find this executable: %w", err)
	}
	_, err = kubeminor.Link(dir, self, comps)
	return err
}

// defaultAssetsDir is the assets folder of this build for a Kubernetes
// version ("v1.36.5") in the user's cache dir: named by that version and
// crdlab's version, and by where this executable is, so that two builds of
// the same version (two checkouts) do not take each other's folder.
func defaultAssetsDir(kubernetes string) (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", lang.Errorf("no user cache dir (%w); give a folder with --dir", err)
	}
	self, err := os.Executable()
	if err != nil {
		return "", lang.Errorf("unable to find this executable: %w", err)
	}
	if resolved, err := filepath.EvalSymlinks(self); err == nil {
		self = resolved
	}
	sum := sha256.Sum256([]byte(self))
	v := multicall.BuildVersions()
	name := strings.Join([]string{"k8s", strings.TrimPrefix(kubernetes, "v"), "crdlab", strings.Trim(v.Crdlab, "()"), hex.EncodeToString(sum[:4])}, "-")
	name = strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-', r == '_':
			return r
		}
		return '_'
	}, name)
	return filepath.Join(cache, "crdlab", "envtest", name), nil
}

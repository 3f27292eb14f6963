package lab

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/crdlab/crdlab/lab/internal/kubeversion"
	"github.com/crdlab/crdlab/lab/kubeminor"
	"github.com/crdlab/crdlab/lab/multicall"
)

// kubernetes is the Kubernetes a lab serves: the minor, the release, and
// the components executable that runs it (none for the minor built in).
type kubernetes struct {
	minor   string
	version string                // "v1.36.5"
	comps   *kubeminor.Components // nil for kubeminor.BuiltIn
	chosen  bool                  // by Options.KubernetesVersion or its variable, not by default
}

// chooseKubernetes resolves Options.KubernetesVersion (else
// $CRDLAB_KUBERNETES_VERSION, else the minor built in) and finds its
// components executable.
func chooseKubernetes(ctx context.Context, opts Options) (kubernetes, error) {
	var minor string
	var err error
	if opts.KubernetesVersion != "" {
		minor, err = kubeminor.Parse("KubernetesVersion", opts.KubernetesVersion)
	} else {
		minor, err = kubeminor.Choose("")
	}
	if err != nil {
		return kubernetes{}, err
	}
	k := kubernetes{minor: minor, version: kubeversion.Module(), chosen: opts.KubernetesVersion != "" || os.Getenv(kubeminor.Env) != ""}
	if minor == kubeminor.BuiltIn {
		return k, nil
	}
	if opts.BinaryAssetsDirectory != "" {
		return kubernetes{}, fmt.Errorf("KubernetesVersion %s and BinaryAssetsDirectory %s: give one or the other (the binaries there serve a Kubernetes of their own)", minor, opts.BinaryAssetsDirectory)
	}
	v := multicall.BuildVersions()
	if k.comps, err = kubeminor.Find(ctx, minor, kubeminor.Here(v.Crdlab, v.Release)); err != nil {
		return kubernetes{}, err
	}
	k.version = k.comps.Versions.Kubernetes
	return k, nil
}

// link lays out the lab's bin folder for its minor: links to this
// executable (the minor built in), or etcd to this executable and the
// others to the minor's components executable.
func (k kubernetes) link(dir string) (string, error) {
	if k.comps == nil {
		return multicall.Link(filepath.Join(dir, "bin"))
	}
	self, err := os.Executable()
	if err == nil {
		self, err = filepath.EvalSymlinks(self)
	}
	if err != nil {
		return "", fmt.Errorf("unable to find this executable: %w", err)
	}
	return kubeminor.Link(filepath.Join(dir, "bin-"+k.minor), self, k.comps)
}

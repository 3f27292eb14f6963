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

// chooseKubernetes takes Options.Kubernetes, resolved by the caller, or
// else resolves Options.KubernetesVersion (else $CRDLAB_KUBERNETES_VERSION,
// else the minor built in) with its components executable.
func chooseKubernetes(ctx context.Context, opts Options) (kubernetes, error) {
	kube := opts.Kubernetes
	if kube.Minor == "" {
		v := multicall.BuildVersions()
		var err error
		if kube, err = kubeminor.Resolve(ctx, "KubernetesVersion", opts.KubernetesVersion, kubeminor.Here(v.Crdlab, v.Release)); err != nil {
			return kubernetes{}, err
		}
	}
	k := kubernetes{minor: kube.Minor, version: kube.Version, comps: kube.Components, chosen: kube.Chosen}
	if k.comps == nil {
		k.version = kubeversion.Module() // the release go.mod links
	} else if opts.BinaryAssetsDirectory != "" {
		return kubernetes{}, fmt.Errorf("KubernetesVersion %s and BinaryAssetsDirectory %s: give one or the other (the binaries there serve a Kubernetes of their own)", k.minor, opts.BinaryAssetsDirectory)
	}
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

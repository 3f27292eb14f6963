package lab

import (
	"os"
	"path/filepath"
	"strconv"

	"github.com/crdlab/crdlab/lab/labtest/control"
	"github.com/crdlab/crdlab/lab/lang"
	"github.com/crdlab/crdlab/lab/multicall"
	"github.com/crdlab/crdlab/lab/writefile"
)

// prepareDirs makes l's work and data directories, checks that they are
// writable, and lays out the links to this executable.
func prepareDirs(l *Lab) error {
	if l.opts.WorkDir == "" {
		dir, err := os.MkdirTemp("", "crdlab-")
		if err != nil {
			return lang.Errorf("%w: %w", ErrWorkDir, err)
		}
		l.dir, l.made.ownDir = control.Dir(dir), true
	} else {
		l.dir = control.Dir(l.opts.WorkDir)
	}
	for _, dir := range []string{string(l.dir), l.dir.Logs()} {
		if err := writefile.EnsureWritable(dir); err != nil {
			return lang.Errorf("%w: %w", ErrWorkDir, err)
		}
	}
	if l.opts.DataDir != "" {
		if err := writefile.EnsureWritable(filepath.Join(l.opts.DataDir, "etcd")); err != nil {
			return lang.Errorf("%w: %w", ErrDataDir, err)
		}
	}
	var err error
	l.made.bin, err = l.kube.link(string(l.dir))
	return err
}

// binaries returns the etcd and kube-apiserver to run, and whether they
// are this program's own (in bin, the links Start laid out). Other binaries
// are found as envtest finds them: assets (Options.BinaryAssetsDirectory), else
// TEST_ASSET_ETCD and TEST_ASSET_KUBE_APISERVER, else KUBEBUILDER_ASSETS,
// unless a Kubernetes minor was chosen (Options.KubernetesVersion).
func binaries(assets string, kube kubernetes, bin string) (etcd, api string, self bool) {
	if dir := assets; dir != "" {
		return filepath.Join(dir, multicall.Etcd), filepath.Join(dir, multicall.KubeAPIServer), false
	}
	for _, v := range []string{envtestAssets, envtestAssetPrefix + "ETCD", envtestAssetPrefix + "KUBE_APISERVER"} {
		if os.Getenv(v) != "" && !kube.chosen {
			return envtestBinary(multicall.Etcd, "ETCD"), envtestBinary(multicall.KubeAPIServer, "KUBE_APISERVER"), false
		}
	}
	return filepath.Join(bin, multicall.Etcd), filepath.Join(bin, multicall.KubeAPIServer), true
}

// The environment variables through which envtest finds its binaries, and
// where it looks without them.
const (
	envtestAssets        = "KUBEBUILDER_ASSETS"
	envtestAssetPrefix   = "TEST_ASSET_"
	envtestDefaultAssets = "/usr/local/kubebuilder/bin"
)

// envtestBinary is where envtest takes the binary name from
// (TEST_ASSET_<key>, then KUBEBUILDER_ASSETS, then its default folder).
func envtestBinary(name, key string) string {
	if path, ok := os.LookupEnv(envtestAssetPrefix + key); ok {
		return path
	}
	if dir, ok := os.LookupEnv(envtestAssets); ok {
		return filepath.Join(dir, name)
	}
	return filepath.Join(envtestDefaultAssets, name)
}

// childEnv is what every child of the lab gets in its environment: this
// process's ID, which a child compares with its parent's to exit when it
// was started by a parent that died already (see multicall).
func childEnv() []string {
	return []string{multicall.ParentPIDEnv + "=" + strconv.Itoa(os.Getpid())}
}

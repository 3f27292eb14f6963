package lab

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/crdlab/crdlab/lab/internal/controlplane"
	"github.com/crdlab/crdlab/lab/multicall"
)

// The lab runs etcd and kube-apiserver itself, as proc.Child, like every
// other process of it (lab/internal/controlplane owns their command lines,
// certificates, start and stop); envtest only installs (see install.go).

// newControlPlane prepares the lab's etcd and kube-apiserver for the
// options: their binaries, etcd's data (seeded from the template when it is
// ephemeral), certificates, the audit log, what the components configure
// kube-apiserver for and Options.APIServerFlags; then makes their processes.
func newControlPlane(ctx context.Context, l *Lab) (*controlplane.Plane, error) {
	etcdPath, apiPath, own := binaries(l.opts.BinaryAssetsDirectory, l.kube, l.made.bin)
	var dataDir string
	if l.opts.DataDir != "" {
		dataDir = filepath.Join(l.opts.DataDir, "etcd")
	} else {
		dataDir = l.dir.Path("etcd-data")
		_ = os.RemoveAll(dataDir) // left by a lab that was killed
		l.made.etcdData = dataDir
		seeded := own && !l.opts.NoEtcdTemplate && seedEtcd(ctx, dataDir, l.kube.version, l.made.bin, l.opts)
		if !seeded {
			if err := os.MkdirAll(dataDir, 0o700); err != nil {
				return nil, fmt.Errorf("unable to create etcd data dir %s: %w", dataDir, err)
			}
		}
	}
	cp := &controlplane.Plane{
		Own: own,
		Etcd: controlplane.Etcd{
			Path: etcdPath, DataDir: dataDir, LogPath: l.dir.Log(multicall.Etcd),
			Durable: l.opts.DataDir != "", // envtest turns fsync off; data meant to survive must survive a crash
		},
		APIServer: controlplane.APIServer{
			Path: apiPath, Port: l.opts.Port, CertDir: l.dir.Path("certs"), LogPath: l.dir.Log(multicall.KubeAPIServer),
			Audit: &controlplane.Audit{PolicyFile: l.dir.Path("audit-policy.yaml"), LogPath: l.dir.AuditLog()},
			Flags: l.opts.APIServerFlags,
		},
	}
	if err := cp.Prepare(); err != nil {
		return nil, err
	}
	for _, c := range l.components.list() {
		if p, ok := c.(apiServerPart); ok {
			if err := p.configureAPIServer(&cp.APIServer); err != nil {
				return nil, err
			}
		}
	}
	if err := cp.Build(childEnv(), l.opts.StartTimeout); err != nil {
		return nil, err
	}
	return cp, nil
}

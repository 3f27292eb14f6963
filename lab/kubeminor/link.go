package kubeminor

import (
	"fmt"
	"os"
	"path/filepath"
)

// componentNames are the names a components executable runs as; etcd is
// crdlab's own.
var componentNames = []string{"kube-apiserver", "kube-controller-manager", "kube-scheduler", "kubectl"}

// Link lays out in dir the binary assets folder envtest expects for c's
// minor: etcd a symbolic link to self (crdlab, whose etcd serves every
// minor), kube-apiserver, kube-controller-manager, kube-scheduler and
// kubectl links to c's executable. It returns dir.
func Link(dir, self string, c *Components) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("unable to create binary dir %s: %w", dir, err)
	}
	targets := map[string]string{"etcd": self}
	for _, name := range componentNames {
		targets[name] = c.Path
	}
	for name, target := range targets {
		link := filepath.Join(dir, name)
		if t, err := os.Readlink(link); err == nil && t == target {
			continue
		}
		_ = os.Remove(link)
		if err := os.Symlink(target, link); err != nil {
			return "", fmt.Errorf("unable to link %s: %w", link, err)
		}
	}
	return dir, nil
}

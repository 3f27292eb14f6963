package lab

import (
	"fmt"
	"strings"

	"github.com/crdlab/crdlab/lab/writefile"
)

// What the specs of package lab_test reach that users do not.

// KillProcess kills one of the lab's supervised processes with SIGKILL, as
// a crash would (see killProcess).
func (l *Lab) KillProcess(name string) error { return l.killProcess(name) }

// WriteKubeconfig writes the admin kubeconfig to path with mode 0600, as
// 'crdlab up' writes it to its state dir.
func (l *Lab) WriteKubeconfig(path string) error {
	return writefile.Atomic(path, l.Kubeconfig(), 0o600)
}

// ComponentServer is the address (https://127.0.0.1:PORT) of a running
// kube-controller-manager's or kube-scheduler's secure port, where it
// serves /debug/pprof, and the CA of its serving certificate.
func (l *Lab) ComponentServer(name string) (host string, ca []byte, err error) {
	for _, c := range l.components.list() {
		s, ok := c.(supervisedComponent)
		if !ok || c.Name() != name || s.child() == nil {
			continue
		}
		return strings.TrimSuffix(s.child().Health, "/healthz"), l.components.serving.ca, nil
	}
	return "", nil, fmt.Errorf("no component %q runs as a process of the lab", name)
}

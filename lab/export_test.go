package lab

import "github.com/crdlab/crdlab/lab/writefile"

// What the specs of package lab_test reach that users do not.

// KillProcess kills one of the lab's supervised processes with SIGKILL, as
// a crash would (see killProcess).
func (l *Lab) KillProcess(name string) error { return l.killProcess(name) }

// WriteKubeconfig writes the admin kubeconfig to path with mode 0600, as
// 'crdlab up' writes it to its state dir.
func (l *Lab) WriteKubeconfig(path string) error {
	return writefile.Atomic(path, l.Kubeconfig(), 0o600)
}

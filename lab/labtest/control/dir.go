package control

import (
	"fmt"
	"path/filepath"
)

// Dir is the folder of a lab: a lab's work dir, and for a long-running lab
// ('crdlab up') also its state dir, where other processes find it. It is
// the one place that knows the layout: every path of the folder comes from
// one of its methods.
//
//	bin/             links to crdlab's executable, one per component
//	certs/           the apiserver's, the components' and the front proxy's certificates
//	kubeconfigs/     one per component identity
//	logs/NAME.log    each component's log; logs/audit.log the apiserver's
//	                 audit log, logs/timeline.log the timeline
//	etcd-data/       an ephemeral etcd's data (a copy of the bootstrapped template)
//	aggregated/      the aggregated API server's serving certificate and kubeconfig
//	egress.sock      the apiserver's way into the "cluster" (see lab/aggregated)
//	kubeconfig       the admin kubeconfig (a state dir, once the lab is ready)
//	lab.json         the status of the running lab; crdlab.pid its process
//	control.sock     the control socket; lock, held while a lab runs
//	ui-token         the token of the lab's web UI
//	learn/NAME/      the files of lesson NAME, as the learner edits them
//	learn/NAME.json  the learner's progress in lesson NAME
//	learn.sock       the socket of the lesson that runs ('crdlab learn hint')
type Dir string

// Path returns the path of a file or folder name in d.
func (d Dir) Path(name ...string) string {
	return filepath.Join(append([]string{string(d)}, name...)...)
}

// Bin is the folder of the links to crdlab's executable, one per component.
func (d Dir) Bin() string { return d.Path("bin") }

// Certs is the folder of the lab's certificates.
func (d Dir) Certs() string { return d.Path("certs") }

// Kubeconfigs is the folder of the components' kubeconfigs.
func (d Dir) Kubeconfigs() string { return d.Path("kubeconfigs") }

// Logs is the folder of the components' logs.
func (d Dir) Logs() string { return d.Path("logs") }

// Log is the log file of a component (etcd, kube-apiserver, crdlab...).
func (d Dir) Log(component string) string { return d.Path("logs", component+".log") }

// AuditLog is the apiserver's audit log (deletions).
func (d Dir) AuditLog() string { return d.Log("audit") }

// TimelineLog is the timeline of a running lab, the lines 'crdlab up'
// shows, for test suites to show who did what when a spec fails.
func (d Dir) TimelineLog() string { return d.Log("timeline") }

// EtcdData is the data of an ephemeral etcd.
func (d Dir) EtcdData() string { return d.Path("etcd-data") }

// Aggregated is the folder of the aggregated API server's serving
// certificate and kubeconfig.
func (d Dir) Aggregated() string { return d.Path("aggregated") }

// EgressSocket is the path of the socket the apiserver's egress selector
// dials.
func (d Dir) EgressSocket() string { return d.Path("egress.sock") }

// Kubeconfig is the admin kubeconfig of a lab running on d.
func (d Dir) Kubeconfig() string { return d.Path("kubeconfig") }

// StatusFile is the status of the lab running on d (Status, as JSON).
func (d Dir) StatusFile() string { return d.Path("lab.json") }

// PIDFile holds the process ID of the lab running on d.
func (d Dir) PIDFile() string { return d.Path("crdlab.pid") }

// ControlSocket is the path of the lab's control socket.
func (d Dir) ControlSocket() string { return d.Path("control.sock") }

// LockFile is the state dir's lock: a lab runs on d while a process holds
// an exclusive flock(2) on it.
func (d Dir) LockFile() string { return d.Path("lock") }

// UIToken is the file with the token of the lab's web UI, readable by its
// owner only, as the kubeconfig is ('crdlab status' prints the URL with it).
func (d Dir) UIToken() string { return d.Path("ui-token") }

// Learn returns the folder of the lessons' files and the learner's progress.
func (d Dir) Learn() string { return d.Path("learn") }

// LearnSocket returns the socket of the lesson that runs ('crdlab learn'),
// which 'crdlab learn hint' asks for the next hint.
func (d Dir) LearnSocket() string { return d.Path("learn.sock") }

// MaxSocketPath is the longest path of a Unix socket (sun_path, less its
// terminating zero).
const MaxSocketPath = 107

// CheckPathLength fails when d's path is too long for its control socket.
func (d Dir) CheckPathLength() error {
	if path := d.ControlSocket(); len(path) > MaxSocketPath {
		return fmt.Errorf("state dir %s is too long: its control socket %s would be %d bytes, a Unix socket path has at most %d",
			string(d), path, len(path), MaxSocketPath)
	}
	return nil
}

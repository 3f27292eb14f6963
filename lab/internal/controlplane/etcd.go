package controlplane

import (
	"net"
	"strconv"

	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/crdlab/crdlab/lab/internal/proc"
	"github.com/crdlab/crdlab/lab/multicall"
)

// etcdTuning are the flags the lab adds to its own etcd. A single member
// has no peer to hear from: a short election timeout makes it leader
// (and ready) in a few milliseconds instead of a few hundred.
var etcdTuning = map[string]string{
	"heartbeat-interval": "10",
	"election-timeout":   "100",
}

// Etcd is a lab's etcd: a single member on loopback.
type Etcd struct {
	// Path is the etcd executable.
	Path string
	// DataDir is etcd's data dir.
	DataDir string
	// Durable keeps fsync on, for data meant to survive a crash (a lab's
	// data dir); envtest turns it off.
	Durable bool
	// LogPath is where its output goes.
	LogPath string

	own              bool   // this program's own etcd (Plane.Own)
	clientURL        string // http://127.0.0.1:PORT, once Plane.Prepare chose it
	peerURL          string
	process          *proc.Child // once Plane.Build made it
	noFsyncSupported bool        // whether its --help lists --unsafe-no-fsync (own: yes)
}

// URL is etcd's client URL, http://127.0.0.1:PORT.
func (e *Etcd) URL() string { return e.clientURL }

// Process is etcd's process, once Plane.Build made it.
func (e *Etcd) Process() *proc.Child { return e.process }

// listen sets etcd's client and peer URLs on these ports of 127.0.0.1.
func (e *Etcd) listen(client, peer int) {
	e.clientURL = "http://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(client))
	e.peerURL = "http://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(peer))
	e.noFsyncSupported = e.own || hasFlag(e.Path, "unsafe-no-fsync")
}

// args is etcd's command line: envtest's defaults
// (controlplane.Etcd.defaultArgs), the lab's tuning for its own etcd, and
// fsync as Durable says.
func (e *Etcd) args() []string {
	defaults := map[string][]string{
		"listen-peer-urls":      {e.peerURL},
		"data-dir":              {e.DataDir},
		"advertise-client-urls": {e.clientURL},
		"listen-client-urls":    {e.clientURL},
	}
	if e.noFsyncSupported {
		defaults["unsafe-no-fsync"] = []string{"true"}
	}
	args := envtest.EmptyArguments()
	if e.own {
		for k, v := range etcdTuning {
			args.Set(k, v)
		}
	}
	if e.Durable {
		args.Set("unsafe-no-fsync", "false")
	}
	return args.AsStrings(defaults)
}

// build makes etcd's process from its command line.
func (e *Etcd) build(env []string) {
	e.process = &proc.Child{
		Name:    multicall.Etcd,
		Path:    e.Path,
		Args:    e.args(),
		Env:     env,
		Health:  e.clientURL + "/health",
		LogPath: e.LogPath,
	}
}

package controlplane

import (
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"time"

	"github.com/crdlab/crdlab/lab/internal/ports"
	"github.com/crdlab/crdlab/lab/internal/proc"
	"github.com/crdlab/crdlab/lab/multicall"
)

// Plane is a lab's etcd and kube-apiserver. Its life: Prepare (ports and
// certificates: users can be provisioned from then on), then Build (the
// processes, from the command lines as the fields say then), then Start
// and Stop.
type Plane struct {
	Etcd      Etcd
	APIServer APIServer

	// Own: both are this program's own (multicall), whose flags the lab
	// knows: tuned, and started together (kube-apiserver waits for etcd
	// through multicall.WaitForEtcdEnv).
	Own bool
}

// Prepare chooses the ports on 127.0.0.1 (APIServer.Port if set) and makes
// kube-apiserver's certificates.
func (p *Plane) Prepare() error {
	p.Etcd.own, p.APIServer.own = p.Own, p.Own
	free, err := ports.Free(3)
	if err != nil {
		return err
	}
	if p.APIServer.Port != 0 {
		free[2] = p.APIServer.Port
	}
	p.Etcd.listen(free[0], free[1])
	p.APIServer.listen(free[2], p.Etcd.URL())
	return p.APIServer.makeCerts()
}

// Build makes the processes from their command lines as they are now; env
// is added to their environment, and, to this program's own,
// multicall.BootGCEnviron. kube-apiserver started together with etcd waits
// for it for up to wait.
func (p *Plane) Build(env []string, wait time.Duration) error {
	if p.Own {
		env = append(env[:len(env):len(env)], multicall.BootGCEnviron()...)
	}
	p.Etcd.build(env)
	apiEnv := env
	if p.Own {
		apiEnv = append(apiEnv[:len(apiEnv):len(apiEnv)], multicall.WaitForEtcdEnv+"="+wait.String())
	}
	return p.APIServer.build(apiEnv)
}

// Start starts etcd and kube-apiserver and returns once kube-apiserver is
// ready. This program's own binaries start together: kube-apiserver's
// process start, package init and flag handling (about a tenth of a
// second) need no etcd, and it waits for etcd to answer before it builds
// its storage (multicall.WaitForEtcdEnv), so that no etcd client of its
// own ever meets a refused connection and backs off for a second. When
// etcd fails, kube-apiserver is stopped at once. Other binaries start one
// after the other, as envtest starts them. A failed start is a
// *proc.StartError naming the process.
func (p *Plane) Start(ctx context.Context, timeout time.Duration) error {
	etcd, api := p.Etcd.process, p.APIServer.process
	if !p.Own {
		if err := etcd.Start(ctx, timeout); err != nil {
			return err
		}
		return api.Start(ctx, timeout)
	}
	apiDone := make(chan error, 1)
	go func() { apiDone <- api.Start(ctx, timeout) }()
	if err := etcd.Start(ctx, timeout); err != nil {
		_ = api.Stop(0)
		_ = <-apiDone // ended by that Stop: etcd's error is the one to return
		return err
	}
	return <-apiDone
}

// Stop stops kube-apiserver at once (a lab has no use for its graceful
// shutdown, which drains requests and watches for about a second: etcd
// holds everything it wrote), then etcd, cleanly, within grace. It stops
// what was built, started or not.
func (p *Plane) Stop(grace time.Duration) []error {
	var errs []error
	for _, c := range []struct {
		child *proc.Child
		grace time.Duration
	}{{p.APIServer.process, 0}, {p.Etcd.process, grace}} {
		if c.child == nil {
			continue
		}
		if err := c.child.Stop(c.grace); err != nil {
			errs = append(errs, fmt.Errorf("unable to stop %s: %w", c.child.Name, err))
		}
	}
	return errs
}

// Processes are etcd's and kube-apiserver's, once built.
func (p *Plane) Processes() []*proc.Child {
	if p.Etcd.process == nil {
		return nil
	}
	return []*proc.Child{p.Etcd.process, p.APIServer.process}
}

// hasFlag reports whether the binary at path lists flag in its --help, as
// envtest checks it (for binaries other than this program's own, whose
// flags the lab knows).
func hasFlag(path, flag string) bool {
	out, err := exec.Command(path, "--help").CombinedOutput() //nolint:gosec // the user's chosen binary
	if err != nil {
		return false
	}
	return regexp.MustCompile(`(?m)^\s*--` + regexp.QuoteMeta(flag) + `\b`).Match(out)
}

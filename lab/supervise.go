package lab

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crdlab/crdlab/lab/internal/proc"
	"github.com/crdlab/crdlab/lab/labtest/control"
	"github.com/crdlab/crdlab/lab/multicall"
	"github.com/crdlab/crdlab/lab/timeline"
)

// The lab supervises every process it runs (proc.Child): if one exits on
// its own, the lab starts the same command line again (same port,
// certificates and data), and every client in this process (the simulated
// kubelet, the operators, the timeline, the aggregated API server)
// reconnects as client-go always does. Meanwhile Health says degraded, and
// the timeline shows the crash and the restart.

// etcdReady is a restarted etcd's readiness check (proc.Child.Ready): up
// once kube-apiserver (api) reads from it again through c, if it runs.
func etcdReady(api *proc.Child, c client.Client) func(context.Context) error {
	return func(ctx context.Context) error {
		if !api.Status().Up {
			return nil // it reconnects as it starts
		}
		ctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		var ns corev1.Namespace
		err := c.Get(ctx, client.ObjectKey{Name: metav1.NamespaceDefault}, &ns)
		if apierrors.IsNotFound(err) {
			return nil // etcd answered, without the data it had (see checkEtcdData)
		}
		return err
	}
}

// configureChild makes c report its crashes and restarts: to the logger,
// the timeline and Options.OnHealth.
func (l *Lab) configureChild(c *proc.Child) {
	c.Log = l.opts.Logger
	c.RestartTimeout = l.opts.StartTimeout
	c.OnChange = func(ch proc.Change) {
		e := timeline.Event{Time: time.Now(), Actor: "crdlab", Kind: "Process", Name: ch.Name}
		if ch.Up {
			e.Verb = "RESTARTED"
			e.Detail = fmt.Sprintf("healthy again after %s (restart %d)", ch.Downtime.Round(time.Millisecond), ch.Restarts)
			if ch.Name == multicall.Etcd {
				if problem := l.checkEtcdData(); problem != "" {
					e.Detail += "; " + problem
				}
			}
		} else {
			e.Verb = "CRASHED"
			e.Detail = ch.Cause + "; restarting it"
		}
		if l.opts.Events != nil {
			l.opts.Events.Record(e)
		}
		if l.opts.OnHealth != nil {
			l.opts.OnHealth(l.Health())
		}
	}
}

// checkEtcdData checks a restarted etcd against the baseline (see
// baseline.lostData); a loss is one of the lab's problems from then on.
func (l *Lab) checkEtcdData() string {
	b := l.baseline
	if b == nil {
		return ""
	}
	problem := b.lostData()
	if problem != "" {
		l.problems.add(problem)
	}
	return problem
}

// problems are what a lab lost for good (see Health).
type problems struct {
	mu   sync.Mutex
	list []string
}

func (p *problems) add(problem string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.list = append(p.list, problem)
}

func (p *problems) get() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.list)
}

// Health says whether each process the lab supervises (etcd,
// kube-apiserver, and kube-controller-manager and kube-scheduler when they
// run) is up and how often it was restarted. The lab is degraded while one
// that was not stopped on purpose is down, or when it lost data.
func (l *Lab) Health() control.Health {
	h := control.Health{State: control.StateRunning}
	for _, c := range l.supervised() {
		st := c.Status()
		h.Processes = append(h.Processes, control.ProcessHealth{
			Name: c.Name, Up: st.Up, Stopped: st.Stopped, Restarts: st.Restarts,
			DownSince: st.DownSince, LastExit: st.LastExit,
		})
		if !st.Up && !st.Stopped {
			h.State = control.StateDegraded
		}
	}
	h.Problems = l.problems.get()
	if k := l.components.kubelet(); k != nil {
		h.KubeletRefused, h.LastKubeletRefusal = k.Refusals()
	}
	if len(h.Problems) > 0 {
		h.State = control.StateDegraded
	}
	return h
}

// killProcess kills one of the lab's supervised processes (etcd,
// kube-apiserver, kube-controller-manager, kube-scheduler) with SIGKILL, as
// a crash would; the lab restarts it. For fault-injection tests.
func (l *Lab) killProcess(name string) error {
	var names []string
	for _, c := range l.supervised() {
		if c.Name == name {
			return c.Kill()
		}
		names = append(names, c.Name)
	}
	return fmt.Errorf("%w: no process %q (known: %s)", ErrUnknownComponent, name, strings.Join(names, ", "))
}

// supervised returns the lab's processes: etcd, kube-apiserver, then the
// components' in the registry's order.
func (l *Lab) supervised() []*proc.Child {
	var children []*proc.Child
	if cp := l.cp; cp != nil {
		children = append(children, cp.Processes()...)
	}
	for _, c := range l.components.list() {
		if sc, ok := c.(supervisedComponent); ok && sc.child() != nil {
			children = append(children, sc.child())
		}
	}
	return children
}

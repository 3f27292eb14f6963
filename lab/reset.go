package lab

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crdlab/crdlab/lab/internal/reset"
	"github.com/crdlab/crdlab/lab/labtest/control"
	"github.com/crdlab/crdlab/lab/timeline"
)

// etcdPrefix is where kube-apiserver keeps its objects in etcd (its
// --etcd-prefix, "/registry" by default).
const etcdPrefix = "/registry/"

// ErrReset: the lab cannot be reset (it keeps etcd out of reach, or ran on
// binaries of its own whose etcd it cannot reach).
var ErrReset = errors.New("unable to reset the lab")

// Reset brings the cluster back to its state when Start returned: every
// namespace and every object created since is gone (from etcd, not
// Terminating: finalizers do not run), every object deleted since is back,
// and the components and nodes stopped since run again. Objects that were
// there at Start keep their current content (nodes and leases move on).
// CustomResourceDefinitions created since stay unless opts.RemoveCRDs.
// It takes tens of milliseconds, against seconds for a namespace deletion.
func (l *Lab) Reset(ctx context.Context, opts control.ResetOptions) error {
	if l.baseline == nil {
		return fmt.Errorf("%w: no baseline was taken at start", ErrReset)
	}
	keep := []string{
		// Leader election and heartbeats of what keeps running.
		etcdPrefix + "leases/kube-system/",
		etcdPrefix + "leases/kube-node-lease/",
		etcdPrefix + "masterleases/",
		// The controller-manager's own identities, made as it starts.
		etcdPrefix + "serviceaccounts/kube-system/",
	}
	// What the controller-manager makes in every namespace, also in those
	// there at the start when it comes a moment after the baseline.
	systemKeys := func(key string) bool {
		if ns, name, ok := namespacedKey(key, "configmaps"); ok && name == "kube-root-ca.crt" {
			return l.baseline.hasNamespace(ns)
		}
		if ns, name, ok := namespacedKey(key, "serviceaccounts"); ok && name == "default" {
			return l.baseline.hasNamespace(ns)
		}
		return false
	}
	if !opts.RemoveCRDs {
		keep = append(keep,
			etcdPrefix+"apiextensions.k8s.io/customresourcedefinitions/",
			etcdPrefix+"apiregistration.k8s.io/apiservices/")
	}
	noRestore := []string{etcdPrefix + "leases/", etcdPrefix + "events/", etcdPrefix + "events.k8s.io/"}
	res, err := l.baseline.b.Restore(ctx, l.baseline.etcd, reset.Policy{
		Keep:      func(key string) bool { return reset.HasPrefix(key, keep...) || systemKeys(key) },
		NoRestore: func(key string) bool { return reset.HasPrefix(key, noRestore...) },
		Phase:     resetPhase,
		Settle: func(ctx context.Context, deleted []string) error {
			return settle(ctx, l.admin.client, deleted, l.opts.StartTimeout)
		},
	})
	l.opts.Logger.V(1).Info("reset etcd to the baseline", "deleted", res.Deleted, "restored", res.Restored)
	if err == nil && l.opts.Events != nil {
		l.opts.Events.Record(timeline.Event{
			Time: time.Now(), Actor: "crdlab reset", Verb: "RESET", Kind: "Cluster", Name: "lab",
			Detail: fmt.Sprintf("%d objects deleted, %d put back: the DELETEs by ? that follow", res.Deleted, res.Restored),
		})
	}
	if err != nil {
		return fmt.Errorf("%w: %w", ErrReset, err)
	}
	// A consistent list waits for the apiserver's watch cache to catch up
	// with etcd, so that what Reset deleted is gone for every reader.
	if err := l.admin.client.List(ctx, &corev1.NamespaceList{}); err != nil {
		return fmt.Errorf("%w: %w", ErrReset, err)
	}
	var stoppedNodes []string
	for _, n := range l.Nodes() {
		if !n.Running {
			stoppedNodes = append(stoppedNodes, n.Name)
		}
	}
	for _, c := range l.Components() {
		if !c.Running {
			if err := l.StartComponent(ctx, c.Name); err != nil {
				return fmt.Errorf("%w: %w", ErrReset, err)
			}
		}
	}
	for _, name := range stoppedNodes {
		if err := l.StartNode(ctx, name); err != nil {
			return fmt.Errorf("%w: %w", ErrReset, err)
		}
	}
	if len(stoppedNodes) > 0 {
		return waitNodesSchedulable(ctx, l.admin.client, stoppedNodes, l.opts.runs(ControllerManager), l.opts.StartTimeout)
	}
	return nil
}

// The phases of a reset. Namespaces go first and the apiserver must refuse
// writes into them before anything else goes, or a controller that sees
// an object go (the root CA publisher, a kube-root-ca.crt ConfigMap) makes
// it again in a namespace that no longer exists, where nothing would ever
// delete it. Then the objects no controller owns, then the owned ones, so
// that a controller seeing a ReplicaSet go finds its Deployment gone too
// rather than making a new ReplicaSet.
const (
	phaseNamespaces = iota
	phaseRoots
	phaseOwned
)

var namespacesPrefix = etcdPrefix + "namespaces/"

// namespacedKey splits the etcd key of a namespaced core object of
// resource into its namespace and name.
func namespacedKey(key, resource string) (ns, name string, ok bool) {
	rest, ok := strings.CutPrefix(key, etcdPrefix+resource+"/")
	if !ok {
		return "", "", false
	}
	return strings.Cut(rest, "/")
}

// hasNamespace reports whether namespace ns was there at the baseline.
func (b *baseline) hasNamespace(ns string) bool { return b.b.Has(namespacesPrefix + ns) }

func resetPhase(key string, value []byte) int {
	switch {
	case strings.HasPrefix(key, namespacesPrefix):
		return phaseNamespaces
	case reset.Owned(value):
		return phaseOwned
	}
	return phaseRoots
}

// settle waits, up to timeout for each namespace, until the apiserver c
// talks to has seen the deleted keys go: a consistent list for the watch
// cache and, for deleted namespaces, until its namespace admission refuses
// to create in them (it reads an informer).
func settle(ctx context.Context, c client.Client, deleted []string, timeout time.Duration) error {
	if err := c.List(ctx, &corev1.NamespaceList{}); err != nil {
		return err
	}
	// In parallel: the apiserver's namespace admission waits 50ms before
	// it refuses a create in a namespace its informer no longer has.
	g, gctx := errgroup.WithContext(ctx)
	for _, key := range deleted {
		ns, ok := strings.CutPrefix(key, namespacesPrefix)
		if !ok {
			continue
		}
		g.Go(func() error {
			err := wait.PollUntilContextTimeout(gctx, 5*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
				probe := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, GenerateName: "crdlab-reset-probe-"}}
				err := c.Create(ctx, probe, client.DryRunAll)
				return apierrors.IsNotFound(err), nil
			})
			if err != nil {
				return fmt.Errorf("namespace %s still takes objects: %w", ns, err)
			}
			return nil
		})
	}
	return g.Wait()
}

// waitNodesSchedulable waits, up to timeout, until the nodes are Ready
// and, if the controller-manager runs (kcm), the node lifecycle controller
// has taken off the taints it put on them while they were down.
func waitNodesSchedulable(ctx context.Context, c client.Client, names []string, kcm bool, timeout time.Duration) error {
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		for _, name := range names {
			var n corev1.Node
			if err := c.Get(ctx, client.ObjectKey{Name: name}, &n); err != nil {
				return false, nil
			}
			ready := false
			for _, c := range n.Status.Conditions {
				ready = ready || (c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue)
			}
			if !ready {
				return false, nil
			}
			if kcm {
				for _, t := range n.Spec.Taints {
					if t.Key == corev1.TaintNodeUnreachable || t.Key == corev1.TaintNodeNotReady {
						return false, nil
					}
				}
			}
		}
		return true, nil
	})
	if err != nil {
		return fmt.Errorf("%w: nodes %v not schedulable again: %w", ErrReset, names, err)
	}
	return nil
}

// baseline is etcd's content when the lab was ready, what Reset returns
// to, and the client Reset writes with.
type baseline struct {
	etcd    *clientv3.Client
	b       *reset.Baseline
	etcdURL string
	closing sync.Once
}

// takeBaseline records the content of the etcd at etcdURL.
func takeBaseline(ctx context.Context, etcdURL string, timeout time.Duration) (*baseline, error) {
	cli, err := clientv3.New(clientv3.Config{
		Endpoints:   []string{etcdURL},
		DialTimeout: timeout,
		Logger:      zap.NewNop(),
	})
	if err != nil {
		return nil, fmt.Errorf("unable to reach etcd for a baseline: %w", err)
	}
	b, err := reset.Take(ctx, cli, etcdPrefix)
	if err != nil {
		_ = cli.Close()
		return nil, err
	}
	return &baseline{etcd: cli, b: b, etcdURL: etcdURL}, nil
}

// lostData compares a restarted etcd's revision with the baseline's:
// lower means its data is gone (an ephemeral data dir removed under it,
// for example), which no restart brings back. It returns the problem, or
// "".
func (b *baseline) lostData() string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	st, err := b.etcd.Status(ctx, b.etcdURL)
	if err != nil || st.Header.Revision >= b.b.Revision() {
		return ""
	}
	return fmt.Sprintf("etcd restarted without its data (revision %d, it was at %d when the lab was ready): objects written before the crash are lost; stop the lab and start it again",
		st.Header.Revision, b.b.Revision())
}

// close closes the client.
func (b *baseline) close() { b.closing.Do(func() { _ = b.etcd.Close() }) }

package controllers

import (
	"context"
	"fmt"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crdlab/crdlab/controllers/redis"
	"github.com/crdlab/crdlab/controllers/webapp"
	"github.com/crdlab/crdlab/lab/timeline"
)

// Scheme returns client-go's scheme plus the sample operators' types.
func Scheme() *runtime.Scheme {
	s := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(s)
	_ = webapp.AddToScheme(s)
	_ = redis.AddToScheme(s)
	return s
}

// operator is one in-process controller: its name (field manager, event
// source), the kind it reconciles, and how to build it.
type operator struct {
	name, kind string
	new        func(client.Client, events.EventRecorder) (reconcile.Reconciler, setupFunc)
}

type setupFunc func(ctrl.Manager, reconcile.Reconciler, ...predicate.Predicate) error

// operators are the sample operators Start runs.
var operators = []operator{
	{webapp.Name, "WebApp", func(c client.Client, rec events.EventRecorder) (reconcile.Reconciler, setupFunc) {
		r := &webapp.Reconciler{Client: c, Recorder: rec}
		return r, r.SetupWithManagerAs
	}},
	{redis.Name, "RedisCluster", func(c client.Client, rec events.EventRecorder) (reconcile.Reconciler, setupFunc) {
		r := &redis.ClusterReconciler{Client: c, Recorder: rec}
		return r, r.SetupWithManagerAs
	}},
	{redis.BackupName, "RedisBackup", func(c client.Client, rec events.EventRecorder) (reconcile.Reconciler, setupFunc) {
		r := &redis.BackupReconciler{Client: c, Recorder: rec}
		return r, r.SetupWithManagerAs
	}},
}

// Names are the names of the operators Start runs.
func Names() []string {
	var names []string
	for _, op := range operators {
		names = append(names, op.name)
	}
	return names
}

// Options configures the sample operators. The zero value works.
type Options struct {
	// Logger receives the operators' diagnostics.
	Logger logr.Logger
	// Trace, if set, receives one RECONCILE event per reconcile pass: the
	// object, the writes the pass made, how it ended and how long it took.
	Trace timeline.Sink
}

// Start runs the sample operators against cfg, in this process, until ctx
// is done, and returns once their caches have synced. done receives the
// manager's result when they have stopped.
func Start(ctx context.Context, cfg *rest.Config, opts Options) (done <-chan error, err error) {
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 Scheme(),
		Logger:                 opts.Logger,
		Metrics:                metricsserver.Options{BindAddress: "0"}, // nothing listens
		HealthProbeBindAddress: "0",
		LeaderElection:         false,
		// Several labs may run in one process (tests): names repeat.
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		return nil, fmt.Errorf("unable to create the operators' manager: %w", err)
	}
	for _, op := range operators {
		c := client.WithFieldOwner(mgr.GetClient(), op.name)
		if opts.Trace != nil {
			c = tracingClient{Client: c}
		}
		r, setup := op.new(c, mgr.GetEventRecorder(op.name))
		var rec reconcile.Reconciler = r
		var preds []predicate.Predicate
		if opts.Trace != nil {
			tr := newTriggers(op.kind, mgr.GetScheme())
			rec = &tracer{name: op.name, kind: op.kind, inner: r, sink: opts.Trace, triggers: tr}
			preds = append(preds, tr.predicate())
		}
		if err := setup(mgr, rec, preds...); err != nil {
			return nil, fmt.Errorf("unable to set up %s: %w", op.name, err)
		}
	}
	errc := make(chan error, 1)
	go func() { errc <- mgr.Start(ctx) }()
	if !mgr.GetCache().WaitForCacheSync(ctx) {
		return nil, fmt.Errorf("the operators' caches did not sync: %w", ctx.Err())
	}
	return errc, nil
}

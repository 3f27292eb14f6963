package controllers

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

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
	webappv1 "github.com/crdlab/crdlab/controllers/webapp/v1"
	"github.com/crdlab/crdlab/lab/timeline"
)

// Scheme returns client-go's scheme plus the sample operators' types.
func Scheme() *runtime.Scheme {
	s := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(s)
	_ = webapp.AddToScheme(s)
	_ = webappv1.AddToScheme(s)
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
	// Webhooks, if set, also runs the WebApp's webhook server there (a
	// component named webapp.WebhookName).
	Webhooks *WebhookServing
}

// Operators are the sample operators running in this process. Each runs in
// a manager of its own, so that one can be stopped and started again (the
// controller-down scenario) while the others go on.
type Operators struct {
	cfg  *rest.Config
	opts Options
	ctx  context.Context

	mu      sync.Mutex
	running map[string]*running
	wg      sync.WaitGroup
	errs    []error
}

type running struct {
	cancel context.CancelFunc
	done   chan struct{}
}

// ErrUnknownOperator: no sample operator has that name.
var ErrUnknownOperator = errors.New("no such operator")

// Start runs the sample operators against cfg, in this process, until ctx
// is done, and returns once their caches have synced.
func Start(ctx context.Context, cfg *rest.Config, opts Options) (*Operators, error) {
	o := &Operators{cfg: cfg, opts: opts, ctx: ctx, running: map[string]*running{}}
	for _, name := range o.Names() {
		if err := o.Start(name); err != nil {
			return nil, err
		}
	}
	return o, nil
}

// Wait waits until every operator has stopped (its context is done) and
// returns their errors.
func (o *Operators) Wait() error {
	o.wg.Wait()
	o.mu.Lock()
	defer o.mu.Unlock()
	return errors.Join(o.errs...)
}

// Running reports whether the named operator runs.
func (o *Operators) Running(name string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.running[name] != nil
}

// Stop stops the named operator, as if its Pod had gone: its watches end,
// nothing reconciles its objects until Start.
func (o *Operators) Stop(name string) error {
	if err := o.known(name); err != nil {
		return err
	}
	o.mu.Lock()
	r := o.running[name]
	delete(o.running, name)
	o.mu.Unlock()
	if r == nil {
		return nil // already stopped
	}
	r.cancel()
	<-r.done
	return nil
}

// Start starts the named operator if it is not running, and returns once
// its caches have synced: it then lists every object it watches and
// reconciles each (level-triggered), catching up with what it missed.
func (o *Operators) Start(name string) error {
	if err := o.known(name); err != nil {
		return err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.running[name] != nil {
		return nil
	}
	if name == webapp.WebhookName {
		run, err := o.startWebhooks(o.ctx)
		if err != nil {
			return err
		}
		o.running[name] = run
		return nil
	}
	op, err := find(name)
	if err != nil {
		return err
	}
	cfg := rest.CopyConfig(o.cfg)
	cfg.UserAgent = op.name // the audit log names the operator
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 Scheme(),
		Logger:                 o.opts.Logger,
		Metrics:                metricsserver.Options{BindAddress: "0"}, // nothing listens
		HealthProbeBindAddress: "0",
		LeaderElection:         false,
		// Several labs may run in one process (tests): names repeat.
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		return fmt.Errorf("unable to create the manager of %s: %w", name, err)
	}
	c := client.WithFieldOwner(mgr.GetClient(), op.name)
	if o.opts.Trace != nil {
		c = tracingClient{Client: c}
	}
	r, setup := op.new(c, mgr.GetEventRecorder(op.name))
	rec := r
	var preds []predicate.Predicate
	if o.opts.Trace != nil {
		tr := newTriggers(op.kind, mgr.GetScheme())
		rec = &tracer{name: op.name, kind: op.kind, inner: r, sink: o.opts.Trace, triggers: tr}
		preds = append(preds, tr.predicate())
	}
	if err := setup(mgr, rec, preds...); err != nil {
		return fmt.Errorf("unable to set up %s: %w", op.name, err)
	}
	ctx, cancel := context.WithCancel(o.ctx)
	run := &running{cancel: cancel, done: make(chan struct{})}
	o.wg.Add(1)
	go func() {
		defer o.wg.Done()
		defer close(run.done)
		if err := mgr.Start(ctx); err != nil {
			o.mu.Lock()
			o.errs = append(o.errs, fmt.Errorf("%s: %w", name, err))
			o.mu.Unlock()
		}
	}()
	if !mgr.GetCache().WaitForCacheSync(ctx) {
		cancel()
		return fmt.Errorf("the caches of %s did not sync: %w", name, ctx.Err())
	}
	o.running[name] = run
	return nil
}

func find(name string) (operator, error) {
	for _, op := range operators {
		if op.name == name {
			return op, nil
		}
	}
	return operator{}, fmt.Errorf("%w %q (operators: %s)", ErrUnknownOperator, name, strings.Join(Names(), ", "))
}

// Names are the names of the operators as components of a lab
// (lab.Operators), and of the webhook server when it runs.
func (o *Operators) Names() []string {
	if o.opts.Webhooks == nil {
		return Names()
	}
	return append(Names(), webapp.WebhookName)
}

func (o *Operators) known(name string) error {
	for _, n := range o.Names() {
		if n == name {
			return nil
		}
	}
	return fmt.Errorf("%w %q (operators: %s)", ErrUnknownOperator, name, strings.Join(o.Names(), ", "))
}

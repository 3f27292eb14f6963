package trace

import (
	"fmt"
	"strings"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"
)

// Builder is controller-runtime's builder (builder.Builder, what
// ctrl.NewControllerManagedBy returns) whose controller reports its
// reconcile passes to the lab the manager talks to. Its methods are the
// builder's, with the same meaning.
type Builder struct {
	mgr     manager.Manager
	lab     string
	name    string
	forObj  client.Object
	forOpts []builder.ForOption
	owns    []owned
	watches []func(bb *builder.Builder, t *triggers)
	opts    controller.Options
	again   bool // For was called more than once: the builder's error
}

type owned struct {
	obj  client.Object
	opts []builder.OwnsOption
}

// ControllerManagedBy returns a builder like ctrl.NewControllerManagedBy(mgr)
// whose controller's passes go on the timeline of the lab mgr talks to,
// when there is one (see the package's doc: which lab).
func ControllerManagedBy(mgr manager.Manager) *Builder {
	return &Builder{mgr: mgr}
}

// WithLab names the state dir of the lab to report to, instead of looking
// for it; still, the lab must be the one the manager talks to.
func (b *Builder) WithLab(stateDir string) *Builder {
	b.lab = stateDir
	return b
}

// For is builder.Builder's For: the kind the controller reconciles.
func (b *Builder) For(obj client.Object, opts ...builder.ForOption) *Builder {
	if b.forObj != nil {
		b.again = true
		b.watches = append(b.watches, func(bb *builder.Builder, _ *triggers) { bb.For(obj, opts...) })
		return b
	}
	b.forObj, b.forOpts = obj, opts
	return b
}

// Owns is builder.Builder's Owns: a kind the controller makes, whose
// events reconcile their owner.
func (b *Builder) Owns(obj client.Object, opts ...builder.OwnsOption) *Builder {
	b.owns = append(b.owns, owned{obj: obj, opts: opts})
	return b
}

// Watches is builder.Builder's Watches: the requests h queues for an event
// name that event as what woke their pass.
func (b *Builder) Watches(obj client.Object, h handler.EventHandler, opts ...builder.WatchesOption) *Builder {
	b.watches = append(b.watches, func(bb *builder.Builder, t *triggers) { bb.Watches(obj, t.handler(h), opts...) })
	return b
}

// WatchesMetadata is builder.Builder's WatchesMetadata, traced as Watches.
func (b *Builder) WatchesMetadata(obj client.Object, h handler.EventHandler, opts ...builder.WatchesOption) *Builder {
	b.watches = append(b.watches, func(bb *builder.Builder, t *triggers) { bb.WatchesMetadata(obj, t.handler(h), opts...) })
	return b
}

// WatchesRawSource is builder.Builder's WatchesRawSource; its events are
// not named (a pass they wake says "a requeue or a related object").
func (b *Builder) WatchesRawSource(src source.Source) *Builder {
	b.watches = append(b.watches, func(bb *builder.Builder, _ *triggers) { bb.WatchesRawSource(src) })
	return b
}

// WithEventFilter is builder.Builder's WithEventFilter.
func (b *Builder) WithEventFilter(p predicate.Predicate) *Builder {
	b.watches = append(b.watches, func(bb *builder.Builder, _ *triggers) { bb.WithEventFilter(p) })
	return b
}

// WithOptions is builder.Builder's WithOptions.
func (b *Builder) WithOptions(opts controller.Options) *Builder {
	b.opts = opts
	return b
}

// WithLogConstructor is builder.Builder's WithLogConstructor.
func (b *Builder) WithLogConstructor(f func(*reconcile.Request) logr.Logger) *Builder {
	b.opts.LogConstructor = f
	return b
}

// Named is builder.Builder's Named; the name is also the controller's lane
// on the timeline.
func (b *Builder) Named(name string) *Builder {
	b.name = name
	return b
}

// Complete is builder.Builder's Complete: it builds the controller and
// adds it, and the reporter of its passes, to the manager.
func (b *Builder) Complete(r reconcile.Reconciler) error {
	_, err := b.Build(r)
	return err
}

// Build is builder.Builder's Build. Without a lab, the controller is
// builder.Builder's alone: r is not wrapped, no watch is changed.
func (b *Builder) Build(r reconcile.Reconciler) (controller.Controller, error) {
	d, found := findLab(b.mgr.GetConfig(), b.lab)
	// What the builder refuses, it refuses as it is.
	if !found || b.again || b.forObj == nil && len(b.owns) > 0 || !watchable(b.forOpts, b.owns) {
		return b.plain().Build(r)
	}
	traced, err := b.traced(r, newReporter(d))
	if err != nil {
		return nil, err
	}
	c, err := traced.bb.Build(traced.r)
	if err != nil {
		return nil, err
	}
	if err := b.mgr.Add(traced.rep); err != nil {
		return nil, fmt.Errorf("unable to add the reporter of controller %s to the manager: %w", traced.r.controller, err)
	}
	return c, nil
}

// plain is controller-runtime's builder with every call given to b.
func (b *Builder) plain() *builder.Builder {
	bb := builder.ControllerManagedBy(b.mgr)
	if b.forObj != nil {
		bb.For(b.forObj, b.forOpts...)
	}
	for _, o := range b.owns {
		bb.Owns(o.obj, o.opts...)
	}
	for _, w := range b.watches {
		w(bb, nil)
	}
	if b.name != "" {
		bb.Named(b.name)
	}
	return bb.WithOptions(b.opts)
}

type tracedController struct {
	bb  *builder.Builder
	r   *reconciler
	rep *reporter
}

// traced is controller-runtime's builder with For and Owns made the
// Watches they are equivalent to (builder.Builder's doc says which), with
// the controller's name, concurrency and logger as the builder gives them,
// and every watch's handler noting which event queued which request.
func (b *Builder) traced(r reconcile.Reconciler, rep *reporter) (*tracedController, error) {
	bb := builder.ControllerManagedBy(b.mgr)
	kind := unknownKindFor
	opts := b.opts
	t := newTriggers(b.mgr.GetScheme())
	if b.forObj != nil {
		gvk, err := apiutil.GVKForObject(b.forObj, b.mgr.GetScheme())
		if err != nil {
			return nil, fmt.Errorf("unable to trace the controller of %T: %w", b.forObj, err)
		}
		kind = gvk.Kind
		if b.name == "" {
			b.name = strings.ToLower(gvk.Kind)
		}
		if opts.MaxConcurrentReconciles == 0 {
			if n := b.mgr.GetControllerOptions().GroupKindConcurrency[gvk.GroupKind().String()]; n > 0 {
				opts.MaxConcurrentReconciles = n
			}
		}
		if opts.LogConstructor == nil {
			log := b.mgr.GetLogger().WithValues("controller", b.name, "controllerGroup", gvk.Group, "controllerKind", gvk.Kind)
			opts.LogConstructor = func(req *reconcile.Request) logr.Logger {
				if req == nil {
					return log
				}
				return log.WithValues(gvk.Kind, klog.KRef(req.Namespace, req.Name), "namespace", req.Namespace, "name", req.Name)
			}
		}
		bb.Watches(b.forObj, t.handler(&handler.EnqueueRequestForObject{}), asWatches(b.forOpts)...)
		for _, o := range b.owns {
			var owner []handler.OwnerOption
			if !matchEveryOwner(o.opts) {
				owner = append(owner, handler.OnlyControllerOwner())
			}
			h := handler.EnqueueRequestForOwner(b.mgr.GetScheme(), b.mgr.GetRESTMapper(), b.forObj, owner...)
			bb.Watches(o.obj, t.handler(h), asWatches(o.opts)...)
		}
	}
	for _, w := range b.watches {
		w(bb, t)
	}
	if b.name != "" {
		bb.Named(b.name)
	}
	bb.WithOptions(opts)
	return &tracedController{
		bb:  bb,
		r:   &reconciler{inner: r, controller: b.name, kind: kind, triggers: t, report: rep.record},
		rep: rep,
	}, nil
}

// watchable says whether each option of For and Owns is also an option of
// Watches (the builder's own are: predicates, OnlyMetadata), so that they
// can be made Watches; otherwise the controller is not traced.
func watchable(forOpts []builder.ForOption, owns []owned) bool {
	for _, o := range forOpts {
		if _, ok := o.(builder.WatchesOption); !ok {
			return false
		}
	}
	for _, own := range owns {
		for _, o := range own.opts {
			if _, ok := o.(builder.WatchesOption); !ok && o != builder.MatchEveryOwner {
				return false
			}
		}
	}
	return true
}

// asWatches returns the options of For or Owns as options of Watches
// (watchable checked they are), less MatchEveryOwner.
func asWatches[O any](opts []O) []builder.WatchesOption {
	var out []builder.WatchesOption
	for _, o := range opts {
		if w, ok := any(o).(builder.WatchesOption); ok {
			out = append(out, w)
		}
	}
	return out
}

func matchEveryOwner(opts []builder.OwnsOption) bool {
	for _, o := range opts {
		if o == builder.MatchEveryOwner {
			return true
		}
	}
	return false
}

package trace

import (
	"fmt"
	"strings"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime/schema"
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
	mgr   manager.Manager
	lab   string
	name  string
	forOb client.Object
	steps []func(b *builder.Builder, t *triggers)
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
	b.forOb = obj
	b.steps = append(b.steps, func(bb *builder.Builder, t *triggers) {
		o := opts
		if t != nil {
			o = append(o[:len(o):len(o)], builder.WithPredicates(t.noting(self)))
		}
		bb.For(obj, o...)
	})
	return b
}

// Owns is builder.Builder's Owns: a kind the controller makes, whose
// events reconcile their owner.
func (b *Builder) Owns(obj client.Object, opts ...builder.OwnsOption) *Builder {
	b.steps = append(b.steps, func(bb *builder.Builder, t *triggers) {
		o := opts
		if t != nil {
			every := false
			for _, o := range opts {
				if o == builder.MatchEveryOwner {
					every = true
				}
			}
			o = append(o[:len(o):len(o)], builder.WithPredicates(t.noting(t.owners(every))))
		}
		bb.Owns(obj, o...)
	})
	return b
}

// Watches is builder.Builder's Watches: the requests h queues for an event
// name that event as what woke their pass.
func (b *Builder) Watches(obj client.Object, h handler.EventHandler, opts ...builder.WatchesOption) *Builder {
	b.steps = append(b.steps, func(bb *builder.Builder, t *triggers) {
		traced := h
		if t != nil {
			traced = t.handler(h)
		}
		bb.Watches(obj, traced, opts...)
	})
	return b
}

// WatchesMetadata is builder.Builder's WatchesMetadata, traced as Watches.
func (b *Builder) WatchesMetadata(obj client.Object, h handler.EventHandler, opts ...builder.WatchesOption) *Builder {
	b.steps = append(b.steps, func(bb *builder.Builder, t *triggers) {
		traced := h
		if t != nil {
			traced = t.handler(h)
		}
		bb.WatchesMetadata(obj, traced, opts...)
	})
	return b
}

// WatchesRawSource is builder.Builder's WatchesRawSource; its events are
// not named (a pass they wake says "a requeue or a related object").
func (b *Builder) WatchesRawSource(src source.Source) *Builder {
	b.steps = append(b.steps, func(bb *builder.Builder, _ *triggers) { bb.WatchesRawSource(src) })
	return b
}

// WithEventFilter is builder.Builder's WithEventFilter.
func (b *Builder) WithEventFilter(p predicate.Predicate) *Builder {
	b.steps = append(b.steps, func(bb *builder.Builder, _ *triggers) { bb.WithEventFilter(p) })
	return b
}

// WithOptions is builder.Builder's WithOptions.
func (b *Builder) WithOptions(opts controller.Options) *Builder {
	b.steps = append(b.steps, func(bb *builder.Builder, _ *triggers) { bb.WithOptions(opts) })
	return b
}

// WithLogConstructor is builder.Builder's WithLogConstructor.
func (b *Builder) WithLogConstructor(f func(*reconcile.Request) logr.Logger) *Builder {
	b.steps = append(b.steps, func(bb *builder.Builder, _ *triggers) { bb.WithLogConstructor(f) })
	return b
}

// Named is builder.Builder's Named; the name is also the controller's lane
// on the timeline.
func (b *Builder) Named(name string) *Builder {
	b.name = name
	b.steps = append(b.steps, func(bb *builder.Builder, _ *triggers) { bb.Named(name) })
	return b
}

// Complete is builder.Builder's Complete: it builds the controller and
// adds it, and the reporter of its passes, to the manager.
func (b *Builder) Complete(r reconcile.Reconciler) error {
	_, err := b.Build(r)
	return err
}

// Build is builder.Builder's Build. Without a lab, the controller is
// builder.Builder's alone: r is not wrapped, no predicate is added.
func (b *Builder) Build(r reconcile.Reconciler) (controller.Controller, error) {
	bb := builder.ControllerManagedBy(b.mgr)
	d, found := findLab(b.mgr.GetConfig(), b.lab)
	if !found {
		for _, step := range b.steps {
			step(bb, nil)
		}
		return bb.Build(r)
	}
	var gk schema.GroupKind
	kind := unknownKindFor
	if b.forOb != nil {
		gvk, err := apiutil.GVKForObject(b.forOb, b.mgr.GetScheme())
		if err != nil {
			return nil, fmt.Errorf("unable to trace the controller of %T: %w", b.forOb, err)
		}
		gk, kind = gvk.GroupKind(), gvk.Kind
	}
	name := b.name
	if name == "" {
		name = strings.ToLower(kind) // controller-runtime's default name
	}
	t := newTriggers(gk, b.mgr.GetScheme())
	for _, step := range b.steps {
		step(bb, t)
	}
	rep := newReporter(d)
	c, err := bb.Build(&reconciler{inner: r, controller: name, kind: kind, triggers: t, report: rep.record})
	if err != nil {
		return nil, err
	}
	if err := b.mgr.Add(rep); err != nil {
		return nil, fmt.Errorf("unable to add the reporter of controller %s to the manager: %w", name, err)
	}
	return c, nil
}

package lab

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/crdlab/crdlab/lab/internal/controlplane"
	"github.com/crdlab/crdlab/lab/internal/proc"
)

// A lab's optional components sit in one registry, in the order users see
// them: the built-in ones of Options.Components (builtins), then the
// operators Options.Alongside returned. Components, StopComponent and
// StartComponent go through it, by the name 'crdlab up --components' takes.

// component is a part of the lab that can be stopped and started by name.
type component interface {
	// Name is the component's name as users see it (--components).
	Name() string
	// Start starts the component, or starts it again after Stop, and
	// returns once it serves. Starting a running component does nothing.
	Start(ctx context.Context) error
	// Running reports whether it runs (a crashed process that supervision
	// restarts runs).
	Running() bool
	// Stop stops it until Start. Stopping a stopped component does nothing.
	Stop(ctx context.Context) error
}

// supervisedComponent is a component that runs as a supervised process.
type supervisedComponent interface {
	component
	child() *proc.Child
}

// closer is a component of this process with something to release when
// the lab stops (Lab.Stop); close is safe more than once.
type closer interface {
	component
	close()
}

// apiServerPart is a component kube-apiserver is configured for. Before
// kube-apiserver starts, configureAPIServer makes what its flags will
// point at (certificates in its CertDir, configuration files, a socket it
// dials) and sets the APIServer's fields for them: kube-apiserver's command
// line itself is assembled in lab/internal/controlplane alone.
type apiServerPart interface {
	component
	configureAPIServer(a *controlplane.APIServer) error
}

// registry is the lab's optional components, in the order users see them,
// and the serving certificate those that serve share.
type registry struct {
	mu         sync.Mutex
	components []component

	// serving is the serving certificate of kube-controller-manager,
	// kube-scheduler and the aggregated API server (makeServingCert),
	// made before they start.
	serving servingFiles
}

// list returns the components, in order.
func (r *registry) list() []component {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.components)
}

// add adds components after those there.
func (r *registry) add(cs ...component) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.components = append(r.components, cs...)
}

// builtin is a component every lab can run, and what its start says.
type builtin struct {
	name string
	new  func(l *Lab) component
	// servingCert: it serves with the components' serving certificate
	// (makeServingCert).
	servingCert bool
	// starting and started are said (Options.Progress) before its first
	// start and once the start of every component is done; the same phase
	// is said once. ready, if set, is said as soon as its own start is done.
	starting, started Phase
	ready             func(l *Lab) Progress
}

// builtins are the optional components, in the order users see them.
var builtins = []builtin{
	{
		name: ControllerManager, new: newControllerManager, servingCert: true,
		starting: PhaseControllersStarting,
		started:  PhaseControllersHealthy,
	},
	{
		name: Scheduler, new: newScheduler, servingCert: true,
		starting: PhaseControllersStarting,
		started:  PhaseControllersHealthy,
	},
	{
		name: Nodes, new: func(l *Lab) component { return &nodes{lab: l} },
		ready: func(l *Lab) Progress { return Progress{Phase: PhaseNodesReady, Nodes: len(l.Nodes())} },
	},
	{
		name: AggregatedAPI, new: func(l *Lab) component { return &aggregatedAPI{lab: l} }, servingCert: true,
		ready: func(*Lab) Progress { return Progress{Phase: PhaseAggregatedAPIReady} },
	},
}

// ComponentNames returns the names of the optional components a lab can
// run (all of them by default; see Options.Components), in order.
func ComponentNames() []string {
	names := make([]string, 0, len(builtins))
	for _, b := range builtins {
		names = append(names, b.name)
	}
	return names
}

// validComponents checks names against ComponentNames.
func validComponents(names []string) error {
	known := ComponentNames()
	for _, n := range names {
		if !slices.Contains(known, n) {
			return fmt.Errorf("%w: %q (known: %s)", ErrUnknownComponent, n, strings.Join(known, ", "))
		}
	}
	return nil
}

// runs reports whether the lab runs the optional component name.
func (o *Options) runs(name string) bool {
	return o.Components == nil || slices.Contains(o.Components, name)
}

// lookup returns the component called name, or fails with
// ErrUnknownComponent naming the lab's components.
func (r *registry) lookup(name string) (component, error) {
	var names []string
	for _, c := range r.list() {
		if c.Name() == name {
			return c, nil
		}
		names = append(names, c.Name())
	}
	hint := ""
	if slices.Contains(ComponentNames(), name) {
		hint = " (not started: see Options.Components)"
	}
	return nil, fmt.Errorf("%w: %q%s; this lab has: %s", ErrUnknownComponent, name, hint, strings.Join(names, ", "))
}

// operator is one of the operators Options.Alongside returned.
type operator struct {
	ops  Operators
	name string
}

func (o operator) Name() string                { return o.name }
func (o operator) Running() bool               { return o.ops.Running(o.name) }
func (o operator) Start(context.Context) error { return o.ops.Start(o.name) }
func (o operator) Stop(context.Context) error  { return o.ops.Stop(o.name) }
func operatorsOf(ops Operators) (cs []component) {
	if ops == nil {
		return nil
	}
	for _, name := range ops.Names() {
		cs = append(cs, operator{ops: ops, name: name})
	}
	return cs
}

package full

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/crdlab/crdlab/controllers"
	"github.com/crdlab/crdlab/fixtures"
	"github.com/crdlab/crdlab/lab"
	"github.com/crdlab/crdlab/lab/timeline"
)

// Options configures a full lab. The zero value works: a lab with every
// component, the sample CRDs and the sample operators.
type Options struct {
	// Lab configures the control plane. The sample CRDs are added to its
	// CRDs; its Scheme defaults to controllers.Scheme(); its Logger is also
	// the operators'.
	Lab lab.Options

	// NoSamples leaves out the sample CRDs and operators.
	NoSamples bool

	// Trace, if set, also receives, as they happen, the events only this
	// process sees: the operators' reconcile passes and the aggregated API
	// server's requests ('crdlab up' prints them; a suite collects them).
	Trace timeline.Sink

	// Observe, if not nil, is told of every object the lab's timeline
	// watch holds and of every change to one (the web UI's view of the
	// cluster); see timeline.Options.Observe.
	Observe func(timeline.Change)
}

// orderWindow is how long the lab's timeline holds a line for the lines
// of lower revisions that other informers have not delivered yet.
const orderWindow = 500 * time.Millisecond

// Lab is a running full lab. Stop it with Stop.
type Lab struct {
	*lab.Lab

	// Operators are the sample operators (nil with Options.NoSamples).
	Operators *controllers.Operators

	events  timeline.Broadcast
	trace   timeline.Sink // the events, the ordered timeline and Options.Trace
	stopOps context.CancelFunc

	// The lab's timeline, in the cluster's order: every change in the
	// cluster (watched from the start) and every line only this process
	// sees. See Timeline and Record.
	ordered     *timeline.Order
	watchSynced chan struct{}
	watchErr    error // set before watchSynced is closed, if the watch could not start
	stopWatch   context.CancelFunc
}

// Start starts a full lab in this process. On error nothing it started is
// left running.
func Start(ctx context.Context, opts Options) (_ *Lab, retErr error) {
	l := &Lab{ordered: timeline.NewOrder(orderWindow, true), watchSynced: make(chan struct{})}
	defer func() {
		if retErr != nil {
			_ = l.Stop()
		}
	}()
	watchCtx, stopWatch := context.WithCancel(context.WithoutCancel(ctx))
	l.stopWatch = stopWatch
	go l.ordered.Run(watchCtx)
	sink := timeline.Tee(&l.events, l.ordered, opts.Trace)
	l.trace = sink
	o := opts.Lab
	o.Events = timeline.Tee(o.Events, sink)
	if o.Progress == nil {
		o.Progress = func(string) {}
	}
	if o.Scheme == nil {
		o.Scheme = controllers.Scheme()
	}
	if !opts.NoSamples {
		crds, err := fixtures.CRDs()
		if err != nil {
			return nil, err
		}
		o.CRDs = append(crds, o.CRDs...)
		mutating, validating, err := fixtures.Webhooks()
		if err != nil {
			return nil, err
		}
		o.WebhookInstallOptions.MutatingWebhooks = append(mutating, o.WebhookInstallOptions.MutatingWebhooks...)
		o.WebhookInstallOptions.ValidatingWebhooks = append(validating, o.WebhookInstallOptions.ValidatingWebhooks...)
		policies, err := fixtures.Policies()
		if err != nil {
			return nil, err
		}
		for _, p := range policies {
			o.Objects = append(o.Objects, p)
		}
	}
	if !opts.NoSamples {
		// The operators start while the components do: they need only the
		// apiserver and their CRDs.
		o.Alongside = func(ctx context.Context, ll *lab.Lab) (lab.Operators, error) {
			opCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
			wh := ll.WebhookInstallOptions()
			ops, err := controllers.Start(opCtx, ll.RESTConfig(), controllers.Options{
				Logger: o.Logger, Trace: sink,
				Webhooks: &controllers.WebhookServing{Host: wh.LocalServingHost, Port: wh.LocalServingPort, CertDir: wh.LocalServingCertDir},
			})
			if err != nil {
				cancel()
				return nil, err
			}
			l.Operators, l.stopOps = ops, cancel
			o.Progress("sample operators running: " + strings.Join(controllers.Names(), ", ") +
				fmt.Sprintf("; the WebApp's webhooks served on https://%s:%d", wh.LocalServingHost, wh.LocalServingPort))
			return ops, nil
		}
	}
	var err error
	if l.Lab, err = lab.Start(ctx, o); err != nil {
		return nil, err
	}
	go l.watch(watchCtx, opts.Observe)
	return l, nil
}

// watch watches the cluster into the lab's ordered timeline until ctx is
// done.
func (l *Lab) watch(ctx context.Context, observe func(timeline.Change)) {
	var once sync.Once
	synced := func() { once.Do(func() { close(l.watchSynced) }) }
	err := timeline.WatchWith(ctx, l.RESTConfig(), l.ordered, timeline.Options{
		AuditLog: l.Dir().AuditLog(), Revisions: true, Observe: observe, Synced: synced,
	})
	if err != nil {
		l.watchErr = err
		synced()
	}
}

// Record puts a line only this process sees (a reconcile pass, a webhook
// call, a crash; no revision: placed by its Time) on the lab's timeline:
// the lab's ordered stream, its event stream (Events) and Options.Trace,
// as if one of its operators had recorded it. The reconcile passes of a
// suite's own controller, which its process sends over the control socket
// (control.RoutePasses), come in here.
func (l *Lab) Record(e timeline.Event) { l.trace.Record(e) }

// Timeline streams the lab's timeline into sink until ctx is done: every
// change in the cluster since the lab started watching it and every line
// only this process sees, in the cluster's order (timeline.Order), each
// write with its revision and the apiserver's time. It is the one stream
// the terminal, logs/timeline.log, the web UI and the scenario runs show
// (control.RouteTimeline).
//
// ready, if not nil, is called once the lab's watches have synced (or
// after syncWait, when a resource cannot be listed: a CRD whose
// conversion webhook does not answer): the changes made after it are in
// the stream. Lines released before it are not streamed.
func (l *Lab) Timeline(ctx context.Context, sink timeline.Sink, ready func()) error {
	ch, cancel := l.ordered.Subscribe()
	defer cancel()
	synced, timeout := l.watchSynced, time.After(syncWait)
	started := ready == nil
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-synced:
			if l.watchErr != nil {
				return l.watchErr
			}
			synced, timeout = nil, nil
			if !started {
				ready()
				started = true
			}
		case <-timeout:
			timeout = nil
			if !started {
				ready()
				started = true
			}
		case e := <-ch:
			if started {
				sink.Record(e)
			}
		}
	}
}

// syncWait bounds how long Timeline waits for the lab's watches to sync
// before it calls ready.
const syncWait = 20 * time.Second

// TimelineWindow is how long the lab's timeline holds a line for the lines
// before it.
func (l *Lab) TimelineWindow() time.Duration { return l.ordered.Window() }

// LateLines returns how many lines of the lab's timeline arrived after
// the window, after lines that come after them.
func (l *Lab) LateLines() int64 { return l.ordered.Late() }

// Events streams the events only this process sees (see Options.Trace)
// into sink until ctx is done; ready, if not nil, is called once it
// listens. A slow sink loses events rather than slowing the lab down. It
// is the stream a lab's server serves on its control socket
// (control.RouteEvents).
func (l *Lab) Events(ctx context.Context, sink timeline.Sink, ready func()) error {
	ch, cancel := l.events.Subscribe()
	defer cancel()
	if ready != nil {
		ready()
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case e := <-ch:
			sink.Record(e)
		}
	}
}

// Stop stops the operators, then the lab. It is safe on a partly started
// lab and more than once.
func (l *Lab) Stop() error {
	var errs []error
	if l.stopWatch != nil {
		l.stopWatch()
		l.stopWatch = nil
	}
	if l.stopOps != nil {
		l.stopOps()
		l.stopOps = nil
		if err := l.Operators.Wait(); err != nil && !errors.Is(err, context.Canceled) {
			errs = append(errs, fmt.Errorf("sample operators: %w", err))
		}
	}
	if l.Lab != nil {
		errs = append(errs, l.Lab.Stop())
	}
	return errors.Join(errs...)
}

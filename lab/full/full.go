package full

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/crdlab/crdlab/controllers"
	"github.com/crdlab/crdlab/fixtures"
	"github.com/crdlab/crdlab/lab"
	"github.com/crdlab/crdlab/lab/daemon"
	"github.com/crdlab/crdlab/lab/timeline"
	"github.com/crdlab/crdlab/lab/ui"
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

	// UI, if not nil, serves the lab's web UI (Up only; see package ui).
	UI *UIOptions
}

// UIOptions configure the web UI of a lab of Up.
type UIOptions struct {
	// Port is its port on 127.0.0.1; 0: a free port.
	Port int
}

// ErrUIPort: the web UI's port is taken.
var ErrUIPort = ui.ErrPortInUse

// Lab is a running full lab. Stop it with Stop.
type Lab struct {
	*lab.Lab

	// Operators are the sample operators (nil with Options.NoSamples).
	Operators *controllers.Operators

	events     timeline.Broadcast
	stopOps    context.CancelFunc
	stopServe  context.CancelFunc
	stateDir   daemon.Dir
	unlock     func()
	sampleCRDs bool
	ui         *ui.Server

	statusMu sync.Mutex
	status   *daemon.Status // as written to the state dir, once ready
}

// Start starts a full lab in this process. On error nothing it started is
// left running.
func Start(ctx context.Context, opts Options) (_ *Lab, retErr error) {
	l := &Lab{sampleCRDs: !opts.NoSamples}
	defer func() {
		if retErr != nil {
			_ = l.Stop()
		}
	}()
	sink := timeline.Tee(&l.events, opts.Trace)
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
	return l, nil
}

// Up starts a long-running lab on the state dir d, as 'crdlab up' runs it:
// d is locked for the lab's lifetime (daemon.ErrRunning when a lab holds
// it), it is the lab's work dir, the control socket is served in it and,
// once the lab is ready, its status and admin kubeconfig are written there,
// so that other commands find it. Stop clears them and releases d.
// Options.Lab.WorkDir is ignored.
func Up(ctx context.Context, d daemon.Dir, opts Options) (_ *Lab, retErr error) {
	if err := d.CheckPathLength(); err != nil {
		return nil, fmt.Errorf("%w: %w", lab.ErrWorkDir, err)
	}
	unlock, err := d.Lock()
	if errors.Is(err, daemon.ErrRunning) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", lab.ErrWorkDir, err)
	}
	started := time.Now()
	var web *ui.Server
	if opts.UI != nil {
		// Before the lab boots, so that a port in use is said at once.
		if web, err = ui.Listen(opts.UI.Port); err != nil {
			unlock()
			return nil, err
		}
	}
	opts.Lab.WorkDir = string(d)
	var up *Lab // the lab, once Start returned
	var upMu sync.Mutex
	onHealth := opts.Lab.OnHealth
	opts.Lab.OnHealth = func(h lab.Health) {
		upMu.Lock()
		l := up
		upMu.Unlock()
		if l != nil {
			l.updateHealth()
		}
		if onHealth != nil {
			onHealth(h)
		}
	}
	l, err := Start(ctx, opts)
	if err != nil {
		unlock()
		if web != nil {
			web.Close()
		}
		return nil, err
	}
	l.stateDir, l.unlock = d, unlock
	defer func() {
		if retErr != nil {
			_ = l.Stop()
		}
	}()
	serveCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	l.stopServe = cancel
	streams := daemon.Streams{Events: &l.events}
	if web != nil {
		if err := daemon.WriteFileAtomic(d.UIToken(), []byte(web.Token()+"\n"), 0o600); err != nil {
			web.Close()
			return nil, err
		}
		l.ui = web
		streams.Reports = web.Report
		web.Serve(serveCtx)
		go func() { _ = l.Events(serveCtx, web, nil) }()
	}
	if err := daemon.Serve(serveCtx, d, l.Lab, streams); err != nil {
		return nil, err
	}
	st := daemon.Status{
		PID:        os.Getpid(),
		Endpoint:   l.Endpoint(),
		Kubeconfig: d.Kubeconfig(),
		DataDir:    opts.Lab.DataDir,
		StartedAt:  started,
		ReadyAt:    time.Now(),
		Webhooks:   l.Webhooks(),
	}
	if web != nil {
		st.UI = web.Address()
	}
	l.statusMu.Lock()
	st.Health = l.Health()
	err = d.WriteStatus(st, l.Kubeconfig())
	l.status = &st
	l.statusMu.Unlock()
	if err != nil {
		return nil, err
	}
	upMu.Lock()
	up = l
	upMu.Unlock()
	return l, nil
}

// UI is the lab's web UI, nil without Options.UI. It takes the lines of the
// cluster's timeline (a timeline.Sink) and its objects' changes
// (timeline.Options.Observe); the lab's own events reach it already.
func (l *Lab) UI() *ui.Server { return l.ui }

// updateHealth rewrites the state dir's status with the lab's health now,
// so that 'crdlab status' says degraded while a process is down. Updates
// are serialized, and each reads the health when it writes, so the last
// one wins.
func (l *Lab) updateHealth() {
	l.statusMu.Lock()
	defer l.statusMu.Unlock()
	if l.status == nil {
		return
	}
	l.status.Health = l.Health()
	_ = l.stateDir.UpdateStatus(*l.status)
}

// Events streams the events only this process sees (see Options.Trace)
// into sink until ctx is done; ready, if not nil, is called once it
// listens. A slow sink loses events rather than slowing the lab down. It
// is the same stream a client of the control socket gets
// (daemon.Client.Events).
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

// Stop stops the operators, then the lab; on a lab of Up it then clears
// the state dir's status and releases it. It is safe on a partly started
// lab and more than once.
func (l *Lab) Stop() error {
	var errs []error
	l.statusMu.Lock()
	l.status = nil // a stopping lab's health is not news
	l.statusMu.Unlock()
	if l.stopServe != nil {
		l.stopServe()
		l.stopServe = nil
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
	if l.unlock != nil {
		l.stateDir.ClearStatus()
		l.unlock()
		l.unlock = nil
	}
	return errors.Join(errs...)
}

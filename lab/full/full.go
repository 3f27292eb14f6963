package full

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"

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

	// Trace, if set, receives, as they happen, the events only this
	// process sees: the operators' reconcile passes and what Lab.Events
	// receives (the aggregated API server's requests, the calls through
	// the webhook front, the crashes). A lab's timeline.Stream is one
	// ('crdlab up' shows it; a suite collects them).
	Trace timeline.Sink
}

// Lab is a running full lab. Stop it with Stop.
type Lab struct {
	*lab.Lab

	// Operators are the sample operators (nil with Options.NoSamples).
	Operators *controllers.Operators

	stopOps context.CancelFunc
}

// Start starts a full lab in this process. On error nothing it started is
// left running.
func Start(ctx context.Context, opts Options) (_ *Lab, retErr error) {
	l := &Lab{}
	defer func() {
		if retErr != nil {
			_ = l.Stop()
		}
	}()
	o := opts.Lab
	o.Events = timeline.Tee(o.Events, opts.Trace)
	if o.Progress == nil {
		o.Progress = func(lab.Progress) {}
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
				Logger: o.Logger, Trace: opts.Trace,
				Webhooks: &controllers.WebhookServing{Host: wh.LocalServingHost, Port: wh.LocalServingPort, CertDir: wh.LocalServingCertDir},
			})
			if err != nil {
				cancel()
				return nil, err
			}
			l.Operators, l.stopOps = ops, cancel
			o.Progress(lab.Progress{Phase: lab.PhaseOperatorsRunning, Operators: controllers.Names(),
				Webhooks: net.JoinHostPort(wh.LocalServingHost, strconv.Itoa(wh.LocalServingPort))})
			return ops, nil
		}
	}
	var err error
	if l.Lab, err = lab.Start(ctx, o); err != nil {
		return nil, err
	}
	return l, nil
}

// Stop stops the operators, then the lab. It is safe on a partly started
// lab and more than once.
func (l *Lab) Stop() error {
	var errs []error
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

package controllers

import (
	"context"
	"fmt"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/crdlab/crdlab/controllers/webapp"
)

// Scheme returns client-go's scheme plus the sample operators' types.
func Scheme() *runtime.Scheme {
	s := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(s)
	_ = webapp.AddToScheme(s)
	return s
}

// Start runs the sample operators against cfg, in this process, until ctx
// is done, and returns once their caches have synced. done is closed when
// they have stopped.
func Start(ctx context.Context, cfg *rest.Config, log logr.Logger) (done <-chan error, err error) {
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 Scheme(),
		Logger:                 log,
		Metrics:                metricsserver.Options{BindAddress: "0"}, // nothing listens
		HealthProbeBindAddress: "0",
		LeaderElection:         false,
		// Several labs may run in one process (tests): names repeat.
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		return nil, fmt.Errorf("unable to create the operators' manager: %w", err)
	}
	r := &webapp.Reconciler{
		Client:   client.WithFieldOwner(mgr.GetClient(), webapp.Name),
		Recorder: mgr.GetEventRecorder(webapp.Name),
	}
	if err := r.SetupWithManager(mgr); err != nil {
		return nil, fmt.Errorf("unable to set up %s: %w", webapp.Name, err)
	}
	errc := make(chan error, 1)
	go func() { errc <- mgr.Start(ctx) }()
	if !mgr.GetCache().WaitForCacheSync(ctx) {
		return nil, fmt.Errorf("the operators' caches did not sync: %w", ctx.Err())
	}
	return errc, nil
}

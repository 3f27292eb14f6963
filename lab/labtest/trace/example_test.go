package trace_test

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crdlab/crdlab/lab/labtest/trace"
)

// A controller whose reconcile passes go on the timeline of the lab its
// manager talks to (on a lab of labtest.Environment, or of 'crdlab up -d'),
// and that is controller-runtime's own elsewhere.
func ExampleControllerManagedBy() {
	mgr, err := ctrl.NewManager(ctrl.GetConfigOrDie(), ctrl.Options{NewClient: trace.NewClient})
	if err != nil {
		panic(err)
	}
	c := mgr.GetClient() // notes the writes of each traced pass
	err = trace.ControllerManagedBy(mgr).
		For(&appsv1.Deployment{}).
		Owns(&corev1.ConfigMap{}).
		Complete(reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
			var d appsv1.Deployment
			return reconcile.Result{}, c.Get(ctx, req.NamespacedName, &d) // writes made with ctx are the pass's
		}))
	if err != nil {
		panic(err)
	}
	_ = mgr.Start(ctrl.SetupSignalHandler())
}

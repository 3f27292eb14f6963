package trace

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// What controller-runtime's builder refuses, the traced one refuses with
// the same error, with or without a lab.
func TestBuilderRefusesAsControllerRuntimes(t *testing.T) {
	// Nothing listens there: building a controller asks nothing of the apiserver.
	mgr, err := ctrl.NewManager(&rest.Config{Host: "https://127.0.0.1:1"}, ctrl.Options{
		Scheme: scheme.Scheme, Metrics: metricsserver.Options{BindAddress: "0"},
	})
	if err != nil {
		t.Fatal(err)
	}
	nothing := reconcile.Func(nil)
	for _, tc := range []struct {
		name  string
		build func() error
		want  string
	}{
		{"Owns without For", func() error {
			return ControllerManagedBy(mgr).Owns(&corev1.Secret{}).Named("a").Complete(nothing)
		}, "Owns() can only be used together with For()"},
		{"For twice", func() error {
			return ControllerManagedBy(mgr).For(&corev1.Secret{}).For(&corev1.ConfigMap{}).Complete(nothing)
		}, "For(...) should only be called once"},
		{"no watch", func() error {
			return ControllerManagedBy(mgr).Named("b").Complete(nothing)
		}, "there are no watches configured"},
	} {
		if err := tc.build(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error saying %q", tc.name, err, tc.want)
		}
	}
}

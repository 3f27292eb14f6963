package webapp

import (
	"context"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	webappv1 "github.com/crdlab/crdlab/controllers/webapp/v1"
)

func newScheme(t *testing.T) *runtime.Scheme {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	if err := AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	if err := webappv1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	return s
}

func nginx(port int32) webappv1.Container { return webappv1.Container{Image: "nginx", Port: port} }

func reconcileOnce(t *testing.T, c client.Client, name string) {
	t.Helper()
	r := &Reconciler{Client: c}
	if _, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: client.ObjectKey{Namespace: "default", Name: name}}); err != nil {
		t.Fatalf("reconcile: %v", err)
	}
}

// The reconciler's decisions, table-driven, against a fake client.
func TestReconcileDecisions(t *testing.T) {
	for _, tc := range []struct {
		name          string
		spec          webappv1.WebAppSpec
		deployStatus  *appsv1.DeploymentStatus // the Deployment as the cluster reports it, if it exists
		wantReplicas  int32
		wantPort      int32
		wantAvailable metav1.ConditionStatus
	}{
		{"new app: defaults, not available yet", webappv1.WebAppSpec{Container: nginx(0)}, nil, 1, 80, metav1.ConditionFalse},
		{"new app: its own replicas and port", webappv1.WebAppSpec{Container: nginx(8080), Replicas: ptr.To(int32(3))}, nil, 3, 8080, metav1.ConditionFalse},
		{"all replicas available", webappv1.WebAppSpec{Container: nginx(0), Replicas: ptr.To(int32(2))},
			&appsv1.DeploymentStatus{AvailableReplicas: 2, UpdatedReplicas: 2}, 2, 80, metav1.ConditionTrue},
		{"some replicas missing", webappv1.WebAppSpec{Container: nginx(0), Replicas: ptr.To(int32(2))},
			&appsv1.DeploymentStatus{AvailableReplicas: 1, UpdatedReplicas: 2}, 2, 80, metav1.ConditionFalse},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newScheme(t)
			app := &webappv1.WebApp{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "default", UID: "u1", Generation: 1}, Spec: tc.spec}
			b := fake.NewClientBuilder().WithScheme(s).WithStatusSubresource(&webappv1.WebApp{}, &appsv1.Deployment{}).WithObjects(app)
			if tc.deployStatus != nil {
				b = b.WithObjects(&appsv1.Deployment{
					ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "default"},
					Status:     *tc.deployStatus,
				})
			}
			c := b.Build()
			reconcileOnce(t, c, "shop")

			var d appsv1.Deployment
			if err := c.Get(context.Background(), client.ObjectKey{Namespace: "default", Name: "shop"}, &d); err != nil {
				t.Fatal(err)
			}
			if got := ptr.Deref(d.Spec.Replicas, -1); got != tc.wantReplicas {
				t.Errorf("deployment replicas = %d, want %d", got, tc.wantReplicas)
			}
			if got := d.Spec.Template.Spec.Containers[0].Ports[0].ContainerPort; got != tc.wantPort {
				t.Errorf("container port = %d, want %d", got, tc.wantPort)
			}
			if !metav1.IsControlledBy(&d, app) {
				t.Errorf("deployment not controlled by the WebApp: %v", d.OwnerReferences)
			}
			var svc corev1.Service
			if err := c.Get(context.Background(), client.ObjectKey{Namespace: "default", Name: "shop"}, &svc); err != nil {
				t.Fatal(err)
			}
			if svc.Spec.Ports[0].Port != tc.wantPort || !metav1.IsControlledBy(&svc, app) {
				t.Errorf("service port %d owners %v; want port %d, controlled by the WebApp", svc.Spec.Ports[0].Port, svc.OwnerReferences, tc.wantPort)
			}
			var got webappv1.WebApp
			if err := c.Get(context.Background(), client.ObjectKeyFromObject(app), &got); err != nil {
				t.Fatal(err)
			}
			cond := meta.FindStatusCondition(got.Status.Conditions, ConditionAvailable)
			if cond == nil || cond.Status != tc.wantAvailable {
				t.Errorf("Available condition = %+v, want status %s", cond, tc.wantAvailable)
			}
			if got.Status.ObservedGeneration != 1 {
				t.Errorf("observedGeneration = %d, want 1", got.Status.ObservedGeneration)
			}
		})
	}
}

// A WebApp that is gone needs nothing: its owned objects go with it.
func TestReconcileOfADeletedWebAppDoesNothing(t *testing.T) {
	c := fake.NewClientBuilder().WithScheme(newScheme(t)).Build()
	reconcileOnce(t, c, "gone")
	var list appsv1.DeploymentList
	if err := c.List(context.Background(), &list); err != nil || len(list.Items) != 0 {
		t.Errorf("deployments = %v (err %v), want none", list.Items, err)
	}
}

// Conversion loses nothing, either way.
func TestConversionRoundTrips(t *testing.T) {
	alpha := &WebApp{
		ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "default", Labels: map[string]string{"a": "b"}},
		Spec:       WebAppSpec{Image: "nginx:1.27", Replicas: ptr.To(int32(2)), Port: 8080},
		Status:     WebAppStatus{ObservedGeneration: 3, AvailableReplicas: 2},
	}
	var hub webappv1.WebApp
	if err := alpha.ConvertTo(&hub); err != nil {
		t.Fatal(err)
	}
	if hub.Spec.Container.Image != "nginx:1.27" || hub.Spec.Container.Port != 8080 || *hub.Spec.Replicas != 2 || hub.Status.AvailableReplicas != 2 || hub.Labels["a"] != "b" {
		t.Errorf("v1alpha1 → v1: %+v", hub)
	}
	var back WebApp
	if err := back.ConvertFrom(&hub); err != nil {
		t.Fatal(err)
	}
	if !equality.Semantic.DeepEqual(back.Spec, alpha.Spec) || !equality.Semantic.DeepEqual(back.Status, alpha.Status) || !equality.Semantic.DeepEqual(back.ObjectMeta, alpha.ObjectMeta) {
		t.Errorf("v1alpha1 → v1 → v1alpha1: %+v, want %+v", back, alpha)
	}
}

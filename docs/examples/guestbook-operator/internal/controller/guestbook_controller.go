// Package controller holds the Guestbook controller.
package controller

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/crdlab/crdlab/lab/labtest/trace"

	webappv1 "example.com/guestbook-operator/api/v1"
)

// GuestbookReconciler makes each Guestbook's Deployment and reports how
// many of its frontends are ready.
type GuestbookReconciler struct {
	client.Client
	Scheme *runtime.Scheme
}

// +kubebuilder:rbac:groups=webapp.example.com,resources=guestbooks,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=webapp.example.com,resources=guestbooks/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch;create;update;patch;delete

// Reconcile makes the Guestbook's Deployment match its spec.
func (r *GuestbookReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var gb webappv1.Guestbook
	if err := r.Get(ctx, req.NamespacedName, &gb); err != nil {
		// Deleted: the garbage collector deletes what it owned.
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	image := gb.Spec.Image
	if image == "" {
		image = "guestbook:v1"
	}
	dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: gb.Name, Namespace: gb.Namespace}}
	_, err := controllerutil.CreateOrUpdate(ctx, r.Client, dep, func() error {
		labels := map[string]string{"app": "guestbook", "guestbook": gb.Name}
		replicas := gb.Spec.Replicas
		dep.Spec.Replicas = &replicas
		dep.Spec.Selector = &metav1.LabelSelector{MatchLabels: labels}
		dep.Spec.Template.Labels = labels
		dep.Spec.Template.Spec.Containers = []corev1.Container{{Name: "frontend", Image: image}}
		return controllerutil.SetControllerReference(&gb, dep, r.Scheme)
	})
	if err != nil {
		return ctrl.Result{}, err
	}
	if gb.Status.ReadyReplicas != dep.Status.ReadyReplicas {
		gb.Status.ReadyReplicas = dep.Status.ReadyReplicas
		if err := r.Status().Update(ctx, &gb); err != nil && !apierrors.IsConflict(err) {
			return ctrl.Result{}, err
		}
	}
	return ctrl.Result{}, nil
}

// SetupWithManager runs the controller in mgr: on every Guestbook, and on
// every change of a Deployment one owns. trace.ControllerManagedBy is
// ctrl.NewControllerManagedBy that also puts each reconcile pass on the
// timeline of the crdlab lab mgr talks to, if any (in production, none:
// it is the plain builder).
func (r *GuestbookReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return trace.ControllerManagedBy(mgr).
		For(&webappv1.Guestbook{}).
		Owns(&appsv1.Deployment{}).
		Named("guestbook").
		Complete(r)
}

package webapp

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	webappv1 "github.com/crdlab/crdlab/controllers/webapp/v1"
)

// Name is the operator's name: its field manager, event source and
// controller name.
const Name = "webapp-operator"

// ConditionAvailable is true when every wanted replica is available.
const ConditionAvailable = "Available"

// Reconciler keeps a Deployment and a Service for each WebApp.
//
// +kubebuilder:object:generate=false
type Reconciler struct {
	Client   client.Client
	Recorder events.EventRecorder
}

// +kubebuilder:rbac:groups=samples.crdlab.dev,resources=webapps,verbs=get;list;watch
// +kubebuilder:rbac:groups=samples.crdlab.dev,resources=webapps/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups="",resources=services,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Reconcile reads and writes v1, the storage version, which the apiserver
// serves without calling the conversion webhook.
//
// Reconcile makes the WebApp's Deployment and Service match its spec and
// records what they report in its status. It is level-triggered: it looks
// at the whole state each time, whatever woke it.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	app := &webappv1.WebApp{}
	if err := r.Client.Get(ctx, req.NamespacedName, app); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err) // deleted: owner references let the GC clean up
	}

	deploy := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: app.Name, Namespace: app.Namespace}}
	op, err := controllerutil.CreateOrUpdate(ctx, r.Client, deploy, func() error {
		labels := map[string]string{"app.kubernetes.io/name": app.Name, "app.kubernetes.io/managed-by": Name}
		deploy.Labels = labels
		deploy.Spec.Replicas = ptr.To(ptr.Deref(app.Spec.Replicas, 1))
		deploy.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app.kubernetes.io/name": app.Name}}
		deploy.Spec.Template.Labels = labels
		// Set only what the WebApp decides, keeping what the apiserver
		// defaulted: replacing the whole container would differ from the
		// stored one on every pass, and the operator would write forever.
		c := container(&deploy.Spec.Template.Spec, "web")
		c.Image = app.Spec.Container.Image
		c.Ports = []corev1.ContainerPort{{Name: "http", ContainerPort: port(app), Protocol: corev1.ProtocolTCP}}
		return controllerutil.SetControllerReference(app, deploy, r.Client.Scheme())
	})
	if err != nil {
		return ctrl.Result{}, fmt.Errorf("deployment %s: %w", deploy.Name, err)
	}
	r.record(app, op, "Deployment", deploy.Name)

	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: app.Name, Namespace: app.Namespace}}
	op, err = controllerutil.CreateOrUpdate(ctx, r.Client, svc, func() error {
		svc.Labels = map[string]string{"app.kubernetes.io/name": app.Name, "app.kubernetes.io/managed-by": Name}
		svc.Spec.Selector = map[string]string{"app.kubernetes.io/name": app.Name}
		svc.Spec.Ports = []corev1.ServicePort{{Name: "http", Port: port(app), TargetPort: intstr.FromString("http"), Protocol: corev1.ProtocolTCP}}
		return controllerutil.SetControllerReference(app, svc, r.Client.Scheme())
	})
	if err != nil {
		return ctrl.Result{}, fmt.Errorf("service %s: %w", svc.Name, err)
	}
	r.record(app, op, "Service", svc.Name)

	want := ptr.Deref(app.Spec.Replicas, 1)
	base := app.DeepCopy()
	app.Status.ObservedGeneration = app.Generation
	app.Status.AvailableReplicas = deploy.Status.AvailableReplicas
	cond := metav1.Condition{Type: ConditionAvailable, ObservedGeneration: app.Generation}
	if deploy.Status.ObservedGeneration >= deploy.Generation && deploy.Status.AvailableReplicas >= want && deploy.Status.UpdatedReplicas >= want {
		cond.Status, cond.Reason = metav1.ConditionTrue, "ReplicasAvailable"
		cond.Message = fmt.Sprintf("%d/%d replicas available", deploy.Status.AvailableReplicas, want)
	} else {
		cond.Status, cond.Reason = metav1.ConditionFalse, "ReplicasUnavailable"
		cond.Message = fmt.Sprintf("%d/%d replicas available", deploy.Status.AvailableReplicas, want)
	}
	meta.SetStatusCondition(&app.Status.Conditions, cond)
	if equality.Semantic.DeepEqual(base.Status, app.Status) {
		return ctrl.Result{}, nil // nothing new to report: no write
	}
	if err := r.Client.Status().Patch(ctx, app, client.MergeFrom(base)); err != nil && !apierrors.IsNotFound(err) {
		return ctrl.Result{}, fmt.Errorf("status: %w", err)
	}
	return ctrl.Result{}, nil
}

// container returns the pod's container of that name, adding it if missing.
func container(pod *corev1.PodSpec, name string) *corev1.Container {
	for i := range pod.Containers {
		if pod.Containers[i].Name == name {
			return &pod.Containers[i]
		}
	}
	pod.Containers = append(pod.Containers, corev1.Container{Name: name})
	return &pod.Containers[len(pod.Containers)-1]
}

func port(app *webappv1.WebApp) int32 {
	if app.Spec.Container.Port == 0 {
		return 80
	}
	return app.Spec.Container.Port
}

// record emits an event when the operator created or changed an object.
func (r *Reconciler) record(app *webappv1.WebApp, op controllerutil.OperationResult, kind, name string) {
	if r.Recorder == nil || op == controllerutil.OperationResultNone {
		return
	}
	reason := "Created"
	if op == controllerutil.OperationResultUpdated {
		reason = "Updated"
	}
	r.Recorder.Eventf(app, nil, corev1.EventTypeNormal, reason, "Reconcile", "%s %s %s", reason, kind, name)
}

// SetupWithManager registers the reconciler: it watches WebApps and the
// Deployments and Services they own, so an edit or a deletion of either
// wakes it.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	return r.SetupWithManagerAs(mgr, r)
}

// SetupWithManagerAs registers the reconciler's watches with rec, which
// calls r (a tracer, for instance), as the reconciler; preds see every
// event of every watch (to note what triggered a pass, for instance).
func (r *Reconciler) SetupWithManagerAs(mgr ctrl.Manager, rec reconcile.Reconciler, preds ...predicate.Predicate) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named(Name).
		For(&webappv1.WebApp{}, builder.WithPredicates(preds...)).
		Owns(&appsv1.Deployment{}, builder.WithPredicates(preds...)).
		Owns(&corev1.Service{}, builder.WithPredicates(preds...)).
		// Passes for different WebApps are independent; a single worker
		// would make 200 new WebApps wait in line.
		WithOptions(controller.Options{MaxConcurrentReconciles: 4}).
		Complete(rec)
}

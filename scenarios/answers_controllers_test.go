package scenarios_test

import (
	"context"
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// The controllers a learner of reconcile-loop writes, right and wrong
// (an answer's controller: in lessons/_answers/reconcile-loop.yaml), each
// what the lesson's skeleton becomes when its TODO is completed that way:
// the table runs one in this process, against the suite's lab, for the
// answer's verdict, and stops it before the next answer.

// learnerController says how a learner completed the skeleton.
type learnerController struct {
	// owns: the controller watches the ConfigMaps its Users own.
	owns func(*builder.Builder, *runtime.Scheme, ctrl.Manager) *builder.Builder
	// owner sets cm's owner reference to user (nil: none).
	owner func(user *unstructured.Unstructured, cm *corev1.ConfigMap, s *runtime.Scheme) error
	// groups joins the User's groups.
	groups func([]string) string
	// idAsString: userID read with NestedString, which finds no string
	// there (the schema makes it an integer) and gives "".
	idAsString bool
	// requeue, if not zero: each pass asks to be called again after it.
	requeue time.Duration
	// kubectl: the learner's loop of kubectl apply, not a controller of
	// theirs: its writes are kubectl's (user agent and field manager).
	kubectl bool
}

var learnerControllers = map[string]learnerController{
	// The hints' answer: Owns, SetControllerReference.
	"owns": {owns: ownsConfigMaps, owner: controllerReference},
	// Owns written out: a watch of ConfigMaps mapped to their controller
	// owner.
	"watches-owner": {owns: func(b *builder.Builder, s *runtime.Scheme, mgr ctrl.Manager) *builder.Builder {
		return b.Watches(&corev1.ConfigMap{}, handler.EnqueueRequestForOwner(s, mgr.GetRESTMapper(), newLearnerUser(), handler.OnlyControllerOwner()))
	}, owner: controllerReference},
	// The skeleton's Reconcile completed, Owns not added: the first task's
	// answer, which the second task's check must catch.
	"no-owns": {owner: controllerReference},
	// No owner reference: Owns has no User to map a ConfigMap to, and the
	// garbage collector no owner to delete it with.
	"no-owner": {owns: ownsConfigMaps},
	// An owner reference that is not the controller's.
	"owner-not-controller": {owns: ownsConfigMaps, owner: func(user *unstructured.Unstructured, cm *corev1.ConfigMap, s *runtime.Scheme) error {
		return controllerutil.SetOwnerReference(user, cm, s)
	}},
	// The groups joined with ", ".
	"groups-with-spaces": {owns: ownsConfigMaps, owner: controllerReference, groups: func(g []string) string { return strings.Join(g, ", ") }},
	// userID read as a string.
	"userid-as-string": {owns: ownsConfigMaps, owner: controllerReference, idAsString: true},
	// No watch of ConfigMaps: a resync every 30 seconds puts alice's back,
	// later than the lesson waits.
	"requeue-30s": {owner: controllerReference, requeue: 30 * time.Second},
	// A shell loop of kubectl apply that puts the ConfigMaps back: the
	// right outcome, by the learner's kubectl, not by their controller.
	"kubectl-loop": {owns: ownsConfigMaps, owner: controllerReference, kubectl: true},
}

// runs counts the learner's controllers run in this process.
var runs int

var learnerUserGVK = schema.GroupVersionKind{Group: "auth.ilinux.io", Version: "v1beta1", Kind: "User"}

func newLearnerUser() *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(learnerUserGVK)
	return u
}

func ownsConfigMaps(b *builder.Builder, _ *runtime.Scheme, _ ctrl.Manager) *builder.Builder {
	return b.Owns(&corev1.ConfigMap{})
}

func controllerReference(user *unstructured.Unstructured, cm *corev1.ConfigMap, s *runtime.Scheme) error {
	return controllerutil.SetControllerReference(user, cm, s)
}

// runLearnerController runs the controller name in ns until the spec's
// answer ends (the returned stop, also deferred to the spec's end).
func runLearnerController(ctx context.Context, name, ns string) (stop func()) {
	GinkgoHelper()
	lc, ok := learnerControllers[name]
	Expect(ok).To(BeTrue(), "no learner's controller %q (answers_controllers_test.go)", name)
	scheme := runtime.NewScheme()
	Expect(clientgoscheme.AddToScheme(scheme)).To(Succeed())
	cfg := rest.CopyConfig(shared.RESTConfig())
	if lc.kubectl {
		cfg.UserAgent = "kubectl/v1.36.0 (linux/amd64) kubernetes/$Format" // any kubectl's
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:  scheme,
		Metrics: server.Options{BindAddress: "0"},
		Cache:   cache.Options{DefaultNamespaces: map[string]cache.Config{ns: {}}},
		Logger:  GinkgoLogr,
	})
	Expect(err).NotTo(HaveOccurred())
	c := mgr.GetClient()
	if lc.kubectl {
		c = client.WithFieldOwner(c, "kubectl-client-side-apply")
	}
	r := &learnerReconciler{Client: c, scheme: scheme, lc: lc}
	// A controller's name is registered once per process (its metrics):
	// each run of an answer's controller is another.
	runs++
	b := ctrl.NewControllerManagedBy(mgr).Named(fmt.Sprintf("answer-%s-%d", name, runs)).For(newLearnerUser())
	if lc.owns != nil {
		b = lc.owns(b, scheme, mgr)
	}
	Expect(b.Complete(r)).To(Succeed())
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	go func() {
		defer GinkgoRecover()
		defer close(done)
		Expect(mgr.Start(runCtx)).To(Succeed(), "the learner's controller %q", name)
	}()
	stop = func() {
		cancel()
		<-done
	}
	DeferCleanup(stop)
	return stop
}

// learnerReconciler is the skeleton's UserReconciler, completed as lc says.
type learnerReconciler struct {
	client.Client
	scheme *runtime.Scheme
	lc     learnerController
}

func (r *learnerReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	user := newLearnerUser()
	if err := r.Get(ctx, req.NamespacedName, user); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	id, _, _ := unstructured.NestedInt64(user.Object, "spec", "userID")
	userID := fmt.Sprint(id)
	if r.lc.idAsString {
		userID, _, _ = unstructured.NestedString(user.Object, "spec", "userID")
	}
	email, _, _ := unstructured.NestedString(user.Object, "spec", "email")
	groups, _, _ := unstructured.NestedStringSlice(user.Object, "spec", "groups")
	join := r.lc.groups
	if join == nil {
		join = func(g []string) string { return strings.Join(g, ",") }
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "user-" + user.GetName(), Namespace: user.GetNamespace()}}
	_, err := controllerutil.CreateOrUpdate(ctx, r.Client, cm, func() error {
		cm.Data = map[string]string{"userID": userID, "email": email, "groups": join(groups)}
		if r.lc.owner == nil {
			return nil
		}
		return r.lc.owner(user, cm, r.scheme)
	})
	return ctrl.Result{RequeueAfter: r.lc.requeue}, err
}

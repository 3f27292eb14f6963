package lab_test

import (
	"context"
	"net/http"
	"slices"
	"sync"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/crdlab/crdlab/lab"
	"github.com/crdlab/crdlab/lab/aggregated"
	"github.com/crdlab/crdlab/lab/labtest/control"
	"github.com/crdlab/crdlab/lab/timeline"
)

func TestLab(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "lab suite")
}

// shared is the lab booted once for the suite.
var shared *lab.Lab

// seen records what the shared lab reported: every Health it passed to
// OnHealth, and its timeline events.
var seen recorder

var _ = BeforeSuite(func(ctx context.Context) {
	ctrllog.SetLogger(GinkgoLogr) // envtest logs through it
	var err error
	shared, err = lab.Start(ctx, lab.Options{
		Logger:   GinkgoLogr,
		OnHealth: seen.health,
		Events:   timeline.SinkFunc(seen.event),
		// A webhook of the suite's own, served by a spec (webhook_test.go).
		WebhookInstallOptions: envtest.WebhookInstallOptions{
			ValidatingWebhooks: []*admissionregistrationv1.ValidatingWebhookConfiguration{testWebhook()},
		},
	})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() {
		Expect(shared.Stop()).To(Succeed())
	})
	// Ready means RBAC works, with the bootstrap roles and bindings, at
	// once: the apiserver's bootstrap hooks report done when they find them
	// (lab/internal/kubecmd/apiserver.go), not after their 1 s poll.
	expectBootstrapRBAC(ctx, shared.RESTConfig())
	// Ready means served: the aggregated groups answer through the
	// aggregator at once, not after its informer catches up.
	dc := discovery.NewDiscoveryClientForConfigOrDie(shared.RESTConfig())
	for name, gv := range aggregated.APIServices {
		var code int
		dc.RESTClient().Get().AbsPath("/apis", gv.Group, gv.Version).Do(ctx).StatusCode(&code)
		Expect(code).To(Equal(http.StatusOK), "%s right after Start", name)
	}
}, NodeTimeout(120e9))

// expectBootstrapRBAC checks that the RBAC authorizer answers with the
// bootstrap policy: the scheduler may list Pods, the deployment controller
// create ReplicaSets, any authenticated user read discovery, and a user
// bound to nothing may not list Pods.
func expectBootstrapRBAC(ctx context.Context, cfg *rest.Config) {
	GinkgoHelper()
	sar := kubernetes.NewForConfigOrDie(cfg).AuthorizationV1().SubjectAccessReviews()
	for _, tc := range []struct {
		user    string
		groups  []string
		attrs   *authorizationv1.ResourceAttributes
		path    string
		allowed bool
	}{
		{user: "system:kube-scheduler", attrs: &authorizationv1.ResourceAttributes{Verb: "list", Resource: "pods"}, allowed: true},
		{user: "system:serviceaccount:kube-system:deployment-controller", groups: []string{"system:serviceaccounts", "system:authenticated"},
			attrs: &authorizationv1.ResourceAttributes{Verb: "create", Group: "apps", Resource: "replicasets", Namespace: "default"}, allowed: true},
		{user: "alice", groups: []string{"system:authenticated"}, path: "/apis", allowed: true},
		{user: "alice", groups: []string{"system:authenticated"}, attrs: &authorizationv1.ResourceAttributes{Verb: "list", Resource: "pods", Namespace: "default"}},
	} {
		review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{User: tc.user, Groups: tc.groups, ResourceAttributes: tc.attrs}}
		if tc.path != "" {
			review.Spec.NonResourceAttributes = &authorizationv1.NonResourceAttributes{Verb: "get", Path: tc.path}
		}
		got, err := sar.Create(ctx, review, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(got.Status.Allowed).To(Equal(tc.allowed), "%s %+v %s right after Start: %s", tc.user, tc.attrs, tc.path, got.Status.Reason)
	}
}

func nameOf(name string) types.NamespacedName { return types.NamespacedName{Name: name} }

// nodeNames are the names of the shared lab's simulated nodes.
func nodeNames() []string {
	var names []string
	for _, n := range shared.Nodes() {
		names = append(names, n.Name)
	}
	return names
}

// recorder keeps what a lab reports through its callbacks.
type recorder struct {
	mu      sync.Mutex
	healths []control.Health
	events  []timeline.Event
}

func (r *recorder) health(h control.Health) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.healths = append(r.healths, h)
}

func (r *recorder) event(e timeline.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

// since returns what was recorded after the marks a call of marks returned.
func (r *recorder) since(healths, events int) ([]control.Health, []timeline.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.healths[healths:]), slices.Clone(r.events[events:])
}

func (r *recorder) marks() (healths, events int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.healths), len(r.events)
}

package trace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crdlab/crdlab/lab/labtest"
)

// A controller built with ControllerManagedBy, on a lab of labtest, puts a
// RECONCILE line per pass on the lab's timeline: woken by its own object,
// an owned one, a watched one mapped by your handler; what it wrote; its
// error. Your predicates still decide what wakes it. Without a lab, the
// builder is controller-runtime's alone.
func TestYourControllerOnTheTimeline(t *testing.T) {
	env := &labtest.Environment{WithComponents: []string{}} // an apiserver alone is enough
	cfg, err := env.Start()
	if err != nil {
		t.Fatalf("unable to start a lab: %v", err)
	}
	stateDir := env.StateDir()
	t.Cleanup(func() {
		if err := env.Stop(); err != nil {
			t.Errorf("Stop: %v", err)
		}
		if got := os.Getenv(LabEnv); got == stateDir {
			t.Errorf("$%s is still %s after Stop", LabEnv, got)
		}
	})
	if got := os.Getenv(LabEnv); got != stateDir {
		t.Fatalf("$%s = %q after Start, want the lab's state dir %s", LabEnv, got, stateDir)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	mark := env.Mark()
	failed := &failedTest{}
	env.PrintTimelineOnFailure(failed)

	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme: scheme.Scheme, Metrics: metricsserver.Options{BindAddress: "0"}, NewClient: NewClient,
		Controller: config.Controller{SkipNameValidation: ptr.To(true)}, // go test -count=N: the names repeat
	})
	if err != nil {
		t.Fatal(err)
	}
	c := mgr.GetClient()
	labelled := predicate.NewPredicateFuncs(func(o client.Object) bool { return o.GetLabels()["traced"] == "yes" })
	traced := reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
		var cm corev1.ConfigMap
		if err := c.Get(ctx, req.NamespacedName, &cm); err != nil {
			return reconcile.Result{}, client.IgnoreNotFound(err)
		}
		switch cm.Data["fail"] {
		case "terminal":
			return reconcile.Result{}, reconcile.TerminalError(errors.New("asked to fail"))
		case "later":
			return reconcile.Result{RequeueAfter: time.Hour}, nil
		}
		secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: cm.Name, Namespace: cm.Namespace}}
		if err := controllerutil.SetControllerReference(&cm, secret, c.Scheme()); err != nil {
			return reconcile.Result{}, err
		}
		if err := c.Create(ctx, secret); err != nil && !apierrors.IsAlreadyExists(err) {
			return reconcile.Result{}, err
		}
		return reconcile.Result{}, nil
	})
	serviceToConfigMap := handler.EnqueueRequestsFromMapFunc(func(_ context.Context, o client.Object) []reconcile.Request {
		return []reconcile.Request{{NamespacedName: client.ObjectKeyFromObject(o)}}
	})
	err = ControllerManagedBy(mgr).
		For(&corev1.ConfigMap{}, builder.WithPredicates(labelled)).
		Owns(&corev1.Secret{}).
		Watches(&corev1.Service{}, serviceToConfigMap, builder.WithPredicates(labelled)).
		Named("traced").
		Complete(traced)
	if err != nil {
		t.Fatal(err)
	}

	// With controller-runtime's priority queue, which handlers add to with
	// a priority.
	err = ControllerManagedBy(mgr).
		For(&corev1.ConfigMap{}, builder.WithPredicates(predicate.NewPredicateFuncs(func(o client.Object) bool { return o.GetName() == "gamma" }))).
		Named("prioritized").
		WithOptions(controller.Options{UsePriorityQueue: ptr.To(true)}).
		Complete(reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) {
			return reconcile.Result{}, nil
		}))
	if err != nil {
		t.Fatal(err)
	}

	// The same builder on no lab: controller-runtime's, the reconciler as
	// it is (its passes have no writes to note).
	plain := make(chan bool, 16)
	err = ControllerManagedBy(mgr).
		WithLab(t.TempDir()).
		For(&corev1.ConfigMap{}, builder.WithPredicates(predicate.NewPredicateFuncs(func(o client.Object) bool { return o.GetName() == "alpha" }))).
		Named("untraced").
		Complete(reconcile.Func(func(ctx context.Context, _ reconcile.Request) (reconcile.Result, error) {
			_, wrapped := ctx.Value(passKey{}).(*writes)
			select {
			case plain <- wrapped:
			default:
			}
			return reconcile.Result{}, nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	ctrl.SetLogger(logr.Discard())
	mgrCtx, stopMgr := context.WithCancel(ctx)
	mgrDone := make(chan error, 1)
	go func() { mgrDone <- mgr.Start(mgrCtx) }()
	t.Cleanup(func() {
		stopMgr()
		if err := <-mgrDone; err != nil {
			t.Errorf("the manager: %v", err)
		}
	})

	admin, err := client.New(cfg, client.Options{Scheme: scheme.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	create := func(obj client.Object) {
		t.Helper()
		if err := admin.Create(ctx, obj); err != nil {
			t.Fatal(err)
		}
	}
	meta := func(name string, labels map[string]string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: name, Namespace: "default", Labels: labels}
	}
	yes := map[string]string{"traced": "yes"}
	var timeline string
	// waitFor waits until the timeline has a line for each of res.
	waitFor := func(res ...string) {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); ; {
			timeline = env.TimelineSince(mark) // waits for the timeline to be quiet
			var missing []string
			for _, re := range res {
				if !regexp.MustCompile(re).MatchString(timeline) {
					missing = append(missing, re)
				}
			}
			if len(missing) == 0 {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("no line matches %s in the lab's timeline:\n%s", strings.Join(missing, "\n  nor "), timeline)
			}
		}
	}
	if !mgr.GetCache().WaitForCacheSync(ctx) {
		t.Fatal("the manager's cache did not sync")
	}
	create(&corev1.ConfigMap{ObjectMeta: meta("alpha", yes)})
	create(&corev1.ConfigMap{ObjectMeta: meta("ignored", nil)})
	create(&corev1.ConfigMap{ObjectMeta: meta("broken", yes), Data: map[string]string{"fail": "terminal"}})
	create(&corev1.ConfigMap{ObjectMeta: meta("patient", yes), Data: map[string]string{"fail": "later"}})
	create(&corev1.ConfigMap{ObjectMeta: meta("gamma", nil)})
	waitFor(
		`prioritized\s+RECONCILE\s+configmap/gamma\s+no change; woken by configmap/gamma created; in `,
		// For: its own object; the write of the pass.
		`traced\s+RECONCILE\s+configmap/alpha\s+CREATE secret/alpha; woken by configmap/alpha created; in `,
		// Owns: the Secret it made, filed under its controller owner.
		`traced\s+RECONCILE\s+configmap/alpha\s+CREATE secret/alpha \(refused: AlreadyExists\); woken by secret/alpha created; in `,
		`traced\s+RECONCILE\s+configmap/broken\s+no change; error: [^\n]*asked to fail \(terminal: not retried\); woken by configmap/broken created; in `,
		`traced\s+RECONCILE\s+configmap/patient\s+no change; requeue after 1h0m0s; woken by configmap/patient created; in `,
	)
	// Watches: the request your handler queued for the Service's event.
	create(&corev1.Service{ObjectMeta: meta("alpha", yes), Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}}})
	waitFor(`traced\s+RECONCILE\s+configmap/alpha\s+CREATE secret/alpha \(refused: AlreadyExists\); woken by service/alpha created; in `)
	// Your predicate kept configmap/ignored from the controller; the
	// controller on no lab reported nothing.
	if re := regexp.MustCompile(`RECONCILE\s+configmap/ignored|untraced\s+RECONCILE`); re.MatchString(timeline) {
		t.Errorf("the timeline has %q, which no traced pass reconciled:\n%s", re.FindString(timeline), timeline)
	}
	// What a failing test prints has the passes too.
	failed.end()
	for _, want := range []string{
		`timeline of the lab during the test`,
		`traced\s+RECONCILE\s+configmap/alpha\s+CREATE secret/alpha; woken by configmap/alpha created; in `,
		`traced\s+RECONCILE\s+configmap/alpha\s+CREATE secret/alpha \(refused: AlreadyExists\); woken by service/alpha created; in `,
	} {
		if !regexp.MustCompile(want).MatchString(failed.log.String()) {
			t.Errorf("PrintTimelineOnFailure printed no line matching %s:\n%s", want, failed.log.String())
		}
	}
	select {
	case wrapped := <-plain:
		if wrapped {
			t.Error("the controller built on no lab ran its reconciler wrapped")
		}
	case <-ctx.Done():
		t.Error("the controller built on no lab never reconciled")
	}
	t.Logf("the lab's timeline:\n%s", timeline)
}

// A state dir counts only when a lab runs there with the manager's
// apiserver address.
func TestSameAddress(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"https://127.0.0.1:6443", "https://127.0.0.1:6443", true},
		{"https://127.0.0.1:6443", "127.0.0.1:6443", true},
		{"https://127.0.0.1:6443/", "https://127.0.0.1:6443", true},
		{"https://127.0.0.1:6443", "https://127.0.0.1:6444", false},
		{"https://127.0.0.1", "https://127.0.0.1:443", true},
		{"", "", false},
	} {
		if got := sameAddress(tc.a, tc.b); got != tc.want {
			t.Errorf("sameAddress(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
	if _, found := findLab(nil, t.TempDir()); found {
		t.Error("findLab found a lab in an empty folder")
	}
}

// failedTest is a test that failed, for PrintTimelineOnFailure: what it
// logs is kept.
type failedTest struct {
	cleanups []func()
	log      strings.Builder
}

func (f *failedTest) Cleanup(fn func()) { f.cleanups = append(f.cleanups, fn) }

func (f *failedTest) Failed() bool { return true }

func (f *failedTest) Logf(format string, args ...any) { fmt.Fprintf(&f.log, format, args...) }

// end runs the cleanups, as the end of a test does.
func (f *failedTest) end() {
	for i := len(f.cleanups) - 1; i >= 0; i-- {
		f.cleanups[i]()
	}
}

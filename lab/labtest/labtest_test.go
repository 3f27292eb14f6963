package labtest_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/crdlab/crdlab/lab/labtest"
)

// One lab for the whole test binary, as a suite would have it; each test
// resets it when it is done.
var (
	env  *labtest.Environment
	kube *kubernetes.Clientset
	dyn  *dynamic.DynamicClient
)

func TestMain(m *testing.M) {
	// A kubebuilder Makefile sets KUBEBUILDER_ASSETS for envtest; the lab
	// runs its own components all the same.
	os.Setenv("KUBEBUILDER_ASSETS", "/nonexistent/envtest-assets")
	env = &labtest.Environment{
		CRDDirectoryPaths:     []string{"testdata/crds", "testdata/conversion"},
		ErrorIfCRDPathMissing: true,
		NodeCount:             2,
		Zones:                 2,
		// Served by the tests of webhooks_test.go.
		WebhookInstallOptions: labtest.WebhookInstallOptions{Paths: []string{"testdata/webhooks"}},
	}
	cfg, err := env.Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, "labtest: unable to start the lab:", err)
		os.Exit(1)
	}
	kube = kubernetes.NewForConfigOrDie(cfg)
	dyn = dynamic.NewForConfigOrDie(cfg)
	code := m.Run()
	if err := env.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "labtest:", err)
		code = 1
	}
	os.Exit(code)
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return c
}

// reset puts the lab back after a test, as a suite's AfterEach would.
func reset(t *testing.T) {
	t.Cleanup(func() {
		if err := env.Reset(context.Background(), labtest.ResetOptions{}); err != nil {
			t.Errorf("Reset: %v", err)
		}
	})
}

var widgets = schema.GroupVersionResource{Group: "example.crdlab.dev", Version: "v1", Resource: "widgets"}

func widget(ns, name string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "example.crdlab.dev/v1", "kind": "Widget",
		"metadata": map[string]any{"name": name, "namespace": ns},
		"spec":     map[string]any{"size": int64(1)},
	}}
}

func TestStartInstallsTheCRDs(t *testing.T) {
	env.PrintTimelineOnFailure(t)
	reset(t)
	c := ctx(t)
	if _, err := dyn.Resource(widgets).Namespace("default").Create(c, widget("default", "w1"), metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating a Widget: %v", err)
	}
}

func TestResetRemovesWhatASpecMade(t *testing.T) {
	env.PrintTimelineOnFailure(t)
	c := ctx(t)
	for i := range 3 {
		ns := fmt.Sprintf("spec-%d", i)
		if _, err := kube.CoreV1().Namespaces().Create(c, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c", Finalizers: []string{"example.crdlab.dev/never"}}}
		if _, err := kube.CoreV1().ConfigMaps(ns).Create(c, cm, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := dyn.Resource(widgets).Namespace(ns).Create(c, widget(ns, "w"), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := kube.RbacV1().ClusterRoles().Create(c, &rbacRole, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := env.Reset(c, labtest.ResetOptions{}); err != nil {
		t.Fatalf("Reset: %v", err)
	}
	for i := range 3 {
		ns := fmt.Sprintf("spec-%d", i)
		if _, err := kube.CoreV1().Namespaces().Get(c, ns, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("namespace %s after Reset: %v, want NotFound (gone, not Terminating)", ns, err)
		}
	}
	if _, err := kube.RbacV1().ClusterRoles().Get(c, rbacRole.Name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("cluster role after Reset: %v, want NotFound", err)
	}
	list, err := dyn.Resource(widgets).List(c, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("the suite's CRD must stay installed: %v", err)
	}
	if len(list.Items) != 0 {
		t.Errorf("%d widgets after Reset, want none", len(list.Items))
	}
	// The same names can be used again at once.
	if _, err := kube.CoreV1().Namespaces().Create(c, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "spec-0"}}, metav1.CreateOptions{}); err != nil {
		t.Errorf("creating spec-0 again after Reset: %v", err)
	}
	reset(t)
}

func TestNamespaceDeletionCompletes(t *testing.T) {
	env.PrintTimelineOnFailure(t)
	reset(t)
	c := ctx(t)
	ns := "doomed"
	if _, err := kube.CoreV1().Namespaces().Create(c, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := dyn.Resource(widgets).Namespace(ns).Create(c, widget(ns, "w"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := kube.CoreV1().Namespaces().Delete(c, ns, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	err := wait.PollUntilContextTimeout(c, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := kube.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	if err != nil {
		t.Fatalf("namespace %s was not deleted: %v", ns, err)
	}
}

// Zones labels the nodes round robin, as a cloud's nodes are labelled.
func TestNodesInZones(t *testing.T) {
	nodes, err := kube.CoreV1().Nodes().List(ctx(t), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	zones := map[string]int{}
	for _, n := range nodes.Items {
		zones[n.Labels["topology.kubernetes.io/zone"]]++
		if r := n.Labels["topology.kubernetes.io/region"]; r != "lab" {
			t.Errorf("node %s: region %q, want lab", n.Name, r)
		}
	}
	if want := map[string]int{"zone-a": 1, "zone-b": 1}; !reflect.DeepEqual(zones, want) {
		t.Errorf("nodes by zone: %v, want %v (Zones: 2)", zones, want)
	}
}

func TestStopAndStartANode(t *testing.T) {
	env.PrintTimelineOnFailure(t)
	reset(t)
	c := ctx(t)
	nodes, err := env.Nodes(c)
	if err != nil {
		t.Fatal(err)
	}
	if len(nodes) != 2 {
		t.Fatalf("nodes: %v, want 2 (NodeCount)", nodes)
	}
	if err := env.StopNode(c, nodes[0].Name); err != nil {
		t.Fatal(err)
	}
	nodes, _ = env.Nodes(c)
	if nodes[0].Running {
		t.Errorf("node %s still runs after StopNode", nodes[0].Name)
	}
	if err := env.StopNode(c, "no-such-node"); !errors.Is(err, labtest.ErrUnknownNode) {
		t.Errorf("StopNode(no-such-node): %v, want ErrUnknownNode", err)
	}
	if err := env.StopComponent(c, "scheduler"); err != nil {
		t.Fatal(err)
	}
	if err := env.StopComponent(c, "no-such-component"); !errors.Is(err, labtest.ErrUnknownComponent) {
		t.Errorf("StopComponent(no-such-component): %v, want ErrUnknownComponent", err)
	}
	// Reset starts them again.
	if err := env.Reset(c, labtest.ResetOptions{}); err != nil {
		t.Fatal(err)
	}
	nodes, _ = env.Nodes(c)
	comps, _ := env.Components(c)
	for _, n := range nodes {
		if !n.Running {
			t.Errorf("node %s stopped after Reset", n.Name)
		}
	}
	for _, comp := range comps {
		if !comp.Running {
			t.Errorf("component %s stopped after Reset", comp.Name)
		}
	}
}

func TestAttachToARunningLab(t *testing.T) {
	attached := &labtest.Environment{AttachTo: env.StateDir()}
	cfg, err := attached.Start()
	if err != nil {
		t.Fatalf("attaching to %s: %v", env.StateDir(), err)
	}
	if cfg.Host != env.Config.Host {
		t.Errorf("attached to %s, want %s", cfg.Host, env.Config.Host)
	}
	if err := attached.Stop(); err != nil {
		t.Fatal(err)
	}
	// Stop of an attached environment leaves the lab running.
	if _, err := kube.CoreV1().Namespaces().Get(ctx(t), "default", metav1.GetOptions{}); err != nil {
		t.Errorf("the lab after an attached Stop: %v", err)
	}
}

func TestRunScenario(t *testing.T) {
	reset(t)
	var out bytes.Buffer
	if err := env.RunScenario(ctx(t), "testdata/widget-scenario.yaml", &out); err != nil {
		t.Fatalf("RunScenario: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "PASS") {
		t.Errorf("no PASS in the scenario's output:\n%s", out.String())
	}
	out.Reset()
	err := env.RunScenario(ctx(t), "testdata/failing-scenario.yaml", &out)
	if !errors.Is(err, labtest.ErrScenarioFailed) {
		t.Errorf("a failing scenario: %v, want ErrScenarioFailed\n%s", err, out.String())
	}
}

// fakeT records what PrintTimelineOnFailure logs.
type fakeT struct {
	cleanups []func()
	failed   bool
	logged   string
}

func (f *fakeT) Cleanup(fn func())               { f.cleanups = append(f.cleanups, fn) }
func (f *fakeT) Failed() bool                    { return f.failed }
func (f *fakeT) Logf(format string, args ...any) { f.logged += fmt.Sprintf(format, args...) }

func TestTimelineOnFailure(t *testing.T) {
	reset(t)
	c := ctx(t)
	ft := &fakeT{failed: true}
	env.PrintTimelineOnFailure(ft)
	if _, err := kube.CoreV1().ConfigMaps("default").Create(c, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "seen-on-the-timeline"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	err := wait.PollUntilContextTimeout(c, 50*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		return strings.Contains(env.TimelineSince(0), "configmap/seen-on-the-timeline"), nil
	})
	if err != nil {
		t.Fatalf("the ConfigMap never reached the timeline:\n%s", env.TimelineSince(0))
	}
	for _, fn := range ft.cleanups {
		fn()
	}
	if !strings.Contains(ft.logged, "CREATE  configmap/seen-on-the-timeline") {
		t.Errorf("the failure's timeline lacks the ConfigMap:\n%s", ft.logged)
	}
}

// Bad input: each error is one line that says what to do.
func TestErrors(t *testing.T) {
	for name, tc := range map[string]struct {
		env  labtest.Environment
		want error
		says string
	}{
		"missing binary": {
			env:  labtest.Environment{Binary: "/nonexistent/crdlab"},
			want: labtest.ErrNoBinary, says: "/nonexistent/crdlab",
		},
		"wrong state dir": {
			env:  labtest.Environment{AttachTo: "/nonexistent/state"},
			want: labtest.ErrNotRunning, says: "crdlab up -d --state-dir /nonexistent/state",
		},
		"missing CRD path": {
			env:  labtest.Environment{CRDDirectoryPaths: []string{"testdata/no-such-dir"}, ErrorIfCRDPathMissing: true},
			want: labtest.ErrCRDPath, says: "CRDDirectoryPaths[0] testdata/no-such-dir does not exist",
		},
		"CRD path with no CRD": {
			env:  labtest.Environment{CRDDirectoryPaths: []string{"testdata/empty"}, ErrorIfCRDPathMissing: true},
			want: labtest.ErrCRDPath, says: "holds no CustomResourceDefinition",
		},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := tc.env.Start()
			if !errors.Is(err, tc.want) {
				t.Fatalf("Start: %v, want %v", err, tc.want)
			}
			if msg := err.Error(); !strings.Contains(msg, tc.says) || strings.Contains(msg, "\n") {
				t.Errorf("error %q: want one line saying %q", msg, tc.says)
			}
		})
	}
	t.Run("no binary on PATH", func(t *testing.T) {
		t.Setenv("PATH", t.TempDir())
		t.Setenv(labtest.BinaryEnv, "")
		t.Setenv(labtest.VersionEnv, "") // a development build: nothing to download
		_, err := (&labtest.Environment{}).Start()
		if !errors.Is(err, labtest.ErrNoBinary) || !strings.Contains(err.Error(), "go build -o bin/crdlab ./cmd/crdlab") {
			t.Errorf("Start: %v, want ErrNoBinary saying how to build it", err)
		}
	})
	t.Run("existing cluster is not a lab", func(t *testing.T) {
		kubeconfig := filepath.Join(env.StateDir(), "kubeconfig")
		t.Setenv("KUBECONFIG", kubeconfig)
		yes := true
		existing := &labtest.Environment{UseExistingCluster: &yes}
		if _, err := existing.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() {
			if err := existing.Stop(); err != nil {
				t.Error(err)
			}
		}()
		if _, err := existing.Nodes(ctx(t)); !errors.Is(err, labtest.ErrNotALab) {
			t.Errorf("Nodes on an existing cluster: %v, want ErrNotALab", err)
		}
		if err := existing.Reset(ctx(t), labtest.ResetOptions{}); !errors.Is(err, labtest.ErrNotALab) {
			t.Errorf("Reset on an existing cluster: %v, want ErrNotALab", err)
		}
		// A scenario runs on it (crdlab scenario run --kubeconfig), its
		// timeline in arrival order, which the run says.
		var out bytes.Buffer
		if err := existing.RunScenario(ctx(t), "delete-pod", &out); err != nil {
			t.Errorf("RunScenario on an existing cluster: %v\n%s", err, out.String())
		}
		for _, want := range []string{"timeline: in arrival order", "PASS delete-pod", "replicaset           CREATE  pod/web-"} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("RunScenario on an existing cluster: the output lacks %q:\n%s", want, out.String())
			}
		}
	})
}

// The module must stay light: no k8s.io/kubernetes, no replace of k8s.io
// modules, so that a suite's own versions win.
func TestDependencies(t *testing.T) {
	checkDependencies(t, ".")
}

func checkDependencies(t *testing.T, dir string) {
	out, err := exec.Command("go", "mod", "graph").CombinedOutput()
	if err != nil {
		t.Fatalf("go mod graph: %v\n%s", err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, "k8s.io/kubernetes@") || strings.Contains(line, "github.com/crdlab/crdlab@") {
			t.Errorf("go mod graph: %s", line)
		}
	}
	gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(gomod), "replace") {
		t.Errorf("go.mod has a replace directive:\n%s", gomod)
	}
}

var rbacRole = rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "made-by-a-spec"}}

// childEnv marks a copy of this test binary run by TestFourTestBinariesAtOnce.
const childEnv = "CRDLAB_LABTEST_CHILD"

// Four test binaries, each starting a lab in its TestMain at the same
// moment, as 'go test -p 4' of four packages would: no port clash, no race
// on shared files, each its own cluster (envtest's #1363 and #1909).
func TestFourTestBinariesAtOnce(t *testing.T) {
	if os.Getenv(childEnv) != "" {
		t.Skip("a child of TestFourTestBinariesAtOnce")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	outs := make([]bytes.Buffer, 4)
	errs := make([]error, 4)
	cmds := make([]*exec.Cmd, 4)
	for i := range cmds {
		cmds[i] = exec.Command(self, "-test.run=^TestChildIsAloneInItsLab$", "-test.v")
		cmds[i].Env = append(os.Environ(), fmt.Sprintf("%s=%d", childEnv, i))
		cmds[i].Stdout, cmds[i].Stderr = &outs[i], &outs[i]
	}
	for i, cmd := range cmds {
		if errs[i] = cmd.Start(); errs[i] != nil {
			t.Fatal(errs[i])
		}
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("test binary %d: %v\n%s", i, err, outs[i].String())
		} else if !strings.Contains(outs[i].String(), "--- PASS: TestChildIsAloneInItsLab") {
			t.Errorf("test binary %d did not run its test:\n%s", i, outs[i].String())
		}
	}
}

// TestChildIsAloneInItsLab runs in the children of
// TestFourTestBinariesAtOnce: its namespace is the only child's namespace
// its lab has, even after all four made theirs.
func TestChildIsAloneInItsLab(t *testing.T) {
	id := os.Getenv(childEnv)
	if id == "" {
		t.Skip("run by TestFourTestBinariesAtOnce")
	}
	c := ctx(t)
	reset(t)
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "child-" + id, Labels: map[string]string{"crdlab-test": "child"}}}
	if _, err := kube.CoreV1().Namespaces().Create(c, ns, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// The others started with this one and made theirs at about the same
	// time; a shared cluster would show them within a few seconds.
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		list, err := kube.CoreV1().Namespaces().List(c, metav1.ListOptions{LabelSelector: "crdlab-test=child"})
		if err != nil {
			t.Fatal(err)
		}
		if len(list.Items) != 1 || list.Items[0].Name != ns.Name {
			var names []string
			for _, n := range list.Items {
				names = append(names, n.Name)
			}
			t.Fatalf("lab of child %s holds the namespaces of other children: %v", id, names)
		}
		time.Sleep(250 * time.Millisecond) // watching for what should never come
	}
}

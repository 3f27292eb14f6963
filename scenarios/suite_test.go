package scenarios_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/discovery"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/crdlab/crdlab/lab"
	"github.com/crdlab/crdlab/lab/full"
	"github.com/crdlab/crdlab/lab/kubeminor"
	"github.com/crdlab/crdlab/lab/labtest/control"
	"github.com/crdlab/crdlab/lab/timeline"
	"github.com/crdlab/crdlab/scenarios"
)

func TestScenarios(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "scenarios suite")
}

// shared is the suite's lab: booted once, with the sample CRDs and
// operators, as 'crdlab up' runs it.
var (
	shared         *full.Lab
	sharedTimeline *timeline.Stream // the lab's
)

var _ = BeforeSuite(func(ctx context.Context) {
	ctrllog.SetLogger(GinkgoLogr) // envtest and the operators log through it
	var err error
	sharedTimeline = timeline.NewStream(nil)
	shared, err = full.Start(ctx, full.Options{Lab: lab.Options{Logger: GinkgoLogr}, Trace: sharedTimeline})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { Expect(shared.Stop()).To(Succeed()) })
	DeferCleanup(sharedTimeline.Stop) // first: the watch, then the lab
	sharedTimeline.Watch(ctx, shared.RESTConfig(), timeline.Options{AuditLog: shared.Dir().AuditLog()})
	// make test-kubernetes runs the suite on each minor, through the
	// variable: the lab serves that minor.
	if os.Getenv(kubeminor.Env) != "" {
		minor, err := kubeminor.Choose("")
		Expect(err).NotTo(HaveOccurred())
		v, err := discovery.NewDiscoveryClientForConfigOrDie(shared.RESTConfig()).ServerVersion()
		Expect(err).NotTo(HaveOccurred())
		Expect(v.GitVersion).To(HavePrefix("v"+minor+"."), "%s=%s", kubeminor.Env, minor)
		GinkgoWriter.Printf("the lab serves Kubernetes %s\n", v.GitVersion)
	}
}, NodeTimeout(180*time.Second))

// Every spec starts with every component and node running, whatever the
// spec before it stopped and failed to start again.
var _ = BeforeEach(func(ctx context.Context) {
	for _, c := range shared.Components() {
		if !c.Running {
			Expect(shared.StartComponent(ctx, c.Name)).To(Succeed(), "starting %s", c.Name)
		}
	}
	for _, n := range shared.Nodes() {
		if !n.Running {
			Expect(shared.StartNode(ctx, n.Name)).To(Succeed(), "starting node %s", n.Name)
		}
	}
})

func target() scenarios.Target { return scenarios.LocalTarget(shared, sharedTimeline) }

// report keeps the entries of a run, and prints them to the Ginkgo log.
type report struct {
	mu      sync.Mutex
	entries []scenarios.Entry
	text    scenarios.Listener
}

func newReport() *report { return &report{text: scenarios.TextListener(GinkgoWriter)} }

func (r *report) listen(e scenarios.Entry) {
	r.mu.Lock()
	r.entries = append(r.entries, e)
	r.mu.Unlock()
	r.text(e)
}

// events returns the timeline lines of the run as "actor VERB kind".
func (r *report) events() []timeline.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []timeline.Event
	for _, e := range r.entries {
		if e.Type == "event" {
			out = append(out, *e.Event)
		}
	}
	return out
}

func run(ctx context.Context, s *scenarios.Scenario, t scenarios.Target) (*scenarios.Result, *report) {
	GinkgoHelper()
	rep := newReport()
	res, err := scenarios.Run(ctx, s, t, scenarios.Options{Listener: rep.listen, Timeline: true})
	Expect(err).NotTo(HaveOccurred())
	return res, rep
}

// failures describes the failed steps of a result.
func failures(res *scenarios.Result) string {
	var b strings.Builder
	for _, st := range res.Steps {
		if st.Status == scenarios.Failed {
			b.WriteString(st.Description + ": " + st.Message + "\n")
		}
	}
	return b.String()
}

var _ = Describe("the built-in scenarios, through the Go API", func() {
	all, err := scenarios.Builtin()
	if err != nil {
		panic(err)
	}
	for _, s := range all {
		It("passes "+s.Metadata.Name, func(ctx context.Context) {
			res, rep := run(ctx, s, target())
			if res.Status == scenarios.Skipped && s.Spec.MinKubernetes != "" {
				// A lab of an older minor (CRDLAB_KUBERNETES_VERSION): the
				// scenario says what it needs.
				Expect(res.Message).To(ContainSubstring("needs " + s.Spec.MinKubernetes + " or newer"))
				Skip(res.Message)
			}
			if n := s.Spec.Lab; n != nil && res.Status == scenarios.Skipped {
				// A scenario at scale (scale-out): the suite's lab is too
				// small; make test-scale runs it on a lab of its size.
				Expect(res.Message).To(ContainSubstring(fmt.Sprintf("crdlab up -d --nodes %d --zones %d", n.Nodes, n.Zones)))
				Skip(res.Message)
			}
			Expect(res.Status).To(Equal(scenarios.Passed), "%s: %s\n%s", s.Metadata.Name, res.Message, failures(res))
			deleters := map[string]bool{}
			for _, e := range rep.events() {
				if e.Verb == timeline.Delete {
					deleters[e.Actor+" "+e.Kind] = true
				}
			}
			switch s.Metadata.Name {
			case "cascade-delete": // the audit log names who deleted
				Expect(deleters).To(HaveKey("garbage collector ReplicaSet"))
				Expect(deleters).To(HaveKey("garbage collector Pod"))
			case "controller-down": // the operator's passes join the timeline
				Expect(rep.events()).To(ContainElement(HaveField("Verb", "RECONCILE")))
			case "aggregated-api": // requests the aggregated server answered
				Expect(rep.events()).To(ContainElement(And(HaveField("Kind", "NodeMetrics"), HaveField("Actor", "you (scenario)"))))
			case "namespace-delete":
				Expect(deleters).To(HaveKey("namespace ConfigMap"))
			}
		}, NodeTimeout(5*time.Minute))
	}
})

var _ = Describe("a scenario run", func() {
	It("shows each loop of delete-pod on the timeline, naming its actor", func(ctx context.Context) {
		s, err := scenarios.Load("delete-pod")
		Expect(err).NotTo(HaveOccurred())
		res, rep := run(ctx, s, target())
		Expect(res.Passed()).To(BeTrue(), failures(res))
		type line struct{ actor, verb, kind string }
		var lines []line
		for _, e := range rep.events() {
			lines = append(lines, line{e.Actor, e.Verb, e.Kind})
		}
		Expect(lines).To(ContainElements(
			line{"you (scenario)", timeline.Create, "Deployment"},
			line{"you (scenario)", timeline.Delete, "Pod"},
			line{"replicaset", timeline.Create, "Pod"},
			line{"scheduler", timeline.Bind, "Pod"},
			line{"kubelet (simulated)", timeline.Status, "Pod"},
		))
	})

	It("fails an expectation that cannot hold, with expected, actual and a diff", func(ctx context.Context) {
		s, err := scenarios.LoadFile("testdata/failing.yaml")
		Expect(err).NotTo(HaveOccurred())
		res, _ := run(ctx, s, target())
		Expect(res.Status).To(Equal(scenarios.Failed))
		Expect(res.Steps).To(HaveLen(2))
		msg := res.Steps[1].Message
		Expect(msg).To(ContainSubstring("expected:"))
		Expect(msg).To(ContainSubstring("actual:"))
		Expect(msg).To(ContainSubstring(`data.color: want "green", got "blue"`))
		Expect(msg).NotTo(ContainSubstring("data.size"))
	})

	It("cleans up: its namespace goes, and what it stopped runs again, also when it fails", func(ctx context.Context) {
		s, err := scenarios.Parse("stop-and-fail.yaml", []byte(`
apiVersion: crdlab.dev/v1alpha1
kind: Scenario
metadata: {name: stop-and-fail}
spec:
  title: stops an operator, then fails
  timeout: 1s
  steps:
  - lab: {stopController: webapp-operator}
  - lab: {stopController: controller-manager}
  - expect:
      resource: {apiVersion: v1, kind: Pod}
      cel: objects.size() == 42
`), nil)
		Expect(err).NotTo(HaveOccurred())
		res, _ := run(ctx, s, target())
		Expect(res.Status).To(Equal(scenarios.Failed))
		Expect(shared.Components()).To(ContainElements(
			control.Component{Name: "webapp-operator", Running: true},
			control.Component{Name: lab.ControllerManager, Running: true},
		))
		Eventually(func() bool {
			var ns corev1.Namespace
			err := shared.Client().Get(ctx, client.ObjectKey{Name: res.Namespace}, &ns)
			return apierrors.IsNotFound(err) || ns.DeletionTimestamp != nil
		}).WithContext(ctx).WithTimeout(10 * time.Second).Should(BeTrue())
	})

	It("cleans up when interrupted", func(ctx context.Context) {
		s, err := scenarios.Parse("interrupted.yaml", []byte(`
apiVersion: crdlab.dev/v1alpha1
kind: Scenario
metadata: {name: interrupted}
spec:
  title: waits for ever
  steps:
  - lab: {stopController: redis-operator}
  - wait: 1h
`), nil)
		Expect(err).NotTo(HaveOccurred())
		runCtx, cancel := context.WithTimeout(ctx, 3*time.Second)
		defer cancel()
		res, _ := run(runCtx, s, target())
		Expect(res.Status).To(Equal(scenarios.Failed))
		Expect(res.Steps[1].Message).To(ContainSubstring("interrupted"))
		Expect(shared.Components()).To(ContainElement(control.Component{Name: "redis-operator", Running: true}))
	})

	It("against a cluster that is not a lab, skips from the first lab step on, with a note", func(ctx context.Context) {
		s, err := scenarios.Load("controller-down")
		Expect(err).NotTo(HaveOccurred())
		res, rep := run(ctx, s, scenarios.Target{Config: shared.RESTConfig()})
		Expect(res.Status).To(Equal(scenarios.Skipped))
		Expect(res.Message).To(ContainSubstring("not a crdlab lab"))
		Expect(rep.entries).To(ContainElement(And(HaveField("Type", "scenario"), HaveField("Order", scenarios.OrderArrival))))
		Expect(rep.entries).To(ContainElement(And(HaveField("Type", "note"), HaveField("Text", ContainSubstring("timeline: in arrival order")))))
		var statuses []string
		for _, st := range res.Steps {
			statuses = append(statuses, st.Status)
		}
		Expect(statuses).To(HaveExactElements(scenarios.Passed, scenarios.Passed, scenarios.Passed, scenarios.Skipped,
			scenarios.Skipped, scenarios.Skipped, scenarios.Skipped, scenarios.Skipped, scenarios.Skipped,
			scenarios.Skipped, scenarios.Skipped, scenarios.Skipped, scenarios.Skipped, scenarios.Skipped))
	})

	It("against a cluster that is not a lab, passes delete-pod, scale and cascade-delete with its timeline in arrival order", func(ctx context.Context) {
		for _, name := range []string{"delete-pod", "scale", "cascade-delete"} {
			s, err := scenarios.Load(name)
			Expect(err).NotTo(HaveOccurred())
			res, rep := run(ctx, s, scenarios.Target{Config: shared.RESTConfig()})
			Expect(res.Status).To(Equal(scenarios.Passed), "%s: %s\n%s", name, res.Message, failures(res))
			Expect(rep.entries).To(ContainElement(And(HaveField("Type", "note"), HaveField("Text", ContainSubstring("timeline: in arrival order")))))
			Expect(rep.events()).To(ContainElement(And(HaveField("Actor", "replicaset"), HaveField("Verb", timeline.Create), HaveField("Kind", "Pod"))))
			for _, e := range rep.events() {
				Expect(e.Revision).To(BeZero(), "a line in arrival order carries no revision: %+v", e)
			}
		}
	})

	It("skips a scenario that needs a newer Kubernetes than the apiserver's, saying so, and runs one it can", func(ctx context.Context) {
		const newer = `apiVersion: crdlab.dev/v1alpha1
kind: Scenario
metadata: {name: needs-newer}
spec:
  title: Needs a newer Kubernetes
  minKubernetes: "1.99"
  steps:
  - apply: {object: {apiVersion: v1, kind: ConfigMap, metadata: {name: c}}}
`
		s, err := scenarios.Parse("needs-newer.yaml", []byte(newer), nil)
		Expect(err).NotTo(HaveOccurred())
		res, _ := run(ctx, s, target())
		Expect(res.Status).To(Equal(scenarios.Skipped))
		Expect(res.Message).To(MatchRegexp(`the apiserver serves Kubernetes v1\.\d+\.\d+(-(beta|rc)\.\d+)?; the scenario needs 1\.99 or newer \(spec\.minKubernetes\)`))
		Expect(res.Steps).To(BeEmpty())

		s, err = scenarios.Parse("needs-old.yaml", []byte(strings.ReplaceAll(newer, `"1.99"`, `"1.35"`)), nil)
		Expect(err).NotTo(HaveOccurred())
		res, _ = run(ctx, s, target())
		Expect(res.Status).To(Equal(scenarios.Passed), failures(res))
	})

	It("runs the steps of the apiserver's minor alone (a step's kubernetes range), as if the others were not written", func(ctx context.Context) {
		dc, err := discovery.NewDiscoveryClientForConfig(shared.RESTConfig())
		Expect(err).NotTo(HaveOccurred())
		v, err := dc.ServerVersion()
		Expect(err).NotTo(HaveOccurred())
		minor := kubeminor.Of(v.GitVersion)
		Expect(minor).NotTo(BeEmpty(), v.GitVersion)
		other := kubeminor.Supported()[0] // another minor crdlab serves
		if other == minor {
			other = kubeminor.Supported()[1]
		}
		src := fmt.Sprintf(`apiVersion: crdlab.dev/v1alpha1
kind: Scenario
metadata: {name: per-minor}
spec:
  title: Steps per minor
  steps:
  - narrate: every minor
  - name: this minor
    kubernetes: ">=%[1]s, <=%[1]s"
    apply: {object: {apiVersion: v1, kind: ConfigMap, metadata: {name: this-minor}}}
  - name: another minor
    kubernetes: "=%[2]s"
    timeout: 1s
    expect: {object: {apiVersion: v1, kind: ConfigMap, metadata: {name: never-made}}}
  - name: this minor again
    kubernetes: "=%[1]s"
    expect: {object: {apiVersion: v1, kind: ConfigMap, metadata: {name: this-minor}}}
`, minor, other)
		s, err := scenarios.Parse("per-minor.yaml", []byte(src), nil)
		Expect(err).NotTo(HaveOccurred())
		res, rep := run(ctx, s, target())
		Expect(res.Status).To(Equal(scenarios.Passed), failures(res))
		Expect(res.Steps).To(HaveLen(3), "the step of another minor is no part of the run")
		Expect(res.Steps[1].Description).To(ContainSubstring("this minor"))
		Expect(res.Steps[2].Description).To(ContainSubstring("this minor again"))
		Expect(res.Steps[2].Index).To(Equal(4), "the steps keep their numbers")
		for _, e := range rep.entries {
			Expect(e.Step).NotTo(Equal(3), "the step of another minor is not shown: %+v", e)
		}
	})

	It("runs a user's scenario file that applies a file next to it", func(ctx context.Context) {
		s, err := scenarios.LoadFile("../docs/scenarios/configmap-env.yaml")
		Expect(err).NotTo(HaveOccurred())
		res, _ := run(ctx, s, target())
		Expect(res.Status).To(Equal(scenarios.Passed), failures(res))
	})
})

package controllers_test

import (
	"context"
	"sync"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/crdlab/crdlab/lab"
	"github.com/crdlab/crdlab/lab/full"
	"github.com/crdlab/crdlab/lab/timeline"
)

func TestControllers(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "sample operators suite")
}

// traces collects the operators' reconcile passes.
var traces = &traceLog{}

// shared is the lab of the suite: booted once, with the sample CRDs
// installed and the sample operators running in this process.
var shared *full.Lab

var _ = BeforeSuite(func(ctx context.Context) {
	ctrllog.SetLogger(GinkgoLogr) // envtest and the operators log through it
	var err error
	shared, err = full.Start(ctx, full.Options{Lab: lab.Options{Logger: GinkgoLogr}, Trace: traces})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { Expect(shared.Stop()).To(Succeed()) })
}, NodeTimeout(180e9))

// traceLog is a timeline.Sink that keeps what it receives.
type traceLog struct {
	mu     sync.Mutex
	events []timeline.Event
}

func (l *traceLog) Record(e timeline.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, e)
}

// For returns the recorded passes over the object ns/name.
func (l *traceLog) For(ns, name string) []timeline.Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []timeline.Event
	for _, e := range l.events {
		if e.Namespace == ns && e.Name == name && e.Verb == timeline.Reconcile { // not the webhooks' calls
			out = append(out, e)
		}
	}
	return out
}

// details are the passes' details, in order.
func details(passes []timeline.Event) []string {
	out := make([]string, len(passes))
	for i, p := range passes {
		out[i] = p.Detail
	}
	return out
}

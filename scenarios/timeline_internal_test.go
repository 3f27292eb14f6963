package scenarios

import (
	"context"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/crdlab/crdlab/lab/timeline"
)

// holdLab is a lab whose timeline says its hold, then brings one line of
// revision next once told to (a nil next: none).
type holdLab struct {
	Lab  // nil: the runner calls only Timeline here
	hold time.Duration
	next chan int64
}

func (l holdLab) Timeline(ctx context.Context, sink timeline.Sink, ready func(time.Duration)) error {
	ready(l.hold)
	select {
	case rev := <-l.next:
		sink.Record(timeline.Event{Verb: timeline.Update, Kind: "ConfigMap", Namespace: "elsewhere", Name: "x", Revision: rev})
	case <-ctx.Done():
	}
	<-ctx.Done()
	return nil
}

// stepRunner is a runner on holdLab whose cluster is at revision 100.
func stepRunner(t *testing.T, l holdLab) *runner {
	t.Helper()
	namespaces := schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{namespaces: "NamespaceList"})
	dyn.PrependReactor("list", "namespaces", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, &unstructured.UnstructuredList{Object: map[string]any{
			"apiVersion": "v1", "kind": "NamespaceList", "metadata": map[string]any{"resourceVersion": "100"},
		}}, nil
	})
	r := &runner{target: Target{Lab: l}, opts: Options{Timeline: true}, dyn: dyn, activity: make(chan struct{}, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	r.startTimeline(ctx, ctx)
	return r
}

// At a step's end the runner waits for the lab's stream to pass the
// step's last revision for as long as the lab says it holds a line (and
// its own delivery margin), not a window of its own: longer than it ever
// guessed (750ms) when the lab holds lines longer, and no longer than it
// takes the stream to pass the revision.
func TestStepEndWaitsTheLabsHold(t *testing.T) {
	const hold = 1500 * time.Millisecond
	r := stepRunner(t, holdLab{hold: hold})
	if got, want := r.tl.settleWait(), hold+deliveryMargin; got != want {
		t.Errorf("settle wait %s, want the lab's hold %s and the margin %s", got, hold, deliveryMargin)
	}
	start := time.Now()
	r.closeStep(context.Background())
	if waited := time.Since(start); waited < hold+deliveryMargin {
		t.Errorf("the step's end waited %s for lines the lab holds %s", waited, hold)
	}

	l := holdLab{hold: time.Hour, next: make(chan int64)}
	r = stepRunner(t, l)
	done := make(chan struct{})
	go func() {
		r.closeStep(context.Background())
		close(done)
	}()
	l.next <- 101 // the stream passes the step's last revision, 100
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("the step's end still waits after the stream passed its revision")
	}
}

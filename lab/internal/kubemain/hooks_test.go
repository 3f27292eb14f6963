package kubemain

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// TestDoneWhenPresentMakesMissingObjectsAtOnce: on an empty etcd the
// wrapped hook has ensure make what is missing and reports done once it is
// there, while the original (here, one that never ends) is still waiting.
func TestDoneWhenPresentMakesMissingObjectsAtOnce(t *testing.T) {
	var made atomic.Int32
	present := func(context.Context, kubernetes.Interface) (bool, error) { return made.Load() > 0, nil }
	ensure := func(genericapiserver.PostStartHookContext) (bool, error) { made.Add(1); return true, nil }
	stuck := make(chan struct{})
	defer close(stuck)
	original := func(genericapiserver.PostStartHookContext) error { <-stuck; return nil }
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	hc := genericapiserver.PostStartHookContext{LoopbackClientConfig: &rest.Config{Host: "https://127.0.0.1:1"}, Context: ctx}

	if err := doneWhenPresent("test", original, present, ensure)(hc); err != nil {
		t.Fatalf("the wrapped hook: %v", err)
	}
	if n := made.Load(); n != 1 {
		t.Errorf("ensure ran %d times, want once", n)
	}
}

// TestDoneWhenPresentLeavesPresentObjects: what is there already (an etcd
// template) is not made again.
func TestDoneWhenPresentLeavesPresentObjects(t *testing.T) {
	present := func(context.Context, kubernetes.Interface) (bool, error) { return true, nil }
	ensure := func(genericapiserver.PostStartHookContext) (bool, error) {
		t.Error("ensure ran, but every object was there")
		return true, nil
	}
	stuck := make(chan struct{})
	defer close(stuck)
	original := func(genericapiserver.PostStartHookContext) error { <-stuck; return nil }
	hc := genericapiserver.PostStartHookContext{LoopbackClientConfig: &rest.Config{Host: "https://127.0.0.1:1"}, Context: context.Background()}
	if err := doneWhenPresent("test", original, present, ensure)(hc); err != nil {
		t.Fatalf("the wrapped hook: %v", err)
	}
}

// TestDoneWhenPresentReturnsTheOriginalsFailure: when neither the check nor
// ensure gets anywhere, the hook's outcome is the original's, as upstream.
func TestDoneWhenPresentReturnsTheOriginalsFailure(t *testing.T) {
	boom := errors.New("unable to initialize roles")
	present := func(context.Context, kubernetes.Interface) (bool, error) { return false, errors.New("etcd is down") }
	ensure := func(genericapiserver.PostStartHookContext) (bool, error) { return false, nil }
	original := func(genericapiserver.PostStartHookContext) error { return boom }
	hc := genericapiserver.PostStartHookContext{LoopbackClientConfig: &rest.Config{Host: "https://127.0.0.1:1"}, Context: context.Background()}
	if err := doneWhenPresent("test", original, present, ensure)(hc); !errors.Is(err, boom) {
		t.Fatalf("the wrapped hook returned %v, want the original's %v", err, boom)
	}
}

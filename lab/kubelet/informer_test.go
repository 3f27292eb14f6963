package kubelet

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/version"
	fakediscovery "k8s.io/client-go/discovery/fake"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/crdlab/crdlab/lab/kubeminor"
)

// The kubelet's informers keep each Pod and Node without its
// managedFields and with everything else the apiserver holds: what the
// kubelet reads (annotations, spec, status, deletion) is there, and a
// Pod still runs from its cached copy.
func TestInformersDropOnlyManagedFields(t *testing.T) {
	managed := []metav1.ManagedFieldsEntry{{
		Manager: "kube-controller-manager", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1",
		FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(`{"f:spec":{"f:containers":{}}}`),
	}}
	p := pod(annotate(AnnotationStartDelay, "0s"), func(p *corev1.Pod) {
		p.Labels = map[string]string{"app": "web"}
		p.ManagedFields = managed
	})
	client := fake.NewClientset(p)
	client.Discovery().(*fakediscovery.FakeDiscovery).FakedServerVersion = &version.Info{GitVersion: kubeminor.Patch(kubeminor.Oldest())}
	ctx, cancel := context.WithCancel(context.Background())
	k, err := start(ctx, client, client, Options{Nodes: 1})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	defer func() { cancel(); k.Stop() }()

	// Running from the cached copy: the status written, and seen again.
	var cached, stored *corev1.Pod
	err = wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		if cached, err = k.pods.Pods("default").Get("web"); err != nil {
			return false, nil
		}
		if stored, err = client.CoreV1().Pods("default").Get(ctx, "web", metav1.GetOptions{}); err != nil {
			return false, err
		}
		return cached.Status.Phase == corev1.PodRunning && cached.ResourceVersion == stored.ResourceVersion, nil
	})
	if err != nil {
		t.Fatalf("the Pod is not Running in the kubelet's cache: %v (cached: %v)", err, cached)
	}
	if cached.ManagedFields != nil {
		t.Errorf("the cached Pod keeps its managedFields: %v", cached.ManagedFields)
	}
	if len(stored.ManagedFields) == 0 {
		t.Errorf("the stored Pod lost its managedFields: the kubelet's write dropped them")
	}
	want := stored.DeepCopy()
	want.ManagedFields = nil
	if diff := cmp.Diff(want, cached); diff != "" {
		t.Errorf("the cached Pod differs from the stored one beyond managedFields (-stored +cached):\n%s", diff)
	}

	name := k.NodeNames()[0]
	node, err := k.nodeList.Get(name)
	if err != nil {
		t.Fatal(err)
	}
	if node.ManagedFields != nil {
		t.Errorf("the cached Node %s keeps its managedFields: %v", name, node.ManagedFields)
	}
}

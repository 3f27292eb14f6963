package kubelet

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/version"
	fakediscovery "k8s.io/client-go/discovery/fake"
	"k8s.io/client-go/kubernetes/fake"
)

// A lab restarted on its data dir finds its Nodes there: registering them
// again sets their zone labels as a kubelet sets its default labels, and
// leaves labels others set (and a label it no longer has a value for).
func TestRegisterUpdatesAnExistingNodesLabels(t *testing.T) {
	for _, tc := range []struct {
		name     string
		existing map[string]string
		zone     string
		want     map[string]string
	}{{
		name:     "no zones before, zone-b now",
		existing: map[string]string{"kubernetes.io/hostname": "lab-node-2", "team": "blue"},
		zone:     "zone-b",
		want: map[string]string{corev1.LabelTopologyZone: "zone-b", corev1.LabelTopologyRegion: "lab",
			"kubernetes.io/hostname": "lab-node-2", "team": "blue"},
	}, {
		name:     "zone-a before, zone-b now",
		existing: map[string]string{corev1.LabelTopologyZone: "zone-a", corev1.LabelTopologyRegion: "lab"},
		zone:     "zone-b",
		want:     map[string]string{corev1.LabelTopologyZone: "zone-b", corev1.LabelTopologyRegion: "lab"},
	}, {
		name:     "zone-a before, no zones now: left as a kubelet leaves it",
		existing: map[string]string{corev1.LabelTopologyZone: "zone-a", corev1.LabelTopologyRegion: "lab"},
		want:     map[string]string{corev1.LabelTopologyZone: "zone-a", corev1.LabelTopologyRegion: "lab"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			existing := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "lab-node-2", Labels: tc.existing}}
			client := fake.NewClientset(existing)
			n := mustNode("lab-node-2", 2)
			n.zone = tc.zone
			k := &Kubelet{opts: Options{Capacity: DefaultCapacity()}, client: client, heartbeats: client,
				nodes: map[string]*node{n.name: n}}
			if err := k.register(context.Background(), n); err != nil {
				t.Fatal(err)
			}
			got, err := client.CoreV1().Nodes().Get(context.Background(), n.name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for key, v := range tc.want {
				if got.Labels[key] != v {
					t.Errorf("label %s = %q, want %q (labels %v)", key, got.Labels[key], v, got.Labels)
				}
			}
			if got.Labels[SimulatedLabel] != "true" {
				t.Errorf("label %s = %q, want true", SimulatedLabel, got.Labels[SimulatedLabel])
			}
			if c := readyCondition(got); c != corev1.ConditionTrue {
				t.Errorf("Ready %s, want True", c)
			}
		})
	}
}

func readyCondition(n *corev1.Node) corev1.ConditionStatus {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status
		}
	}
	return corev1.ConditionUnknown
}

// A node reports the kubelet of the control plane's own release, whatever
// the minor crdlab links: a lab of Kubernetes 1.35 has v1.35 kubelets, as
// a real cluster's kubelet is never newer than its apiserver.
func TestNodesReportTheAPIServersVersion(t *testing.T) {
	for _, tc := range []struct{ server, want string }{
		{"v1.35.8", "v1.35.8-crdlab"},
		{"v1.36.5+abc", "v1.36.5-crdlab"},
		{"v1.38.0-beta.0", "v1.38.0-beta.0-crdlab"}, // a preview's, as its kubelet says it
	} {
		t.Run(tc.server, func(t *testing.T) {
			client := fake.NewClientset()
			client.Discovery().(*fakediscovery.FakeDiscovery).FakedServerVersion = &version.Info{GitVersion: tc.server}
			ctx, cancel := context.WithCancel(context.Background())
			k, err := start(ctx, client, client, Options{Nodes: 2, Capacity: DefaultCapacity()})
			if err != nil {
				cancel()
				t.Fatal(err)
			}
			defer func() { cancel(); k.Stop() }()
			for _, name := range k.NodeNames() {
				n, err := client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if got := n.Status.NodeInfo.KubeletVersion; got != tc.want {
					t.Errorf("node %s reports kubelet %s of a %s apiserver; want %s", name, got, tc.server, tc.want)
				}
			}
		})
	}
}

package timeline

import (
	"os"
	"runtime"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/cache"
	"sigs.k8s.io/yaml"
)

// podWithFields is a Pod as the apiserver returns it: the controller's
// entry and the kubelet's status entry, with the fields each owns.
func podWithFields(t *testing.T, rv, phase string) *unstructured.Unstructured {
	t.Helper()
	doc := `
apiVersion: v1
kind: Pod
metadata:
  name: web-1
  namespace: default
  resourceVersion: "` + rv + `"
  managedFields:
  - manager: kube-controller-manager
    operation: Update
    apiVersion: v1
    time: "2026-12-06T04:00:00Z"
    fieldsType: FieldsV1
    fieldsV1:
      f:metadata:
        f:labels:
          .: {}
          f:app: {}
      f:spec:
        f:containers:
          k:{"name":"web"}:
            .: {}
            f:image: {}
  - manager: kubelet
    operation: Update
    apiVersion: v1
    subresource: status
    time: "2026-12-06T04:00:01Z"
    fieldsType: FieldsV1
    fieldsV1:
      f:status:
        f:phase: {}
` + map[bool]string{true: "        f:podIP: {}\n"}[phase == "Running"] + `status:
  phase: ` + phase + "\n"
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
		t.Fatal(err)
	}
	return u
}

func TestCompactManagedFields(t *testing.T) {
	pending, running := podWithFields(t, "1", "Pending"), podWithFields(t, "2", "Running")
	compactManagedFields(pending)
	compactManagedFields(running)
	for _, u := range []*unstructured.Unstructured{pending, running} {
		for _, e := range managedFields(u) {
			if f, _ := e["fieldsV1"].(string); !strings.HasPrefix(f, "fnv64a:") {
				t.Fatalf("fieldsV1 of %s is %#v, want a digest", e["manager"], e["fieldsV1"])
			}
		}
		// What the timeline and the web UI read of an entry is kept.
		got := u.GetManagedFields()
		if len(got) != 2 || got[1].Manager != "kubelet" || got[1].Subresource != "status" || got[1].Time == nil ||
			got[0].Operation != "Update" {
			t.Fatalf("GetManagedFields after compacting: %+v", got)
		}
	}
	// The same fields, the same digest; the kubelet's entry took podIP: its
	// digest differs, and it is the entry the write changed.
	p, r := managedFields(pending), managedFields(running)
	if p[0]["fieldsV1"] != r[0]["fieldsV1"] {
		t.Errorf("the controller's unchanged fields have two digests: %v, %v", p[0]["fieldsV1"], r[0]["fieldsV1"])
	}
	if p[1]["fieldsV1"] == r[1]["fieldsV1"] {
		t.Errorf("the kubelet's fields changed but kept digest %v", p[1]["fieldsV1"])
	}
	if e, _ := changedEntry(pending, running); e == nil || e.Manager != "kubelet" {
		t.Errorf("changedEntry after compacting = %+v, want the kubelet's entry", e)
	}
	// Compacting again changes nothing.
	before := r[1]["fieldsV1"]
	compactManagedFields(running)
	if after := managedFields(running)[1]["fieldsV1"]; after != before {
		t.Errorf("compacting twice: %v then %v", before, after)
	}
}

// A watch's store holds, and tells of, objects with compacted fields.
func TestHandlerStoreCompacts(t *testing.T) {
	var seen *unstructured.Unstructured
	s := &handlerStore{h: cache.ResourceEventHandlerFuncs{AddFunc: func(obj any) { seen = obj.(*unstructured.Unstructured) }}}
	if err := s.Add(podWithFields(t, "1", "Pending")); err != nil {
		t.Fatal(err)
	}
	held := s.held()["default/web-1"]
	if held == nil || seen != held {
		t.Fatalf("held %v, told of %v", held, seen)
	}
	for _, e := range managedFields(held) {
		if _, ok := e["fieldsV1"].(string); !ok {
			t.Errorf("the store holds %s's fieldsV1 as %T", e["manager"], e["fieldsV1"])
		}
	}
}

// BenchmarkHeldPod reports the heap a watch keeps for one Pod of a
// Deployment, Running on a simulated node (testdata/pod.json, as the
// apiserver returns it), decoded as the timeline's dynamic watch decodes
// it: with its managedFields' fields, and compacted.
//
//	go test -run '^$' -bench HeldPod ./lab/timeline/
func BenchmarkHeldPod(b *testing.B) {
	data, err := os.ReadFile("testdata/pod.json")
	if err != nil {
		b.Fatal(err)
	}
	const pods = 2000
	for _, bc := range []struct {
		name    string
		compact bool
	}{{"decoded", false}, {"compacted", true}} {
		b.Run(bc.name, func(b *testing.B) {
			var perPod float64
			for b.Loop() {
				held := make([]*unstructured.Unstructured, pods)
				runtime.GC()
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				for i := range held {
					u := &unstructured.Unstructured{}
					if err := u.UnmarshalJSON(data); err != nil {
						b.Fatal(err)
					}
					if bc.compact {
						compactManagedFields(u)
					}
					held[i] = u
				}
				runtime.GC()
				runtime.ReadMemStats(&after)
				perPod = float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / pods
				runtime.KeepAlive(held)
			}
			b.ReportMetric(perPod, "heap-bytes/pod")
		})
	}
}

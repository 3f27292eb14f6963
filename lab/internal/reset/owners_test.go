package reset

import (
	"bytes"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
)

func TestOwned(t *testing.T) {
	owner := []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web", UID: "1"}}
	pb := func(obj runtime.Object) []byte {
		var buf bytes.Buffer
		if err := protobuf.NewSerializer(clientgoscheme.Scheme, clientgoscheme.Scheme).Encode(obj, &buf); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	for name, tc := range map[string]struct {
		value []byte
		want  bool
	}{
		"protobuf pod with an owner": {pb(&corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}, ObjectMeta: metav1.ObjectMeta{Name: "p", OwnerReferences: owner}}), true},
		"protobuf pod alone":         {pb(&corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}, ObjectMeta: metav1.ObjectMeta{Name: "p", Labels: map[string]string{"a": "b"}}}), false},
		"protobuf namespace":         {pb(&corev1.Namespace{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"}, ObjectMeta: metav1.ObjectMeta{Name: "n"}}), false},
		"JSON custom resource owned": {[]byte(`{"apiVersion":"x/v1","kind":"W","metadata":{"name":"w","ownerReferences":[{"kind":"X","name":"x"}]}}`), true},
		"JSON custom resource":       {[]byte(`{"apiVersion":"x/v1","kind":"W","metadata":{"name":"w"}}`), false},
		"garbage":                    {[]byte("k8s\x00\xff\xff"), false},
		"empty":                      {nil, false},
	} {
		if got := Owned(tc.value); got != tc.want {
			t.Errorf("%s: Owned = %v, want %v", name, got, tc.want)
		}
	}
}

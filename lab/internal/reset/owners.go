package reset

import (
	"bytes"
	"encoding/json"

	"google.golang.org/protobuf/encoding/protowire"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// protobufMagic starts a value kube-apiserver stored as protobuf (built-in
// types); custom resources are stored as JSON.
var protobufMagic = []byte("k8s\x00")

// Owned reports whether the object stored as value has owner references,
// that is whether a controller made it for another object. It reads the
// metadata only: in JSON, metadata.ownerReferences; in protobuf, the
// envelope's raw object, whose field 1 is its ObjectMeta in every
// Kubernetes type. A value it cannot read counts as not owned.
func Owned(value []byte) bool {
	if rest, ok := bytes.CutPrefix(value, protobufMagic); ok {
		raw := protoField(rest, 2) // runtime.Unknown: 1 typeMeta, 2 raw
		if raw == nil {
			return false
		}
		meta := protoField(raw, 1)
		if meta == nil {
			return false
		}
		var m metav1.ObjectMeta
		if m.Unmarshal(meta) != nil {
			return false
		}
		return len(m.OwnerReferences) > 0
	}
	var obj struct {
		Metadata struct {
			OwnerReferences []json.RawMessage `json:"ownerReferences"`
		} `json:"metadata"`
	}
	if json.Unmarshal(value, &obj) != nil {
		return false
	}
	return len(obj.Metadata.OwnerReferences) > 0
}

// protoField returns the bytes of the first length-delimited field num of
// the message b, or nil.
func protoField(b []byte, num protowire.Number) []byte {
	for len(b) > 0 {
		n, typ, l := protowire.ConsumeTag(b)
		if l < 0 {
			return nil
		}
		b = b[l:]
		if n == num && typ == protowire.BytesType {
			v, l := protowire.ConsumeBytes(b)
			if l < 0 {
				return nil
			}
			return v
		}
		l = protowire.ConsumeFieldValue(n, typ, b)
		if l < 0 {
			return nil
		}
		b = b[l:]
	}
	return nil
}

package timeline

import (
	"encoding/json"
	"fmt"
	"hash/fnv"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// compactManagedFields replaces the fieldsV1 of each of obj's managedFields
// entries (the set of fields its manager owns) by a digest of it, in place.
//
// The timeline, and the web UI that keeps the objects it sees, read an
// entry's manager, operation, subresource and time, and tell two versions
// of an entry apart (changedEntry); they never read the fields. Decoded
// into an unstructured object, fieldsV1 is a tree of small maps, one per
// field: a third of a Pod's heap (BenchmarkHeldPod), a CRD's whole schema
// again. The digest keeps the comparison exact at a few bytes.
func compactManagedFields(obj *unstructured.Unstructured) {
	for _, entry := range managedFields(obj) {
		switch f := entry["fieldsV1"].(type) {
		case nil, string:
			// None, or a digest already.
		default:
			entry["fieldsV1"] = fieldsDigest(f)
		}
	}
}

// fieldsDigest is "fnv64a:" and the FNV-1a hash of fields' JSON (map keys
// sorted: the same fields, the same digest).
func fieldsDigest(fields any) string {
	h := fnv.New64a()
	if err := json.NewEncoder(h).Encode(fields); err != nil {
		// Not JSON (never, for a decoded object): its printed form.
		fmt.Fprintf(h, "%#v", fields)
	}
	return fmt.Sprintf("fnv64a:%016x", h.Sum64())
}

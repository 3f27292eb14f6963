package aggregated

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crdlab/crdlab/lab/internal/actor"
)

// A route of the lab's (an APIService of APIServices) that someone else
// wrote, a learner's route for lab.crdlab.dev with insecureSkipTLSVerify
// or to another Service, is taken back when the server starts: a Service
// the lab runs is routed to by the lab's own route, as an add-on's
// manifests are applied again by whoever deploys it. The fields it took
// back are said in an Event on the APIService (so on the timeline, and in
// kubectl describe).

// ReasonRouteTakenBack is the reason of the Event the lab records on an
// APIService of its own that it registered again over another writer's.
const ReasonRouteTakenBack = "RouteTakenBack"

// FieldManager is the field manager of the lab's writes of its routes.
const FieldManager = "crdlab"

// takenBack says what of the APIService old the lab's spec want replaces,
// and from whom: each field of old's spec that another writer set (by its
// managedFields) to a value other than the lab's, with the value it had,
// and who wrote them as the timeline names them ("you (kubectl)"). Both
// are "" when old is the lab's own route (a CA bundle of an earlier start
// is the lab's to replace), or there is none.
func takenBack(old *unstructured.Unstructured, want map[string]any) (what, by string) {
	if old == nil {
		return "", ""
	}
	spec, _, _ := unstructured.NestedMap(old.Object, "spec")
	theirs := map[string][]string{} // field of the spec: its writers
	for _, mf := range old.GetManagedFields() {
		if mf.Manager == FieldManager || mf.FieldsV1 == nil {
			continue
		}
		var fields map[string]map[string]any
		if json.Unmarshal(mf.FieldsV1.GetRawBytes(), &fields) != nil {
			continue
		}
		for f := range fields["f:spec"] {
			if k, ok := strings.CutPrefix(f, "f:"); ok {
				theirs[k] = append(theirs[k], actor.OfManager(mf.Manager))
			}
		}
	}
	var changed, writers []string
	for _, k := range slices.Sorted(maps.Keys(theirs)) {
		had, ok := spec[k]
		if !ok && k == "insecureSkipTLSVerify" {
			had, ok = false, true // omitted: false
		}
		if ok && reflect.DeepEqual(had, want[k]) {
			continue
		}
		changed = append(changed, fmt.Sprintf("spec.%s was %s", k, specValue(k, had, ok)))
		for _, w := range theirs[k] {
			if !slices.Contains(writers, w) {
				writers = append(writers, w)
			}
		}
	}
	return strings.Join(changed, ", "), strings.Join(writers, " and ")
}

// specValue is a field of an APIService's spec in words: a Service as
// namespace/name:port, a CA bundle not as its bytes.
func specValue(key string, v any, ok bool) string {
	if !ok || v == nil {
		return "unset"
	}
	switch key {
	case "caBundle":
		return "another CA"
	case "service":
		m, _ := v.(map[string]any)
		port := any(int64(443)) // the API's default
		if p, ok := m["port"]; ok {
			port = p
		}
		return fmt.Sprintf("%v/%v:%v", m["namespace"], m["name"], port)
	}
	return fmt.Sprint(v)
}

// recordTakenBack records on the APIService the Event that says the lab
// took its route back from whoever wrote it, and what it replaced.
func recordTakenBack(ctx context.Context, c client.Client, apisvc *unstructured.Unstructured, by, what string) (string, error) {
	msg := fmt.Sprintf("the lab's aggregated API server registered its own route again, over the one %s wrote (%s)", by, what)
	now := metav1.NewTime(time.Now())
	ev := &corev1.Event{
		ObjectMeta: metav1.ObjectMeta{GenerateName: apisvc.GetName() + ".", Namespace: metav1.NamespaceDefault},
		InvolvedObject: corev1.ObjectReference{Kind: "APIService", APIVersion: "apiregistration.k8s.io/v1", Name: apisvc.GetName(),
			UID: apisvc.GetUID(), ResourceVersion: apisvc.GetResourceVersion()},
		Reason:              ReasonRouteTakenBack,
		Message:             msg,
		Type:                corev1.EventTypeNormal,
		Source:              corev1.EventSource{Component: "aggregated-api"},
		ReportingController: "aggregated-api", // the component's name: the timeline's actor
		ReportingInstance:   "crdlab",
		FirstTimestamp:      now,
		LastTimestamp:       now,
		Count:               1,
	}
	if err := c.Create(ctx, ev); err != nil {
		return msg, fmt.Errorf("aggregated API server: APIService %s: event %s: %w", apisvc.GetName(), ReasonRouteTakenBack, err)
	}
	return msg, nil
}

// caBundle is a CA bundle as an APIService's spec holds it.
func caBundle(pem []byte) string { return base64.StdEncoding.EncodeToString(pem) }

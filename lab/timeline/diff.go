package timeline

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// maxDetail is how many changed fields an update line names.
const maxDetail = 3

// objectEvent describes a create or delete of obj; the actor of a create is
// the manager of its newest managedFields entry.
func objectEvent(verb, kind string, obj *unstructured.Unstructured) Event {
	e := Event{
		Time:      time.Now(),
		Verb:      verb,
		Kind:      kind,
		Namespace: obj.GetNamespace(),
		Name:      obj.GetName(),
	}
	switch node, _, _ := unstructured.NestedString(obj.Object, "spec", "nodeName"); {
	case verb == Create:
		e.Actor, _ = actorOf(obj, nil)
	case kind == "Pod" && node != "" && obj.GetDeletionTimestamp() != nil:
		// A bound Pod deleted gracefully is removed when its node's kubelet
		// confirms that its containers stopped.
		e.Actor, e.Detail = "kubelet", "confirmed by node/"+node
	default:
		e.Actor = "?" // a watch does not say who deleted; the audit log does
	}
	return e
}

// updateEvent describes the change from old to cur, naming the fields that
// changed; changed is false when nothing but bookkeeping (resourceVersion,
// managedFields timestamps) did.
func updateEvent(kind string, old, cur *unstructured.Unstructured) (e Event, changed bool) {
	fields := changedFields(old.Object, cur.Object, "")
	if len(fields) == 0 {
		return e, false
	}
	entry, sure := changedEntry(old, cur)
	if entry == nil && allUnder(fields, "status") {
		// The same manager wrote the same status fields within the same
		// second: managedFields did not change, but only status writers
		// can have made it.
		entry = soleStatusWriter(cur)
	}
	actor, subresource := actorOf(cur, entry)
	verb := Update
	if subresource == "status" || allUnder(fields, "status") {
		verb = Status
	}
	if node, _, _ := unstructured.NestedString(cur.Object, "spec", "nodeName"); kind == "Pod" && node != "" {
		if was, _, _ := unstructured.NestedString(old.Object, "spec", "nodeName"); was == "" {
			// A binding leaves no managedFields entry; the Pod names its scheduler.
			scheduler, _, _ := unstructured.NestedString(cur.Object, "spec", "schedulerName")
			if scheduler == "" {
				scheduler = "default-scheduler" // the apiserver's default
			}
			verb, fields, actor = Bind, []string{"→ node/" + node}, Actor(scheduler)
		}
	}
	if old.GetDeletionTimestamp() != nil && allUnder(fields, "metadata") {
		return e, false // the grace period cut short; the DELETE line follows
	}
	if kind == "Pod" && verb == Status {
		fields = []string{podSummary(cur)}
	}
	if cur.GetDeletionTimestamp() != nil && old.GetDeletionTimestamp() == nil {
		verb, actor = Delete, "?"
		fields = []string{"deletion requested (graceful)"}
	}
	if len(fields) > maxDetail {
		fields = append(fields[:maxDetail], fmt.Sprintf("+%d more", len(fields)-maxDetail))
	}
	return Event{
		Time:      time.Now(),
		Actor:     actor,
		Verb:      verb,
		Kind:      kind,
		Namespace: cur.GetNamespace(),
		Name:      cur.GetName(),
		Detail:    strings.Join(fields, ", "),
		Removed:   strings.Join(removedFields(old.Object, cur.Object, ""), " "),
		// Not sure who wrote it: managedFields did not date the writer's
		// entry; the audit log names it, by the write's revision.
		writerUnsure: !sure && verb != Bind && verb != Delete,
	}, true
}

// removedFields returns the paths of the fields that a has and b does not
// (a map's key taken out, a field set to null), bookkeeping left out.
func removedFields(a, b map[string]any, prefix string) []string {
	var out []string
	for k, av := range a {
		path := k
		if prefix != "" {
			path = prefix + "." + k
		}
		if bookkeeping[path] || path == "metadata.managedFields" {
			continue
		}
		bv, ok := b[k]
		if !ok || bv == nil {
			if av != nil {
				out = append(out, path)
			}
			continue
		}
		am, aok := av.(map[string]any)
		bm, bok := bv.(map[string]any)
		if aok && bok {
			out = append(out, removedFields(am, bm, path)...)
		}
	}
	sort.Strings(out)
	return out
}

// actorOf names who made the latest write to obj: its newest managedFields
// entry's manager, narrowed to one controller for kube-controller-manager by
// the kind of the object (a status) or of its controlling owner (a child).
//
// entry, when known, is the managedFields entry the write changed.
func actorOf(obj *unstructured.Unstructured, entry *metav1.ManagedFieldsEntry) (actor, subresource string) {
	manager, subresource := lastManager(obj)
	if entry != nil {
		manager, subresource = entry.Manager, entry.Subresource
	}
	if manager != "kube-controller-manager" {
		return Actor(manager), subresource
	}
	kind := obj.GetKind()
	if subresource != "status" {
		for _, ref := range obj.GetOwnerReferences() {
			if ref.Controller != nil && *ref.Controller {
				kind = ref.Kind
			}
		}
	}
	if c, ok := controllerFor[kind]; ok {
		return c, subresource
	}
	return Actor(manager), subresource
}

// changedEntry returns the managedFields entry of cur that is new or
// differs from old's: the one the write between them touched. An entry
// that changed with its time kept lost fields to another's write (a key
// another client removed from a map it owns: the apiserver dates only the
// entry of the client that wrote); it is returned, not sure, only when no
// entry was written (a write that only removes fields leaves its own
// client no entry).
func changedEntry(old, cur *unstructured.Unstructured) (entry *metav1.ManagedFieldsEntry, sure bool) {
	before := map[string]map[string]any{}
	key := func(e map[string]any) string {
		return str(e, "manager") + "/" + str(e, "operation") + "/" + str(e, "subresource")
	}
	for _, e := range managedFields(old) {
		before[key(e)] = e
	}
	var lost map[string]any
	for _, e := range managedFields(cur) {
		prev, ok := before[key(e)]
		switch {
		case !ok || str(prev, "time") != str(e, "time"):
			return toEntry(e), true
		case lost == nil && !equality.Semantic.DeepEqual(prev, e):
			lost = e
		}
	}
	if lost != nil {
		return toEntry(lost), false
	}
	return nil, false
}

// soleStatusWriter returns the only managedFields entry of the status
// subresource, if there is exactly one.
func soleStatusWriter(obj *unstructured.Unstructured) *metav1.ManagedFieldsEntry {
	var found map[string]any
	for _, e := range managedFields(obj) {
		if str(e, "subresource") == "status" {
			if found != nil {
				return nil
			}
			found = e
		}
	}
	if found == nil {
		return nil
	}
	return toEntry(found)
}

// managedFields returns the entries of obj's metadata.managedFields as the
// object holds them, without the conversion (through JSON, for fieldsV1)
// GetManagedFields makes of every entry: the timeline looks at every
// change of every object, and converts only the entry it reports.
func managedFields(obj *unstructured.Unstructured) []map[string]any {
	v, _, _ := unstructured.NestedFieldNoCopy(obj.Object, "metadata", "managedFields")
	list, _ := v.([]any)
	out := make([]map[string]any, 0, len(list))
	for _, e := range list {
		if m, ok := e.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// toEntry converts one managedFields entry; one that does not convert
// keeps what a timeline line shows.
func toEntry(m map[string]any) *metav1.ManagedFieldsEntry {
	var e metav1.ManagedFieldsEntry
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, &e); err != nil {
		return &metav1.ManagedFieldsEntry{Manager: str(m, "manager"), Operation: metav1.ManagedFieldsOperationType(str(m, "operation")), Subresource: str(m, "subresource")}
	}
	return &e
}

func str(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}

// podSummary describes a Pod's status the way kubectl get pods would.
func podSummary(pod *unstructured.Unstructured) string {
	phase, _, _ := unstructured.NestedString(pod.Object, "status", "phase")
	conds, _, _ := unstructured.NestedSlice(pod.Object, "status", "conditions")
	for _, c := range conds {
		if m, ok := c.(map[string]any); ok && m["type"] == "Ready" {
			if m["status"] == "True" {
				return phase + ", Ready"
			}
			return phase + ", not ready"
		}
	}
	if deleting := pod.GetDeletionTimestamp(); deleting != nil {
		return phase + ", terminating"
	}
	return phase
}

// lastManager returns the manager and subresource of the most recent
// managedFields entry (by time), or "" when there is none.
func lastManager(obj *unstructured.Unstructured) (manager, subresource string) {
	var latest map[string]any
	var latestTime time.Time
	for _, e := range managedFields(obj) {
		t, err := time.Parse(time.RFC3339, str(e, "time"))
		if latest == nil || (err == nil && !latestTime.IsZero() && latestTime.Before(t)) {
			latest, latestTime = e, t
		}
	}
	if latest == nil {
		return "", ""
	}
	return str(latest, "manager"), str(latest, "subresource")
}

// bookkeeping fields change on every write and say nothing about intent.
var bookkeeping = map[string]bool{
	"metadata.resourceVersion": true,
	"metadata.managedFields":   true,
	"metadata.generation":      true,
}

// changedFields lists the dotted paths of leaves that differ between a and
// b, with their old and new values when they are short scalars.
func changedFields(a, b map[string]any, prefix string) []string {
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	var out []string
	for k := range keys {
		path := k
		if prefix != "" {
			path = prefix + "." + k
		}
		if bookkeeping[path] {
			continue
		}
		av, bv := a[k], b[k]
		if equality.Semantic.DeepEqual(av, bv) {
			continue
		}
		am, aok := av.(map[string]any)
		bm, bok := bv.(map[string]any)
		if aok && bok {
			out = append(out, changedFields(am, bm, path)...)
			continue
		}
		out = append(out, describeChange(path, av, bv))
	}
	sort.Strings(out)
	return out
}

func describeChange(path string, a, b any) string {
	short := func(v any) (string, bool) {
		switch v.(type) {
		case nil:
			return "∅", true
		case string, bool, int64, float64:
			s := fmt.Sprint(v)
			return s, len(s) <= 40
		}
		return "", false
	}
	as, aok := short(a)
	bs, bok := short(b)
	if aok && bok {
		return fmt.Sprintf("%s %s→%s", path, as, bs)
	}
	return path
}

func allUnder(fields []string, top string) bool {
	for _, f := range fields {
		if !strings.HasPrefix(f, top+".") && f != top {
			return false
		}
	}
	return true
}

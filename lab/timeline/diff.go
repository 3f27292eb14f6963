package timeline

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
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
	if verb == Create {
		e.Actor, _ = lastManager(obj)
	} else {
		e.Actor = "?"
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
	actor, subresource := lastManager(cur)
	verb := Update
	if subresource == "status" || allUnder(fields, "status") {
		verb = Status
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
	}, true
}

// lastManager returns the manager and subresource of the most recent
// managedFields entry.
func lastManager(obj *unstructured.Unstructured) (actor, subresource string) {
	var latest *metav1.ManagedFieldsEntry
	for _, mf := range obj.GetManagedFields() {
		if latest == nil || (mf.Time != nil && latest.Time != nil && latest.Time.Before(mf.Time)) {
			latest = &mf
		}
	}
	if latest == nil {
		return Actor(""), ""
	}
	return Actor(latest.Manager), latest.Subresource
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

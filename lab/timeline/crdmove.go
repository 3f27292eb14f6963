package timeline

import (
	"context"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/version"
)

// crdGR is the resource of CRDs, whose lines the watcher reads to follow
// the versions each CRD serves.
var crdGR = schema.GroupResource{Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions"}

// A CRD replaced by one that serves other versions (a learner who retired
// v1beta1, then a lesson that puts the lab's v1beta1-only CRD back) leaves
// the resource's watch on a version no longer served; discovery said so
// only at its next pass, up to rediscoverEvery later, and an object
// created and deleted meanwhile never reached the timeline (a list shows
// what is, not what happened). The watcher's own watch of CRDs says it at
// once: a CRD whose names are accepted is served (the apiserver serves its
// objects from then on), and its versions are in its spec. The resource's
// watch moves as soon as the CRD's line arrives (moveServed), a watch of
// a version served again (the CRD made again) tries its list at once, and
// a CRD created after the watch started has its objects watched from then
// on, each told as created.

// served is what a CRD says of the resource it defines.
type served struct {
	kind     string
	versions []string // served, the one discovery prefers first
	accepted bool     // its names are accepted: the apiserver serves it
	created  bool     // the CRD was created after the watch started
}

// servedBy reads what crd serves; ok is false for an object that is not
// a CRD the apiserver could serve (no group, plural or served version).
func servedBy(crd *unstructured.Unstructured) (schema.GroupResource, served, bool) {
	group, _, _ := unstructured.NestedString(crd.Object, "spec", "group")
	plural, _, _ := unstructured.NestedString(crd.Object, "spec", "names", "plural")
	kind, _, _ := unstructured.NestedString(crd.Object, "spec", "names", "kind")
	gr := schema.GroupResource{Group: group, Resource: plural}
	s := served{kind: kind}
	versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	for _, v := range versions {
		m, _ := v.(map[string]any)
		name, _ := m["name"].(string)
		if on, _ := m["served"].(bool); on && name != "" {
			s.versions = append(s.versions, name)
		}
	}
	// Discovery prefers the highest version served: v1 before v1beta1.
	slices.SortFunc(s.versions, func(a, b string) int { return version.CompareKubeAwareVersionStrings(b, a) })
	conds, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if t, _ := m["type"].(string); (t == "NamesAccepted" || t == "Established") && m["status"] == "True" {
			s.accepted = true
		}
	}
	if crd.GetDeletionTimestamp() != nil {
		s.accepted = false // being deleted: no version is to be watched anew
	}
	return gr, s, group != "" && plural != "" && kind != "" && len(s.versions) > 0
}

// crdChanged takes the line of a CRD created (added: after the watch
// started) or changed, for WatchWith's loop to move its resource's watch
// (moveServed), or deleted (gone): its versions are no longer known.
func (w *watcher) crdChanged(crd *unstructured.Unstructured, added, gone bool) {
	gr, s, ok := servedBy(crd)
	if gr.Group == "" || gr.Resource == "" {
		return
	}
	w.crdMu.Lock()
	if added {
		w.crdCreated.Insert(gr)
	}
	switch {
	case gone:
		delete(w.crdServes, gr)
		w.crdCreated.Delete(gr)
	case ok:
		s.created = w.crdCreated.Has(gr)
		w.crdServes[gr] = s
		w.crdPending.Insert(gr)
	}
	w.crdMu.Unlock()
	w.rediscover()
}

// moveServed moves each resource whose CRD changed to a version the CRD
// serves, when its watch's version is no longer one (with what that watch
// held: a change made in between is told), and starts watching the
// resource of a CRD created since the watch started (every object found
// told as created). Discover's goroutine only.
func (w *watcher) moveServed(ctx context.Context) {
	w.crdMu.Lock()
	pending := w.crdPending
	w.crdPending = sets.New[schema.GroupResource]()
	changed := make(map[schema.GroupResource]served, len(pending))
	for gr := range pending {
		changed[gr] = w.crdServes[gr]
	}
	w.crdMu.Unlock()
	for gr, s := range changed {
		if ignored.Has(gr) || !s.accepted || len(s.versions) == 0 {
			continue
		}
		cur := w.watching[gr]
		if cur != nil && slices.Contains(s.versions, cur.gvr.Version) {
			if cur.gone.Load() {
				cur.hurry() // the CRD made again at the same version
			}
			continue
		}
		gvr := gr.WithVersion(s.versions[0])
		switch {
		case cur != nil:
			w.watch(ctx, gvr, w.objectHandler(s.kind, gvr), cur.stop())
		case s.created:
			w.watch(ctx, gvr, w.objectHandler(s.kind, gvr), map[string]*unstructured.Unstructured{})
		}
	}
}

// servesNot says a CRD's last line says it does not serve gvr's version
// (discovery, a moment behind it, may still list it).
func (w *watcher) servesNot(gvr schema.GroupVersionResource) bool {
	w.crdMu.Lock()
	defer w.crdMu.Unlock()
	s, known := w.crdServes[gvr.GroupResource()]
	return known && !slices.Contains(s.versions, gvr.Version)
}

package scenarios

import (
	"context"
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/crdlab/crdlab/lab/timeline"
	"github.com/crdlab/crdlab/scenarios/format"
)

// The actors a check's by and notBy name (format.Actors).
const (
	ActorLearner           = "learner"
	ActorLearnerController = "learner-controller"
	ActorGarbageCollector  = "garbage-collector"
	ActorKubernetes        = "kubernetes"
	ActorCrdlab            = "crdlab"
)

// labOperators are the lab's own operators, each an actor of its own.
var labOperators = []string{"webapp-operator", "redis-operator", "redis-backup-operator"}

// kubeControllers are the timeline's names of kube-controller-manager's
// controllers (their service accounts, without -controller) and of
// Kubernetes' other components.
var kubeControllers = []string{
	"controller-manager", "scheduler", "apiserver", "kubelet",
	"deployment", "replicaset", "replication", "replicationcontroller", "statefulset", "daemon-set", "daemonset",
	"job", "cronjob", "endpoint", "endpointslice", "endpointslicemirroring", "namespace", "node", "node-lifecycle",
	"serviceaccount", "service-account", "horizontal-pod-autoscaler", "disruption", "pod-garbage", "pod-garbage-collector",
	"ttl-after-finished", "resourcequota", "persistent-volume-binder", "pvc-protection", "pv-protection",
	"taint-eviction", "root-ca-cert-publisher", "clusterrole-aggregation", "expand", "attachdetach",
	"ephemeral-volume", "statefulset-pvc", "legacy-service-account-token-cleaner", "validatingadmissionpolicy-status",
	"storage-version-migrator", "bootstrap-signer", "token-cleaner", "certificate", "csrsigning", "csrapproving", "csrcleaner",
}

// actorOfManager says which actor a field manager (a managedFields
// entry's) is.
func actorOfManager(manager string) string {
	switch {
	case manager == "", manager == "before-first-apply":
		return ""
	case strings.HasPrefix(manager, "kubectl"):
		return ActorLearner
	case manager == "crdlab", strings.HasPrefix(manager, "crdlab-"), manager == "webapp-webhooks":
		return ActorCrdlab
	case slices.Contains(labOperators, manager):
		return manager
	case manager == "kube-controller-manager", manager == "kube-scheduler", manager == "default-scheduler",
		manager == "kube-apiserver", strings.HasPrefix(manager, "system:"),
		// The storage version migrator's (1.37 on): its rewrites of the
		// objects, and its apply of a CRD's status (storedVersions).
		manager == "storage-version-migrator-controller", manager == "migration-runner-controller":
		return ActorKubernetes
	}
	return ActorLearnerController
}

// actorOfLine says which actor a timeline line's actor (timeline.Event's,
// named from the audit log or managedFields) is.
func actorOfLine(name string) string {
	switch {
	case name == "", name == "?":
		return ""
	case name == "you (kubectl)":
		return ActorLearner
	case name == "you (scenario)", name == "kubelet (simulated)", name == "aggregated-api", name == "webapp-webhooks":
		return ActorCrdlab
	case name == "garbage collector":
		return ActorGarbageCollector
	case slices.Contains(labOperators, name):
		return name
	case slices.Contains(kubeControllers, name):
		return ActorKubernetes
	}
	return actorOfManager(name)
}

// actorWords names an actor of by or notBy as the lesson says it.
func (r *runner) actorWords(a string) string {
	l := r.s.Lang()
	switch a {
	case ActorLearner:
		return l.Actor("you (kubectl)")
	case ActorLearnerController:
		return l.Msg("your controller")
	case ActorGarbageCollector:
		return l.Msg("the garbage collector")
	case ActorKubernetes:
		return l.Msg("Kubernetes' own components")
	case ActorCrdlab:
		return l.Msg("crdlab itself")
	}
	return l.Actor(a)
}

// whoWords names the writers found, as the lesson says them: the
// learner's controller by its name too.
func (r *runner) whoWords(names []string, actorOf func(string) string) string {
	l := r.s.Lang()
	var out []string
	for _, n := range names {
		w := l.Actor(timeline.Actor(n)) // a field manager, as the timeline names it
		switch actorOf(n) {
		case ActorLearnerController:
			w = l.Msgf("your controller (%s)", n)
		case ActorCrdlab:
			w = l.Msgf("crdlab itself (%s)", n)
		}
		if !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return strings.Join(out, l.Msg(", "))
}

// wants says whether writers (actors, one per writer) satisfy the check:
// one of them is its by, and none is of its notBy.
func wants(c *format.Check, actors []string) bool {
	if c.By != "" && !slices.Contains(actors, c.By) {
		return false
	}
	for _, a := range c.NotBy {
		if slices.Contains(actors, a) {
			return false
		}
	}
	return true
}

// checkCause checks, once what a check sees holds, who made it (the
// check's by and notBy); it says what it found otherwise.
func (r *runner) checkCause(ctx context.Context, c *format.Check) string {
	if c.By == "" && len(c.NotBy) == 0 {
		return ""
	}
	switch {
	case c.ExpectRestored != nil:
		ref := r.ref(&c.ExpectRestored.ObjectRef)
		_, objs, err := r.selectObjects(ctx, ref)
		if err != nil {
			return err.Error()
		}
		for _, o := range objs {
			managers := managersOf(&o, nil)
			if !wants(c, actorsOf(managers, actorOfManager)) {
				return r.wrongCause(format.RefWhat(ref), "made", managers, actorOfManager, c)
			}
		}
	case c.Expect.Absent:
		r.caughtUp(ctx)
		return r.deletedBy(c)
	default:
		return r.writtenBy(ctx, c)
	}
	return ""
}

// caughtUp waits until the timeline has brought the lines of the writes
// made until now (the cluster's revision now), or the lab's hold and the
// runner's margin have passed (settleWait): a check must not read the
// deletion of an object of the name before the one just deleted.
func (r *runner) caughtUp(ctx context.Context) {
	rev := r.revision(ctx)
	deadline := time.Now().Add(r.tl.settleWait())
	for {
		r.tl.mu.Lock()
		passed := r.tl.lastRev >= rev
		r.tl.mu.Unlock()
		if passed || rev == 0 || time.Now().After(deadline) || ctx.Err() != nil {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// deletedBy checks who deleted the object of an absent check: the
// timeline's last DELETE line of it and, for an object held by finalizers,
// the line of its deletion's request too. Both deleted it: who asked for
// the deletion (kubectl delete user alice) and who ended it (the Operator
// that took the last finalizer off); by holds when either is its actor,
// notBy when neither is. One who only carries out a deletion another
// asked for (see carriesOut) did not delete it.
func (r *runner) deletedBy(c *format.Check) string {
	l := r.s.Lang()
	ref := r.ref(c.Expect.Resource)
	ns := ref.Namespace
	if ns == "" {
		ns = r.ns
	}
	r.mu.Lock()
	key := deletedKey(ref.Kind, ns, ref.Name)
	e, ok := r.deletions[key]
	if !ok {
		key = deletedKey(ref.Kind, "", ref.Name)
		e, ok = r.deletions[key]
	}
	asked, wasAsked := r.asked[key]
	r.mu.Unlock()
	what := format.RefWhat(ref)
	if !ok || actorOfLine(e.Actor) == "" || strings.HasPrefix(e.Detail, "deletion requested") {
		// No line yet, or only the line of a deletion's start: the object
		// is gone, so a line of its end is to come.
		return l.Msgf("%s is gone, but the timeline has not said who deleted it (yet)", what)
	}
	who := []string{e.Actor}
	if wasAsked && actorOfLine(asked.Actor) != "" && asked.Actor != e.Actor {
		who = []string{asked.Actor, e.Actor}
		if carriesOut(e.Actor) {
			who = who[:1]
		}
	}
	if wants(c, actorsOf(who, actorOfLine)) {
		return ""
	}
	return r.wrongCause(what, "deleted", who, actorOfLine, c)
}

// carriesOut says a timeline actor that ends a deletion someone else
// asked for only carries it out: Kubernetes' own components (the garbage
// collector takes off the foregroundDeletion and orphan finalizers once it
// has dealt with the dependents, a protection controller its finalizer
// once nothing uses the object) and the kubelet (the last step of a Pod's
// graceful deletion). A learner's kubectl delete --cascade=foreground of
// what the garbage collector should have deleted is the learner's; an
// Operator that takes its finalizer off ends the deletion by its own work.
func carriesOut(name string) bool {
	switch actorOfLine(name) {
	case ActorGarbageCollector, ActorKubernetes:
		return true
	}
	return name == "kubelet (simulated)"
}

// writtenBy checks who wrote the fields of the objects an expect reads:
// the fields of its object, or its fields (cel), by the objects'
// managedFields.
func (r *runner) writtenBy(ctx context.Context, c *format.Check) string {
	l := r.s.Lang()
	e := c.Expect
	ref := e.Resource
	var paths [][]string
	var want map[string]any
	if e.Object != nil {
		w, _ := format.JSONCopy(e.Object)
		want = w.(map[string]any)
		r.expand(want)
		got, _ := format.RefOf(want)
		ref = &got
		paths = leafPaths(want, nil)
	} else {
		for _, f := range c.Fields {
			paths = append(paths, strings.Split(f, "."))
		}
	}
	_, objs, err := r.selectObjects(ctx, ref)
	if err != nil {
		return err.Error()
	}
	for _, o := range objs {
		if want != nil && len(match(l, want, o.Object, "")) > 0 {
			continue // not the object the check saw
		}
		what := strings.ToLower(o.GetKind()) + "/" + o.GetName()
		for _, p := range paths {
			managers := managersOf(&o, p)
			field := strings.Join(p, ".")
			if len(managers) == 0 {
				// A field the object no longer has: who took it out is
				// on the timeline's line of that write.
				rm, ok := r.removal(o.GetKind(), o.GetNamespace(), o.GetName(), field)
				switch {
				case !ok:
					return l.Msgf("%s: no writer of %s is in its managedFields", what, field)
				case !wants(c, []string{actorOfLine(rm.Actor)}):
					return r.wrongCause(l.Msgf("%s of %s", field, what), "removed", []string{rm.Actor}, actorOfLine, c)
				}
				continue
			}
			if !wants(c, actorsOf(managers, actorOfManager)) {
				return r.wrongCause(l.Msgf("%s of %s", field, what), "written", managers, actorOfManager, c)
			}
		}
	}
	return ""
}

// wrongCause says who did it instead: "configmap/user-alice was deleted by
// you (kubectl), not by the garbage collector". done is what was done:
// made, deleted, removed (a field taken out) or written.
func (r *runner) wrongCause(what, done string, who []string, actorOf func(string) string, c *format.Check) string {
	l := r.s.Lang()
	by := r.whoWords(who, actorOf)
	if c.By != "" && !slices.Contains(actorsOf(who, actorOf), c.By) {
		switch done {
		case "made":
			return l.Msgf("%s was made by %s, not by %s", what, by, r.actorWords(c.By))
		case "deleted":
			return l.Msgf("%s was deleted by %s, not by %s", what, by, r.actorWords(c.By))
		case "removed":
			return l.Msgf("%s was removed by %s, not by %s", what, by, r.actorWords(c.By))
		}
		return l.Msgf("%s was written by %s, not by %s", what, by, r.actorWords(c.By))
	}
	switch done {
	case "made":
		return l.Msgf("%s was made by %s, which this task does not count", what, by)
	case "deleted":
		return l.Msgf("%s was deleted by %s, which this task does not count", what, by)
	case "removed":
		return l.Msgf("%s was removed by %s, which this task does not count", what, by)
	}
	return l.Msgf("%s was written by %s, which this task does not count", what, by)
}

func actorsOf(names []string, actorOf func(string) string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = actorOf(n)
	}
	return out
}

// managersOf returns the field managers of obj that wrote the field at
// path or a field within it (path nil: any field), in order.
func managersOf(obj *unstructured.Unstructured, path []string) []string {
	var out []string
	for _, e := range obj.GetManagedFields() {
		if e.FieldsV1 == nil {
			continue
		}
		var set map[string]any
		if json.Unmarshal(e.FieldsV1.GetRawBytes(), &set) != nil || !owns(set, path) {
			continue
		}
		if !slices.Contains(out, e.Manager) {
			out = append(out, e.Manager)
		}
	}
	return out
}

// owns says whether a managedFields set (fieldsV1) has the field at path.
func owns(set map[string]any, path []string) bool {
	for _, p := range path {
		next, ok := set["f:"+p].(map[string]any)
		if !ok {
			return false
		}
		set = next
	}
	return true
}

// leafPaths returns the paths of the fields a partial object names,
// stopping at lists, without what names the object (apiVersion, kind,
// metadata.name and metadata.namespace).
func leafPaths(v map[string]any, prefix []string) [][]string {
	var out [][]string
	keys := make([]string, 0, len(v))
	for k := range v {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		p := append(slices.Clip(prefix), k)
		switch strings.Join(p, ".") {
		case "apiVersion", "kind", "metadata.name", "metadata.namespace":
			continue
		}
		if m, ok := v[k].(map[string]any); ok && len(m) > 0 {
			out = append(out, leafPaths(m, p)...)
			continue
		}
		out = append(out, p)
	}
	return out
}

// recordRemovals keeps, for each field a timeline line took out of an
// object (its Removed), that line: who removed a field is in no
// managedFields entry. An object created again starts with none. Called
// with r.mu held.
func (r *runner) recordRemovals(e timeline.Event) {
	key := deletedKey(e.Kind, e.Namespace, e.Name)
	if e.Verb == timeline.Create || e.Verb == timeline.Delete {
		delete(r.removals, key)
		return
	}
	if e.Removed == "" {
		return
	}
	if r.removals == nil {
		r.removals = map[string]map[string]timeline.Event{}
	}
	if r.removals[key] == nil {
		r.removals[key] = map[string]timeline.Event{}
	}
	for f := range strings.FieldsSeq(e.Removed) {
		r.removals[key][f] = e
	}
}

// removal returns the line that took field (a path) out of the object,
// or a field that held it.
func (r *runner) removal(kind, ns, name, field string) (timeline.Event, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	byField := r.removals[deletedKey(kind, ns, name)]
	for f := field; f != ""; {
		if e, ok := byField[f]; ok {
			return e, true
		}
		i := strings.LastIndex(f, ".")
		if i < 0 {
			break
		}
		f = f[:i]
	}
	return timeline.Event{}, false
}

// recordDeletion keeps the timeline's last DELETE line of each object, for
// the checks that read who deleted it, and forgets it when an object of
// that name is created again: its deletion is to come. Called with r.mu
// held.
func (r *runner) recordDeletion(e timeline.Event) {
	key := deletedKey(e.Kind, e.Namespace, e.Name)
	if e.Verb == timeline.Create {
		if was, known := r.deletions[key]; known && e.Revision != 0 && was.Revision > e.Revision {
			// The creation of the object whose deletion is known, come
			// late (a list after a broken watch tells what it finds as
			// created): not an object of that name made since.
			return
		}
		delete(r.deletions, key)
		delete(r.asked, key)
		if r.createdAt == nil {
			r.createdAt = map[string]int64{}
		}
		r.createdAt[key] = max(r.createdAt[key], e.Revision)
		return
	}
	if e.Verb != timeline.Delete {
		return
	}
	if e.Revision != 0 && e.Revision < r.createdAt[key] {
		// The end of the object of that name before the one created
		// since: its line waited for the audit log to name who took the
		// last finalizer off, and came after the creation's.
		return
	}
	if was, known := r.deletions[key]; known && actorOfLine(e.Actor) == "" && !strings.HasPrefix(was.Detail, "deletion requested") {
		// A line the audit log did not name, after a named one of the
		// same deletion.
		return
	}
	// An object held by finalizers has two lines: its deletion requested,
	// named by its request, and its end, named by the write that took
	// the last finalizer off (unknown, if the log did not say in time).
	if strings.HasPrefix(e.Detail, "deletion requested") {
		if r.asked == nil {
			r.asked = map[string]timeline.Event{}
		}
		r.asked[key] = e
	}
	if was, known := r.deletions[key]; known && e.Revision != 0 && was.Revision > e.Revision {
		// The line of the deletion's start, come after the line of its
		// end: each waits for the audit log on its own, and the end's
		// author can be found first.
		return
	}
	r.deletions[key] = e
}

package ui

import (
	"encoding/json"
	"fmt"
	"maps"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/crdlab/crdlab/lab/timeline"
)

// podStates are states of a Pod, as the kubelet and the scheduler leave it.
var podStates = map[string]map[string]any{
	"Pending":            {"phase": "Pending"},
	"Running, not Ready": {"phase": "Running"},
	"Running, Ready":     {"phase": "Running", "conditions": []any{map[string]any{"type": "Ready", "status": "True"}}},
	"Failed":             {"phase": "Failed"},
}

// ownedPod is the Pod i of the ReplicaSet owner (its controller), at
// resourceVersion rv, in state (podStates; "Terminating": Running, Ready
// and being deleted).
func ownedPod(owner string, i, rv int, state string) *unstructured.Unstructured {
	status := podStates[state]
	if state == "Terminating" {
		status = podStates["Running, Ready"]
	}
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": fmt.Sprintf("%s-%05d", owner, i), "namespace": "default",
			"uid": fmt.Sprintf("%s-pod-%d", owner, i), "resourceVersion": fmt.Sprint(rv)},
		"spec":   map[string]any{"nodeName": fmt.Sprintf("node-%d", i%7)},
		"status": status,
	}}
	if state == "Pending" {
		u.Object["spec"] = map[string]any{}
	}
	yes := true
	u.SetOwnerReferences([]metav1.OwnerReference{
		{APIVersion: "v1", Kind: "ConfigMap", Name: "not-the-controller", UID: "cm-uid"},
		{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: owner, UID: types.UID("uid-" + owner), Controller: &yes},
	})
	if state == "Terminating" {
		u.SetDeletionTimestamp(&metav1.Time{Time: time.Now()})
	}
	return u
}

// pods feeds a store the changes of an owner's Pods, as the lab's
// timeline does, each with its line.
type pods struct {
	st    *store
	owner string
	rv    int
	held  map[int]*unstructured.Unstructured
}

func newPods(st *store, owner string) *pods {
	return &pods{st: st, owner: owner, held: map[int]*unstructured.Unstructured{}}
}

// set puts the Pods from..to-1 in state, creating those not there.
func (p *pods) set(from, to int, state string) {
	for i := from; i < to; i++ {
		p.rv++
		u := ownedPod(p.owner, i, p.rv, state)
		verb := timeline.Status
		if p.held[i] == nil {
			verb = timeline.Create
		}
		p.st.observe(timeline.Change{Resource: podsGVR, Kind: "Pod", Old: p.held[i], New: u,
			Event: &timeline.Event{Time: time.Now(), Actor: "kubelet (simulated)", Verb: verb, Kind: "Pod", Name: u.GetName()}})
		p.held[i] = u
	}
}

// remove deletes the Pods from..to-1.
func (p *pods) remove(from, to int) {
	for i := from; i < to; i++ {
		p.rv++
		p.st.observe(timeline.Change{Resource: podsGVR, Kind: "Pod", Old: p.held[i],
			Event: &timeline.Event{Time: time.Now(), Actor: "kubelet (simulated)", Verb: timeline.Delete, Kind: "Pod", Name: p.held[i].GetName()}})
		delete(p.held, i)
	}
}

// shown returns what a page that opens now gets of owner's Pods: its
// group, if it is one, and the Pods it shows as boxes, not deleted.
func shown(st *store, owner string) (*Group, int) {
	var g *Group
	boxes := 0
	for _, o := range st.snapshot().Objects {
		if o.Kind == "Pod" && o.Group == "uid-"+owner && !o.Gone {
			boxes++
		}
	}
	for _, sg := range st.snapshot().Groups {
		if sg.Owner == "uid-"+owner {
			g = &sg
		}
	}
	return g, boxes
}

// An owner's Pods are one group above groupAbove, counted by state as
// they come, change and go; at groupAbove or fewer they are boxes again.
func TestAnOwnersPodsAreOneGroupAboveTheThreshold(t *testing.T) {
	st := newStore()
	p := newPods(st, "web-1")
	check := func(when string, wantGroup map[string]int, wantBoxes int) {
		t.Helper()
		g, boxes := shown(st, "web-1")
		switch {
		case wantGroup == nil && g != nil:
			t.Errorf("%s: a group %+v, want the Pods as boxes", when, *g)
		case wantGroup != nil && g == nil:
			t.Errorf("%s: no group, want one with %v", when, wantGroup)
		case wantGroup != nil && !maps.Equal(g.States, wantGroup):
			t.Errorf("%s: the group counts %v, want %v", when, g.States, wantGroup)
		case g != nil && (g.OwnerKind != "ReplicaSet" || g.OwnerName != "web-1" || g.Namespace != "default" || !g.Grouped):
			t.Errorf("%s: the group %+v, want ReplicaSet default/web-1's, grouped", when, *g)
		}
		if g != nil {
			sum := 0
			for _, n := range g.States {
				sum += n
			}
			if g.Count != sum {
				t.Errorf("%s: the group has %d Pods, its states %d", when, g.Count, sum)
			}
		}
		if boxes != wantBoxes {
			t.Errorf("%s: %d Pods shown as boxes, want %d", when, boxes, wantBoxes)
		}
	}
	p.set(0, groupAbove, "Pending")
	check("at the threshold", nil, groupAbove)
	p.set(groupAbove, groupAbove+1, "Pending")
	check("one above", map[string]int{"Pending": groupAbove + 1}, 0)
	p.set(groupAbove+1, 120, "Pending")
	p.set(0, 30, "Running, not Ready")
	p.set(0, 20, "Running, Ready")
	p.set(100, 105, "Failed")
	check("as they run", map[string]int{"Pending": 85, "Running, not Ready": 10, "Running, Ready": 20, "Failed": 5}, 0)
	if g, _ := shown(st, "web-1"); g.Level != levelBad {
		t.Errorf("a group with a Failed Pod is %s, want %s", g.Level, levelBad)
	}
	p.set(0, 10, "Terminating")
	check("while some go", map[string]int{"Pending": 85, "Running, not Ready": 10, "Running, Ready": 10, "Terminating": 10, "Failed": 5}, 0)
	p.remove(0, 10)
	p.remove(100, 105)
	check("some gone", map[string]int{"Pending": 85, "Running, not Ready": 10, "Running, Ready": 10}, 0)
	p.remove(10, 40)
	p.remove(75, 100) // left: 40-74 Pending, 105-119
	p.set(105, 120, "Running, Ready")
	check("down to the threshold", nil, groupAbove)
	if g := st.groups["uid-web-1"]; g == nil || g.Count != groupAbove || g.States["Running, Ready"] != 15 || g.States["Pending"] != 35 {
		t.Errorf("the store's count of the Pods under the threshold: %+v", g)
	}
	p.remove(40, 75)
	p.remove(105, 120)
	if len(st.groups) != 0 {
		t.Errorf("groups of no Pod are kept: %v", st.groups)
	}
}

// The page gets a group's counts rather than a message per Pod: once a
// group passes the threshold it gets the group (and hides its Pods' boxes),
// then batches of its counts, never a grouped Pod's box; once it falls to
// the threshold it gets the group's end and its Pods' boxes. A burst of
// changes comes in few messages.
func TestThePageGetsAGroupsCountsInBatches(t *testing.T) {
	st := newStore()
	_, ch, cancel := st.subscribe()
	defer cancel()
	p := newPods(st, "big")
	p.set(0, 10, "Pending")
	// What the page holds: objects by UID, groups by owner.
	objects, groups := map[string]Summary{}, map[string]Group{}
	messages := 0
	apply := func(b []byte) {
		t.Helper()
		var m message
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		messages++
		if m.Object != nil {
			m.Objects = append(m.Objects, *m.Object)
		}
		for _, g := range m.Groups { // first, as the page does
			groups[g.Owner] = g
			if g.Grouped {
				for uid, o := range objects {
					if o.Group == g.Owner {
						delete(objects, uid)
					}
				}
			}
		}
		for _, o := range m.Objects {
			if gr, ok := groups[o.Group]; ok && gr.Grouped {
				t.Errorf("the page got the box of %s, of a group it shows", o.Name)
			}
			objects[o.UID] = o
		}
	}
	// until reads messages until ok, or fails after a deadline.
	until := func(what string, ok func() bool) {
		t.Helper()
		deadline := time.After(5 * time.Second)
		for !ok() {
			select {
			case b := <-ch:
				apply(b)
			case <-deadline:
				t.Fatalf("the page did not get %s within 5s: objects %d, groups %+v", what, len(objects), groups)
			}
		}
	}
	running := func(n int) func() bool {
		return func() bool {
			g := groups["uid-big"]
			return g.Grouped && g.Count == 2000 && g.States["Running, Ready"] == n
		}
	}
	until("the first Pods", func() bool { return len(objects) == 10 })
	messages = 0
	p.set(10, 2000, "Pending")
	p.set(0, 2000, "Running, Ready")
	until("the group of 2,000 Running", running(2000))
	if len(objects) != 0 {
		t.Errorf("the page holds %d Pods' boxes of a group", len(objects))
	}
	if messages > 10 {
		t.Errorf("4,000 changes in %d messages, want a few", messages)
	}
	messages = 0
	p.set(0, 100, "Pending")
	until("100 Pods back to Pending", running(1900))
	p.remove(0, 2000-groupAbove)
	until("the group's end", func() bool { return !groups["uid-big"].Grouped && len(objects) == groupAbove })
	if g := groups["uid-big"]; g.Count != groupAbove {
		t.Errorf("the group's end says %d Pods, want %d", g.Count, groupAbove)
	}
	for _, o := range objects {
		if o.State != "Running, Ready" {
			t.Errorf("after the group: %s is %q, want Running, Ready", o.Name, o.State)
		}
	}
}

// A group's page lists its first maxMembers Pods by name, all or those in a
// state, and how many there are.
func TestAGroupsPageListsItsPods(t *testing.T) {
	st := newStore()
	p := newPods(st, "api")
	p.set(0, 300, "Running, Ready")
	p.set(0, 7, "Pending")
	if _, ok := st.groupPage("uid-nothing", ""); ok {
		t.Error("a page for an owner of no Pod")
	}
	gp, ok := st.groupPage("uid-api", "")
	if !ok || gp.Total != 300 || len(gp.Members) != maxMembers || gp.Members[0].Name != "api-00000" || gp.Members[maxMembers-1].Name != fmt.Sprintf("api-%05d", maxMembers-1) {
		t.Fatalf("the group's page: %d of %d listed, the first %v", len(gp.Members), gp.Total, gp.Members[:min(1, len(gp.Members))])
	}
	if uid := st.find("Pod", "default", "api-00005"); uid != "api-pod-5" {
		t.Errorf("the Pod api-00005 found by name: %q", uid)
	}
	if uid := st.find("Pod", "other", "api-00005"); uid != "" {
		t.Errorf("a Pod of another namespace found: %q", uid)
	}
	gp, _ = st.groupPage("uid-api", "Pending")
	if gp.Total != 7 || len(gp.Members) != 7 || gp.Members[6].Name != "api-00006" || gp.Group.States["Pending"] != 7 {
		t.Errorf("the group's Pending Pods: %d of %d listed, %+v", len(gp.Members), gp.Total, gp.Group)
	}
}

// A node's zone is its topology.kubernetes.io/zone label: the node grid's
// groups.
func TestANodesZone(t *testing.T) {
	n := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Node",
		"metadata": map[string]any{"name": "n", "labels": map[string]any{zoneLabel: "zone-b"}}}}
	if z := summarize("Node", "nodes", n).Zone; z != "zone-b" {
		t.Errorf("zone %q, want zone-b", z)
	}
	n.SetLabels(nil)
	if z := summarize("Node", "nodes", n).Zone; z != "" {
		t.Errorf("a node of no zone label: zone %q", z)
	}
}

// A Pod shown in a group keeps the objects of its last two changes only
// (memory at 10,000 Pods): its page lists every change,
// with the newest one's diff; a Pod of a small owner keeps every object.
func TestAGroupedPodKeepsItsLastObjects(t *testing.T) {
	st := newStore()
	big, small := newPods(st, "big"), newPods(st, "small")
	big.set(0, groupAbove+10, "Pending")
	small.set(0, 3, "Pending")
	for _, state := range []string{"Running, not Ready", "Running, Ready", "Terminating"} {
		big.set(0, groupAbove+10, state)
		small.set(0, 3, state)
	}
	kept := func(uid string) (objects, notKept int) {
		st.mu.Lock()
		defer st.mu.Unlock()
		for _, rev := range st.objects[uid].revisions {
			if rev.obj != nil {
				objects++
			}
			if rev.NotKept {
				notKept++
			}
		}
		return objects, notKept
	}
	if o, n := kept("big-pod-1"); o != maxGroupedObjects || n != 4-maxGroupedObjects {
		t.Errorf("a grouped Pod keeps %d objects (%d not kept) of its 4 changes, want %d", o, n, maxGroupedObjects)
	}
	if o, n := kept("small-pod-1"); o != 4 || n != 0 {
		t.Errorf("a small owner's Pod keeps %d objects (%d not kept) of its 4 changes, want 4", o, n)
	}
	p, ok := st.page("big-pod-1")
	if !ok || len(p.History) != 4 {
		t.Fatalf("the grouped Pod's page: %v, %d changes, want 4", ok, len(p.History))
	}
	for i, c := range p.History { // newest first
		if hasDiff := c.Diff != ""; hasDiff != (i == 0) || c.NotKept != (i >= maxGroupedObjects) {
			t.Errorf("change %d (newest first, %s): diff %v, not kept %v; want a diff for the newest only, the oldest %d not kept",
				i, c.Verb, c.Diff != "", c.NotKept, 4-maxGroupedObjects)
		}
	}
}

package ui

import (
	"cmp"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// groupAbove: once an owner (a ReplicaSet, a Job, a StatefulSet, a
// DaemonSet...) has more Pods than this, the page shows them as one group
// box with how many are in each state, and gets the group's counts rather
// than a message per Pod. The page shows the nodes as a grid above the
// same number (app.js: GRID_ABOVE).
const groupAbove = 50

// maxMembers is how many of a group's Pods its page lists.
const maxMembers = 200

// Group is the Pods of one owner as the page's group box shows them.
type Group struct {
	Owner     string         `json:"owner"` // the owner's UID, the group's ID
	OwnerKind string         `json:"ownerKind"`
	OwnerName string         `json:"ownerName"`
	Namespace string         `json:"namespace,omitempty"`
	Count     int            `json:"count"`  // its Pods, not deleted
	States    map[string]int `json:"states"` // how many Pods in each state (podState)
	Level     string         `json:"level"`
	// Grouped: the owner has more than groupAbove Pods, shown as this
	// box. false: its Pods are boxes of their own (again).
	Grouped bool `json:"grouped"`
}

// group is a Group and its Pods' UIDs.
type group struct {
	Group
	members map[string]struct{}
}

// podState is the state a group counts a Pod in: its summary's state, but
// "Pending" for every Pending Pod, scheduled or not.
func podState(s Summary) string {
	switch {
	case s.Deleting:
		return "Terminating"
	case strings.HasPrefix(s.State, "Pending"):
		return "Pending"
	}
	return s.State
}

// podOwner returns the owner a Pod is grouped under: its controller, else
// its first owner; "" for a Pod of no owner.
func podOwner(u *unstructured.Unstructured) (uid, kind, name string) {
	refs := u.GetOwnerReferences()
	for _, r := range refs {
		if r.Controller != nil && *r.Controller {
			return string(r.UID), r.Kind, r.Name
		}
	}
	if len(refs) > 0 {
		return string(refs[0].UID), refs[0].Kind, refs[0].Name
	}
	return "", "", ""
}

func (g *group) add(state string, n int) {
	g.Count += n
	g.States[state] += n
	if g.States[state] <= 0 {
		delete(g.States, state)
	}
	g.Level = levelOK
	for st := range g.States {
		switch {
		case st == "Failed":
			g.Level = levelBad
			return
		case st != "Running, Ready" && st != "Succeeded":
			g.Level = levelProgress
		}
	}
}

// hidden reports whether the Pod of record r is shown in its group's box
// rather than a box of its own; s.mu is held.
func (s *store) hidden(r *record) bool {
	g := s.groups[r.group]
	return g != nil && g.Grouped
}

// regroup puts the Pod uid of record r in the group of owner (none: "")
// in state; s.mu is held. A group that passes groupAbove either way, or
// whose counts change while it is a group, goes to the page.
func (s *store) regroup(uid string, r *record, owner, kind, name, namespace, state string) {
	if r.group == owner {
		if g := s.groups[owner]; g != nil && r.state != state {
			g.add(r.state, -1)
			g.add(state, 1)
			r.state = state
			s.changed(g)
		}
		return
	}
	if g := s.groups[r.group]; g != nil {
		delete(g.members, uid)
		g.add(r.state, -1)
		s.changed(g)
	}
	r.group, r.state = owner, state
	if owner == "" {
		return
	}
	g := s.groups[owner]
	if g == nil {
		g = &group{Group: Group{Owner: owner, OwnerKind: kind, OwnerName: name, Namespace: namespace, States: map[string]int{}},
			members: map[string]struct{}{}}
		s.groups[owner] = g
	}
	g.members[uid] = struct{}{}
	g.add(state, 1)
	s.changed(g)
}

// changed tells the page of g's change, if it shows g: its counts while
// it is a group; its Pods' boxes once it is no longer one. s.mu is held.
func (s *store) changed(g *group) {
	was := g.Grouped
	g.Grouped = g.Count > groupAbove
	switch {
	case g.Grouped:
		s.queueGroup(g.Owner)
	case was:
		s.queueGroup(g.Owner)
		for uid := range g.members {
			s.queueObject(s.objects[uid].summary)
		}
	}
	if g.Count == 0 {
		delete(s.groups, g.Owner)
	}
}

// GroupPage is a group's page: the group and its Pods (those in State,
// if set), by name, the first maxMembers of them.
type GroupPage struct {
	Group   Group     `json:"group"`
	State   string    `json:"state,omitempty"`
	Members []Summary `json:"members"`
	Total   int       `json:"total"` // the Pods in State (all, if unset), listed or not
}

// groupPage returns the page of the group of owner, its Pods in state
// (all if ""), or false.
func (s *store) groupPage(owner, state string) (GroupPage, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.groups[owner]
	if g == nil {
		return GroupPage{}, false
	}
	p := GroupPage{Group: g.Group, State: state, Members: []Summary{}}
	p.Group.States = maps.Clone(g.States)
	for uid := range g.members {
		r := s.objects[uid]
		if state == "" || r.state == state {
			p.Members = append(p.Members, r.summary)
		}
	}
	p.Total = len(p.Members)
	slices.SortFunc(p.Members, func(a, b Summary) int { return cmp.Compare(a.Name, b.Name) })
	p.Members = p.Members[:min(len(p.Members), maxMembers)]
	return p, true
}

// find returns the UID of the object of kind namespace/name, the one there
// now else the last deleted one; "" if none is kept. A Pod shown in a group
// has no box on the page, whose timeline lines name it.
func (s *store) find(kind, namespace, name string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var found *record
	for _, r := range s.objects {
		sum := r.summary
		if sum.Kind == kind && sum.Namespace == namespace && sum.Name == name && (found == nil || found.summary.Gone && !sum.Gone) {
			found = r
		}
	}
	if found == nil {
		return ""
	}
	return found.summary.UID
}

package ui

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Summary is an object as a box of the graph shows it.
type Summary struct {
	UID        string   `json:"uid"`
	APIVersion string   `json:"apiVersion"`
	Kind       string   `json:"kind"`
	Resource   string   `json:"resource"`
	Namespace  string   `json:"namespace,omitempty"`
	Name       string   `json:"name"`
	Owners     []string `json:"owners,omitempty"` // UIDs of its ownerReferences
	Node       string   `json:"node,omitempty"`   // a Pod's node
	Group      string   `json:"group,omitempty"`  // a Pod's owner it is grouped under (podOwner)
	Zone       string   `json:"zone,omitempty"`   // a Node's topology.kubernetes.io/zone
	State      string   `json:"state"`            // "Running, Ready", "Ready 2/3", "Terminating"...
	Level      string   `json:"level"`            // ok, progress, bad: the box's colour
	Finalizers []string `json:"finalizers,omitempty"`
	Deleting   bool     `json:"deleting,omitempty"`
	Gone       bool     `json:"gone,omitempty"` // deleted; its page stays
	Changes    int      `json:"changes"`        // changes seen since the UI started
}

// zoneLabel is the label of a Node's zone, by which the page's node grid
// groups the nodes.
const zoneLabel = "topology.kubernetes.io/zone"

// Levels of Summary.Level.
const (
	levelOK       = "ok"
	levelProgress = "progress"
	levelBad      = "bad"
)

// summarize describes u, an object of kind.
func summarize(kind, resource string, u *unstructured.Unstructured) Summary {
	s := Summary{
		UID:        string(u.GetUID()),
		APIVersion: u.GetAPIVersion(),
		Kind:       kind,
		Resource:   resource,
		Namespace:  u.GetNamespace(),
		Name:       u.GetName(),
		Finalizers: u.GetFinalizers(),
		Deleting:   u.GetDeletionTimestamp() != nil,
	}
	for _, o := range u.GetOwnerReferences() {
		s.Owners = append(s.Owners, string(o.UID))
	}
	s.State, s.Level = state(kind, u)
	if s.Deleting {
		s.State, s.Level = "Terminating", levelBad
		if len(s.Finalizers) > 0 {
			s.State += ", held by finalizer " + strings.Join(s.Finalizers, ", ")
		}
	}
	switch kind {
	case "Pod":
		s.Node, _, _ = unstructured.NestedString(u.Object, "spec", "nodeName")
		s.Group, _, _ = podOwner(u)
	case "Node":
		s.Zone = u.GetLabels()[zoneLabel]
	}
	return s
}

func state(kind string, u *unstructured.Unstructured) (string, string) {
	o := u.Object
	str := func(path ...string) string { v, _, _ := unstructured.NestedString(o, path...); return v }
	num := func(path ...string) int64 { v, _, _ := unstructured.NestedInt64(o, path...); return v }
	replicas := func() (string, string) {
		want := int64(1)
		if v, found, _ := unstructured.NestedInt64(o, "spec", "replicas"); found {
			want = v
		}
		ready := num("status", "readyReplicas")
		level := levelOK
		if ready != want {
			level = levelProgress
		}
		return fmt.Sprintf("Ready %d/%d", ready, want), level
	}
	switch kind {
	case "Pod":
		phase := str("status", "phase")
		switch {
		case phase == "Failed":
			return "Failed", levelBad
		case phase == "Succeeded":
			return "Succeeded", levelOK
		case str("spec", "nodeName") == "":
			return "Pending, not scheduled", levelProgress
		case condition(o, "Ready") == "True":
			return phase + ", Ready", levelOK
		case phase == "":
			return "Pending", levelProgress
		}
		return phase + ", not Ready", levelProgress
	case "Node":
		s, level := "NotReady", levelBad
		if condition(o, "Ready") == "True" {
			s, level = "Ready", levelOK
		}
		if v, _, _ := unstructured.NestedBool(o, "spec", "unschedulable"); v {
			s += ", SchedulingDisabled"
		}
		return s, level
	case "Deployment", "ReplicaSet", "StatefulSet", "ReplicationController":
		return replicas()
	case "DaemonSet":
		want, ready := num("status", "desiredNumberScheduled"), num("status", "numberReady")
		if want == ready {
			return fmt.Sprintf("Ready %d/%d", ready, want), levelOK
		}
		return fmt.Sprintf("Ready %d/%d", ready, want), levelProgress
	case "Job":
		switch {
		case condition(o, "Complete") == "True":
			return "Complete", levelOK
		case condition(o, "Failed") == "True":
			return "Failed", levelBad
		}
		return fmt.Sprintf("Active %d, succeeded %d", num("status", "active"), num("status", "succeeded")), levelProgress
	case "Namespace", "PersistentVolumeClaim", "PersistentVolume":
		if p := str("status", "phase"); p != "" && p != "Active" && p != "Bound" {
			return p, levelProgress
		}
		return str("status", "phase"), levelOK
	case "Service":
		t := str("spec", "type")
		if ip := str("spec", "clusterIP"); ip != "" {
			t += " " + ip
		}
		return t, levelOK
	}
	// A custom resource, or another kind: its phase, else its Ready
	// condition, else its replicas, if it has any.
	if p := str("status", "phase"); p != "" {
		level := levelOK
		switch strings.ToLower(p) {
		case "failed", "error", "degraded":
			level = levelBad
		case "pending", "creating", "progressing", "scaling":
			level = levelProgress
		}
		return p, level
	}
	for _, t := range []string{"Ready", "Available"} {
		switch condition(o, t) {
		case "True":
			return withMessage(t, o, t), levelOK
		case "False", "Unknown":
			return withMessage("not "+t, o, t), levelProgress
		}
	}
	if _, found, _ := unstructured.NestedInt64(o, "spec", "replicas"); found {
		return replicas()
	}
	return "", levelOK
}

// withMessage adds the message of the condition of type t to s.
func withMessage(s string, o map[string]any, t string) string {
	conds, _, _ := unstructured.NestedSlice(o, "status", "conditions")
	for _, c := range conds {
		if m, ok := c.(map[string]any); ok && m["type"] == t {
			if msg, _ := m["message"].(string); msg != "" {
				return s + ": " + msg
			}
		}
	}
	return s
}

// condition returns the status of the condition of type t, or "".
func condition(o map[string]any, t string) string {
	conds, _, _ := unstructured.NestedSlice(o, "status", "conditions")
	for _, c := range conds {
		m, ok := c.(map[string]any)
		if ok && m["type"] == t {
			s, _ := m["status"].(string)
			return s
		}
	}
	return ""
}

package timeline

import (
	"strings"
	"sync"
	"time"

	"github.com/crdlab/crdlab/lab/internal/actor"
)

// Verbs of an Event.
const (
	Create = "CREATE"
	Update = "UPDATE"
	Status = "STATUS" // a write through the status subresource
	Delete = "DELETE"
	Emit   = "EVENT" // a core/v1 Event a component emitted about the object
	Bind   = "BIND"  // the scheduler assigned a Pod to a node
	// Reconcile is a controller's reconcile pass: a sample operator's
	// (package controllers) or, sent over the control socket, a suite's
	// own controller's (control.Pass).
	Reconcile = "RECONCILE"
)

// Event is one line of the timeline.
//
// In a lab, a line about a write carries the write's etcd revision (the
// object's resourceVersion: the lab owns etcd, whose one counter orders
// every write of every resource) and the time the apiserver completed the
// request (its audit log's stage timestamp). A line about what no write
// shows (a reconcile pass, a webhook call, a process that crashed) has no
// revision and is placed by its Time. See Order.
type Event struct {
	Time      time.Time `json:"time"`
	Actor     string    `json:"actor"`
	Verb      string    `json:"verb"`
	Kind      string    `json:"kind"`
	Namespace string    `json:"namespace,omitempty"`
	Name      string    `json:"name"`
	Detail    string    `json:"detail,omitempty"`
	// Revision is the etcd revision of the write, 0 when there is none or
	// it is not known to order writes (a cluster given by --kubeconfig).
	Revision int64 `json:"revision,omitempty"`
	// Late: the line reached the ordered stream after lines that come
	// after it had been shown (see Order); it is shown where it arrived.
	Late bool `json:"late,omitempty"`
	// Removed lists the fields an update took out of the object (a map's
	// key, a field set to null), as paths separated by spaces ("data.bob
	// data.carol"): who took a field out is in no managedFields entry,
	// only on the line of that write. A string, so that an Event stays
	// comparable.
	Removed string `json:"removed,omitempty"`

	arrived time.Time // when the watch delivered it (Order's window starts then)
	// writerUnsure: managedFields did not date the writer's entry (a write
	// that only removed fields); the audit log names it by the revision.
	writerUnsure bool
}

// Object returns the event's object as kubectl names it: "pod/web-1".
func (e Event) Object() string { return strings.ToLower(e.Kind) + "/" + e.Name }

// Sink receives the events of a timeline, one at a time, in order.
type Sink interface {
	Record(Event)
}

// SinkFunc adapts a function to a Sink.
type SinkFunc func(Event)

// Record calls f(e).
func (f SinkFunc) Record(e Event) { f(e) }

// Actor names the component behind a field manager in words a learner
// recognises.
func Actor(manager string) string { return actor.OfManager(manager) }

// controllerFor names the kube-controller-manager controller that writes
// objects of a kind (its status) or owned by a kind (its children): all of
// kube-controller-manager's controllers share one field manager, so the
// manager alone cannot tell them apart.
var controllerFor = map[string]string{
	"Deployment":              "deployment",
	"ReplicaSet":              "replicaset",
	"ReplicationController":   "replicationcontroller",
	"StatefulSet":             "statefulset",
	"DaemonSet":               "daemonset",
	"Job":                     "job",
	"CronJob":                 "cronjob",
	"Service":                 "endpointslice",
	"EndpointSlice":           "endpointslice",
	"Namespace":               "namespace",
	"Node":                    "node-lifecycle",
	"ServiceAccount":          "serviceaccount",
	"HorizontalPodAutoscaler": "horizontal-pod-autoscaler",
	"PodDisruptionBudget":     "disruption",
}

// Tee records each event into every sink (nil sinks are skipped).
func Tee(sinks ...Sink) Sink {
	return SinkFunc(func(e Event) {
		for _, s := range sinks {
			if s != nil {
				s.Record(e)
			}
		}
	})
}

// Broadcast hands each event to every current subscriber: a lab's reconcile
// passes and aggregated-API requests, to the scenario runs of other
// processes (through the control socket). A subscriber that does not keep
// up loses events rather than slowing the lab down.
type Broadcast struct {
	mu   sync.Mutex
	subs map[chan Event]struct{}
}

// Record sends e to every subscriber.
func (b *Broadcast) Record(e Event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for ch := range b.subs {
		select {
		case ch <- e:
		default: // a slow subscriber loses this one
		}
	}
}

// Subscribe returns a channel of the events recorded from now on, and a
// function that ends the subscription.
func (b *Broadcast) Subscribe() (<-chan Event, func()) {
	ch := make(chan Event, 1024)
	b.mu.Lock()
	if b.subs == nil {
		b.subs = map[chan Event]struct{}{}
	}
	b.subs[ch] = struct{}{}
	b.mu.Unlock()
	return ch, func() {
		b.mu.Lock()
		delete(b.subs, ch)
		b.mu.Unlock()
	}
}

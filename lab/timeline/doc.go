// Package timeline watches a cluster and turns what happens in it into a
// stream of short, ordered lines: who (which controller, the scheduler, the
// simulated kubelet, you) did what (create, update, status, delete) to which
// object, and when. It is the live log of 'crdlab up' and the timeline of
// the scenarios.
//
// Who did a write is read from the object's managedFields; the core/v1
// Events that controllers emit are shown as they arrive.
package timeline

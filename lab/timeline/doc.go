// Package timeline watches a cluster and turns what happens in it into a
// stream of short, ordered lines: who (which controller, the scheduler, the
// simulated kubelet, you) did what (create, update, status, delete) to which
// object, and when. It is the live log of 'crdlab up' and the timeline of
// the scenarios.
//
// Who did a write is read from the object's managedFields; the core/v1
// Events that controllers emit are shown as they arrive. The watches keep
// every object they see (and hand them to the web UI), each managedFields
// entry with a digest of the fields its manager owns in place of the
// fields: who wrote, how and when is all the timeline reads of them, and
// decoded they are a third of a Pod's heap (BenchmarkHeldPod: 25.8 KB a
// Running Pod of a Deployment, 17.3 KB compacted).
package timeline

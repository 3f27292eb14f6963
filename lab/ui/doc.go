// Package ui is the web view of a lab that 'crdlab up' serves on
// 127.0.0.1: the objects of the cluster as a graph of ownerReferences
// (Deployment → ReplicaSet → Pods → the node each runs on), the timeline
// in lanes per actor, each object's YAML, managers and history of changes
// with who made each and its diff, and the scenario that runs against the
// lab. It is fed by the lab's timeline (timeline.Options.Observe and the
// timeline's lines) and by the report entries of scenario runs, and it
// streams them to the page with server-sent events.
//
// Only the holder of the lab's token (in the printed URL, and in the
// state dir's ui-token, readable by its owner only) gets the page or its
// data; the page and its script are embedded, so it needs no network.
package ui

// Package ui is the web view of a lab that 'crdlab up' serves on
// 127.0.0.1: the objects of the cluster as a graph of ownerReferences
// (Deployment → ReplicaSet → Pods → the node each runs on), the timeline
// in lanes per actor, each object's YAML, managers and history of changes
// with who made each and its diff, and the scenario that runs against the
// lab. It is fed by the lab's timeline (timeline.Options.Observe and the
// timeline's lines) and by the report entries of scenario runs, and it
// streams them to the page with server-sent events.
//
// A big cluster stays readable and the page responsive: an owner's Pods
// above groupAbove (50) are one group box with counts by state, whose page
// lists them; the page draws the nodes above the same number as a grid by
// zone; the changes after the first of a quiet spell go to the page in
// batches, at most every flushEvery (250 ms), a group as its counts.
//
// Only the holder of the lab's token (in the printed URL, and in the
// state dir's ui-token, readable by its owner only) gets the page or its
// data; the page and its script are embedded, so it needs no network.
package ui

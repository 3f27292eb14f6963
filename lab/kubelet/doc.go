// Package kubelet simulates the nodes of a lab and the kubelet on each, in
// process: no container ever runs.
//
// Each simulated node registers a Node with capacity and a Ready condition,
// and renews its Lease in kube-node-lease as a kubelet does, so the node
// lifecycle controller keeps it Ready. Pods the scheduler binds to a node
// are moved to Running (with conditions, container statuses, a start time
// and a Pod IP from a fake range) through the status subresource, as a
// kubelet would; Pods that run to completion finish Succeeded; deleted Pods
// are confirmed, so they never hang in Terminating. A node can be stopped:
// its heartbeats and its kubelet stop, and the control plane reacts as it
// would to a dead machine.
//
// Pods can steer their simulated lives with annotations:
//
//	crdlab.dev/run-time: 5s          how long a Pod with restartPolicy Never or
//	                                 OnFailure runs before it succeeds (default 1s)
//	crdlab.dev/start-delay: 2s       how long it takes to start (default: the
//	                                 kubelet's Options.StartDelay)
//	crdlab.dev/behavior: fail        the containers exit with code 1
//	crdlab.dev/behavior: crashloop   the containers keep crashing (CrashLoopBackOff)
//	crdlab.dev/behavior: never-ready the containers run but never become ready
//
// KWOK (kubernetes-sigs/kwok) and its stages are the model.
package kubelet

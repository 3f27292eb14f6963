// Package trace puts your own controller's reconcile passes on the timeline
// of the crdlab lab it runs against, as crdlab's sample operators' are: a
// RECONCILE line per pass, in the controller's lane, with the object, what
// woke it (which watched object changed, and how), what the pass wrote,
// how it ended (requeue, error) and how long it took. They show in 'crdlab
// up', in logs/timeline.log (labtest's TimelineSince and
// PrintTimelineOnFailure) and in the web UI.
//
// Two changes to a kubebuilder project:
//
//	// SetupWithManager: trace.ControllerManagedBy in place of ctrl.NewControllerManagedBy.
//	return trace.ControllerManagedBy(mgr).For(&webappv1.Guestbook{}).Owns(&appsv1.Deployment{}).Complete(r)
//
//	// The manager's client notes the writes of each pass.
//	mgr, err := ctrl.NewManager(cfg, ctrl.Options{NewClient: trace.NewClient, ...})
//
// (or wrap the reconciler's client alone with WrapClient).
//
// # Which lab
//
// When the controller is built (Complete, Build), the builder looks for the
// lab whose apiserver the manager talks to, in this order: the state dir
// given with WithLab; $CRDLAB_LAB, which labtest.Environment.Start sets for
// the process to the lab it runs or attached to; $CRDLAB_STATE_DIR, else
// ~/.crdlab, where 'crdlab up -d' runs by default. A state dir counts only
// when a lab runs there and its apiserver's address is the manager's (the
// rest.Config's Host): a manager on another cluster reports to no lab.
// When none is found the builder is ctrl.NewControllerManagedBy as it is,
// the reconciler is not wrapped and the client only passes calls through:
// the same code runs in production untouched.
//
// # What it records
//
// What woke a pass: the events whose watch handler queued the pass's
// request, after your predicates let them through, for For, Owns, Watches
// and WatchesMetadata. To see them, the traced builder makes For and Owns
// the Watches they are equivalent to (builder.Builder's doc says which:
// EnqueueRequestForObject, EnqueueRequestForOwner with OnlyControllerOwner
// unless builder.MatchEveryOwner), with the name, concurrency and logger
// the builder would give the controller, and wraps each watch's handler
// to note the requests it queues for each event. Events the work queue
// merges into one pass are named together (the first few); a pass that
// none woke is named "a requeue or a related object" (WatchesRawSource's
// events are not seen). A For or Owns option that is not also a Watches
// option (controller-runtime's own all are) leaves the controller
// untraced. What a pass wrote: Create, Update, Patch, Delete, DeleteAllOf,
// Apply and the Status() and SubResource() writes made through the
// wrapped client with the pass's context (or one derived from it), with
// the apiserver's refusal if it refused.
//
// The passes go to the lab over its control socket (control.RoutePasses),
// from a runnable of the manager that sends them in batches as they end:
// a pass never waits for the lab, and a lab that is gone or too slow
// loses lines rather than slowing the controller down.
//
// The module depends on controller-runtime v0.22, the oldest release on
// the Kubernetes v0.34 libraries that labtest (client-go v0.34.1) already
// asks of a suite: your project's newer controller-runtime and client-go
// win, and nothing of k8s.io/kubernetes comes with it (module_test.go
// checks both).
package trace

// Package labtest runs a crdlab lab for an operator's test suite, from the
// suite's own module: it depends on client-go and apimachinery only (at
// versions old enough that the suite's own win), never on
// k8s.io/kubernetes, and runs the crdlab binary as a child process.
//
// Environment is shaped like controller-runtime's envtest.Environment: its
// zero value works, Start returns a *rest.Config, Stop stops what Start
// started, CRDDirectoryPaths installs the suite's CRDs. Unlike envtest, the
// lab has a controller-manager (garbage collection, namespace deletion,
// Deployments get Pods), a scheduler, simulated nodes that can be stopped
// and started, an aggregated API; Reset brings it back to its state after
// Start between specs; RunScenario plays a scenario file; and the timeline
// of who did what can be printed when a spec fails.
//
// Where the lab comes from, in order:
//
//   - UseExistingCluster (or USE_EXISTING_CLUSTER=true, as envtest): the
//     cluster of $KUBECONFIG; lab-only calls return ErrNotALab.
//   - AttachTo (or CRDLAB_ATTACH=<state dir>): the lab 'crdlab up -d'
//     runs there; Start pays no boot, Stop leaves it running.
//   - Otherwise a lab of its own: 'crdlab up' on a temporary state dir,
//     a child of the test process that dies with it, even on kill -9 of
//     the test binary or of 'go test'. The binary is Binary, else
//     $CRDLAB_BINARY, else crdlab on $PATH if it is the release this
//     module pins (its version, or $CRDLAB_VERSION: another is refused,
//     install.ErrOtherVersion), else that release downloaded, checked and
//     cached (package install).
//
// It reaches a running lab through package control (this module's
// lab/labtest/control), the one definition of a lab's state dir and of
// its control socket's protocol, which crdlab itself uses too.
package labtest

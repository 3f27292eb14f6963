// Package full assembles the lab crdlab runs: a control plane (package lab)
// with the sample CRDs installed, the sample operators running in this
// process and attached as components, and one broadcast of what only this
// process sees (the operators' reconcile passes, the requests the
// aggregated API server answers), which the live log, the control socket
// and scenario runs subscribe to.
//
// 'crdlab up' (through lab/server, which runs it for as long as it lasts),
// 'crdlab scenario run' without a running lab, and the test suites that
// need the samples all start their lab here (Start), so that there is one
// wiring of those parts.
package full

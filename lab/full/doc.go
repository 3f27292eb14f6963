// Package full assembles the lab with the samples: a control plane
// (package lab) with the sample CRDs, webhooks and policies installed and
// the sample operators running in this process, attached as components,
// their reconcile passes sent to Options.Trace. The lab's ordered timeline
// is not here: it is a timeline.Stream, which a lab with or without the
// samples has.
//
// 'crdlab up' (through lab/server, which runs it for as long as it lasts),
// 'crdlab scenario run' without a running lab, and the test suites that
// need the samples all start their lab here (Start), so that there is one
// wiring of those parts.
package full

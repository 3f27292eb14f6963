// Package scenarios runs scripted, narrated scenarios against a lab or any
// cluster: apply, delete, patch and scale objects, expect what the control
// loops make of it, expect refusals, stop and start components and nodes,
// while a timeline shows who does what.
//
// A run needs a Target: a rest.Config, and for lab steps a Lab (the
// in-process lab of package lab/full, or a 'crdlab up' behind its control
// socket, RemoteLab). The runner links client-go and controller-runtime
// only, never the Kubernetes components, so that it runs against a real
// cluster from a small program.
//
// Each step kind runs as an operation in its own file (step_*.go), which
// runs the step and hands what must be put back to the scenario's cleanup;
// package format, which knows no cluster, checks and describes it. The
// built-in scenarios are embedded (builtin/*.yaml).
package scenarios

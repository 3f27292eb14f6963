// Package server runs a lab for as long as 'crdlab up' lasts and is the
// one owner of everything a running lab is to other processes: the state
// dir's lock, its status (lab.json, crdlab.pid, the kubeconfig), the
// control socket (with the check of its peers' credentials), the web UI,
// the timeline (watched once, teed to the terminal, logs/timeline.log and
// the UI) and the signal that the lab is ready.
//
// Run does all of it in one call; the lab itself comes from lab/full. The
// layout of the state dir, the status and the socket's protocol are
// defined once, in lab/labtest/control, which the clients (crdlab's other
// commands, the scenario runner, a suite's labtest.Environment) use too.
//
// A lab says it is ready on a pipe the process that started it passes it
// (control.Start, which 'crdlab up -d' and a suite's labtest.Environment
// use): one byte once the status is written, end of file
// if it stops first. It is the one readiness signal: the parent reads the
// status only after it, and neither polls it nor reads the lab's output.
package server

// Package control is how one process finds and controls a lab that another
// runs ('crdlab up'): the one definition of the state dir's layout (Dir),
// of the status a running lab writes there (Status), and of the protocol
// of its control socket (the routes, the request and response types, the
// wire errors and the client, Client).
//
// Both sides use it: the lab's server (crdlab's lab/server) serves exactly
// these routes and writes this status; crdlab's other commands, its
// scenario runner and a suite's labtest.Environment read and call them. A
// route or a field cannot exist on one side only.
//
// It is named for what its users do with it, control a running lab, and
// lives in the labtest module, not in crdlab's main module, because a
// suite's module must be able to import it without linking Kubernetes'
// control plane: it uses the standard library only, so labtest's go.mod
// gains nothing, and crdlab's main module requires this module (with a
// replace to this folder) instead of the other way round. A third module
// of its own would have worked too, at the price of one more go.mod for a
// suite to track.
//
// What it knows:
//
//   - the layout: every file and folder of a state dir is a method of Dir;
//   - the lock: a lab runs on a state dir while a process holds an
//     exclusive flock(2) on Dir.LockFile; the lab's server takes it,
//     Dir.Status checks it;
//   - the status: Status, as JSON in Dir.StatusFile once the lab is ready;
//   - the control socket: HTTP over the Unix socket Dir.ControlSocket, on
//     the routes of Routes; an answer other than 200 OK carries an Error.
//
// The streams of the socket carry one JSON object per line, and the
// package leaves the objects' type to their owners: GET /events streams
// the lab's own timeline events and GET /timeline the lab's whole
// timeline in the cluster's order (crdlab's lab/timeline.Event, with its
// etcd revision), POST /reports takes a
// scenario run's report entries (crdlab's scenarios.Entry). The protocol
// defines the framing; the timeline's and the report's vocabulary evolve
// with those packages, not with the protocol. POST /passes is the
// exception: its objects (Pass) come from a module that cannot import
// crdlab's (the labtest/trace wrapper of a suite's own controller), so
// the protocol defines them, and the lab turns them into timeline lines.
package control

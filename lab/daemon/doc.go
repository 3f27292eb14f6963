// Package daemon is the protocol between a long-running lab ('crdlab up')
// and the commands that act on it from other processes: the layout of the
// lab's folder (Dir), the lock that keeps one lab per state dir, the status
// file other commands find the lab by, and the control socket that stops
// and starts its components and nodes and streams what only its process
// sees.
//
// It depends on no part of Kubernetes' control plane, so that a client (the
// scenario runner, a test suite) can drive a lab without linking one.
package daemon

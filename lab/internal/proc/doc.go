// Package proc supervises the processes a lab starts itself (a health
// check, restarts with back-off, an orderly stop), finds the last error a
// component wrote to its log, and holds what crdlab asks of the operating
// system, one file per OS (_linux.go, _darwin.go, _other.go): when a
// process ends (Done), ending with the parent (DieWithParent), who is at
// the other end of a Unix socket (PeerUID), and a lab's process tree and
// memory (Children, Tree).
package proc

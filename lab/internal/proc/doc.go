// Package proc supervises the processes a lab starts itself (a health
// check, restarts with back-off, an orderly stop), reads the process tree
// and memory of a lab from /proc, and finds the last error a component
// wrote to its log.
package proc

package server

import "github.com/crdlab/crdlab/lab/internal/proc"

// Process describes one process of a lab's tree: its name, RSS and PSS.
type Process = proc.Process

// Processes returns the process of a running lab (Status.PID) and every
// process below it, depth first: what 'crdlab status' shows.
func Processes(pid int) ([]Process, error) { return proc.Tree(pid) }

// ProcessDone returns a channel closed when process pid ends, whoever
// started it: 'crdlab down' waits for the lab's process with it.
func ProcessDone(pid int) (<-chan struct{}, error) { return proc.Done(pid) }

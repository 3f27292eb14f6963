package daemon

import "github.com/crdlab/crdlab/lab/internal/proc"

// Process describes one process of a lab's tree: its name, RSS and PSS.
type Process = proc.Process

// Processes returns the lab process pid and every process below it, depth
// first.
func Processes(pid int) ([]Process, error) { return proc.Tree(pid) }

// ProcessDone returns a channel closed when process pid ends, whoever
// started it.
func ProcessDone(pid int) (<-chan struct{}, error) { return proc.Done(pid) }

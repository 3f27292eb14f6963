package proc

// Children returns the process IDs of pid's children (never nil).
func Children(pid int) ([]int, error) { return children(pid) }

// Process describes one process of a lab's tree.
type Process struct {
	PID  int
	Name string // the name it was started under: etcd, kube-apiserver, ...
	// RSS and PeakRSS are its resident set size now and at its peak, in
	// bytes. The processes of a lab share the pages of one executable, which
	// RSS counts in each of them. On macOS, RSS is what ps(1) reports and
	// PeakRSS is zero.
	RSS, PeakRSS int64
	// PSS is its proportional set size: shared pages divided among the
	// processes sharing them, so that the PSS of a tree adds up to what it
	// really uses. Zero where the kernel does not report it (always on
	// macOS, which has no such figure).
	PSS int64
	// PSSAnon and PSSFile are the parts of PSS in anonymous memory (a Go
	// process's heap) and in mapped files (etcd's data file): zero where
	// PSS is.
	PSSAnon, PSSFile int64
}

// Tree returns pid and every process below it, depth first.
func Tree(pid int) ([]Process, error) {
	p, err := readProcess(pid)
	if err != nil {
		return nil, err
	}
	out := []Process{p}
	children, err := Children(pid)
	if err != nil {
		return nil, err
	}
	for _, c := range children {
		sub, err := Tree(c)
		if err != nil {
			continue // it exited meanwhile
		}
		out = append(out, sub...)
	}
	return out, nil
}

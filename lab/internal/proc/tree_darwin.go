package proc

import (
	"fmt"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// children lists every process (sysctl kern.proc.all) and keeps those whose
// parent is pid.
func children(pid int) ([]int, error) {
	all, err := unix.SysctlKinfoProcSlice("kern.proc.all")
	if err != nil {
		return nil, fmt.Errorf("unable to list processes: %w", err)
	}
	pids := []int{}
	for _, p := range all {
		if int(p.Eproc.Ppid) == pid {
			pids = append(pids, int(p.Proc.P_pid))
		}
	}
	return pids, nil
}

// readProcess reads the name from sysctl (kern.procargs2: argv[0]; else
// kern.proc.pid: the command, cut at 16 bytes) and the RSS from ps(1).
func readProcess(pid int) (Process, error) {
	p := Process{PID: pid}
	info, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil {
		return p, fmt.Errorf("unable to read process %d: %w", pid, err)
	}
	p.Name = unix.ByteSliceToString(info.Proc.P_comm[:])
	if args, err := unix.SysctlRaw("kern.procargs2", pid); err == nil {
		if name := argv0(args); name != "" {
			p.Name = filepath.Base(name)
		}
	}
	if p.RSS, err = psRSS(pid); err != nil {
		return p, err
	}
	return p, nil
}

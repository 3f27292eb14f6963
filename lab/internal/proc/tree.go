package proc

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Children returns the process IDs of pid's children (never nil).
func Children(pid int) ([]int, error) {
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	if err != nil {
		return nil, err
	}
	pids := []int{}
	for _, t := range tasks {
		data, err := os.ReadFile(t)
		if err != nil {
			continue // the thread ended meanwhile
		}
		for _, f := range strings.Fields(string(data)) {
			if child, err := strconv.Atoi(f); err == nil {
				pids = append(pids, child)
			}
		}
	}
	return pids, nil
}

// Process describes one process of a lab's tree.
type Process struct {
	PID  int
	Name string // the name it was started under: etcd, kube-apiserver, ...
	// RSS and PeakRSS are its resident set size now and at its peak, in
	// bytes. The processes of a lab share the pages of one executable, which
	// RSS counts in each of them.
	RSS, PeakRSS int64
	// PSS is its proportional set size: shared pages divided among the
	// processes sharing them, so that the PSS of a tree adds up to what it
	// really uses. Zero where the kernel does not report it.
	PSS int64
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

func readProcess(pid int) (Process, error) {
	p := Process{PID: pid}
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return p, err
	}
	p.Name = filepath.Base(strings.SplitN(string(cmdline), "\x00", 2)[0])
	status, err := readKB(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return p, err
	}
	p.RSS, p.PeakRSS = status["VmRSS"], status["VmHWM"]
	if rollup, err := readKB(fmt.Sprintf("/proc/%d/smaps_rollup", pid)); err == nil {
		p.PSS = rollup["Pss"]
	}
	return p, nil
}

// readKB reads the "Key: N kB" lines of a /proc file, in bytes.
func readKB(path string) (map[string]int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	values := map[string]int64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		key, value, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		fields := strings.Fields(value)
		if len(fields) != 2 || fields[1] != "kB" {
			continue
		}
		kb, err := strconv.ParseInt(fields[0], 10, 64)
		if err == nil {
			values[key] = kb * 1024
		}
	}
	return values, sc.Err()
}

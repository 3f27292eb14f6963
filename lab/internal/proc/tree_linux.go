package proc

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// children reads /proc/PID/task/*/children.
func children(pid int) ([]int, error) {
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

// readProcess reads /proc/PID/cmdline, status and smaps_rollup.
func readProcess(pid int) (Process, error) {
	p := Process{PID: pid}
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return p, err
	}
	p.Name = filepath.Base(strings.SplitN(string(cmdline), "\x00", 2)[0])
	if len(cmdline) == 0 {
		// A process in the middle of its exec (its new arguments not laid
		// out yet: a child that cmd.Start has just returned) or a zombie
		// has none: the file it runs names it then.
		p.Name = exeName(pid)
	}
	status, err := readKB(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return p, err
	}
	p.RSS, p.PeakRSS = status["VmRSS"], status["VmHWM"]
	if rollup, err := readKB(fmt.Sprintf("/proc/%d/smaps_rollup", pid)); err == nil {
		p.PSS, p.PSSAnon, p.PSSFile = rollup["Pss"], rollup["Pss_Anon"], rollup["Pss_File"]
	}
	return p, nil
}

// exeName is the name of the file process pid runs, or its comm (the
// kernel's name of it) when that cannot be read.
func exeName(pid int) string {
	if exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid)); err == nil {
		return filepath.Base(strings.TrimSuffix(exe, " (deleted)"))
	}
	comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	return strings.TrimSpace(string(comm))
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

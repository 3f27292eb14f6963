// Package ports chooses ports on 127.0.0.1 for servers that bind them later,
// in another process or long after.
package ports

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
)

// The lab chooses its ports (etcd, the apiserver, the components, the front
// of your webhooks) before the process that serves them binds them: a child
// process, or your test binary long after the lab is up. A port the kernel
// handed out for 127.0.0.1:0 is in the ephemeral range, where the next
// process that asks for any free port, or opens any connection, may be given
// it in between (CI saw a test's httptest server take the lab's webhook port
// between two tests). So the lab chooses below the ephemeral range, where the
// kernel never hands a port out by itself: only a process naming that very
// port can take it.
const lowestChosenPort = 20000

// handed are the ports Free returned in this process: a port handed out is
// bound later (the user's webhook server binds its port only when a test
// runs), so a later call must not hand it out again because it is still
// free (CI saw a TLS server of some other part on the port of the user's
// webhooks).
var (
	mu     sync.Mutex
	handed = map[int]bool{}
)

// Free returns n distinct ports free on 127.0.0.1 at the time of the
// call, chosen outside the ephemeral range when it leaves room, and never
// one it returned before in this process.
func Free(n int) ([]int, error) {
	mu.Lock()
	defer mu.Unlock()
	lo, hi := choosableRange(ephemeralRange())
	if hi-lo < 1000 {
		return kernelPorts(n)
	}
	ports := make([]int, 0, n)
	taken := map[int]bool{}
	for tries := 0; len(ports) < n; tries++ {
		if tries == 200 {
			return nil, fmt.Errorf("unable to find a free port on 127.0.0.1 between %d and %d after %d tries", lo, hi-1, tries)
		}
		p := lo + rand.IntN(hi-lo)
		if taken[p] || handed[p] {
			continue
		}
		ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		if err != nil {
			continue
		}
		ln.Close()
		taken[p] = true
		ports = append(ports, p)
	}
	for _, p := range ports {
		handed[p] = true
	}
	return ports, nil
}

// choosableRange is [lowestChosenPort, the first ephemeral port), or the
// ports above the ephemeral range when it starts too low.
func choosableRange(ephLo, ephHi int) (lo, hi int) {
	if ephLo-lowestChosenPort >= 1000 {
		return lowestChosenPort, ephLo
	}
	return max(ephHi+1, lowestChosenPort), 65536
}

// ephemeralRange is the range of ports the kernel hands out by itself:
// Linux's net.ipv4.ip_local_port_range, or the IANA range (macOS's default)
// elsewhere.
func ephemeralRange() (lo, hi int) {
	if runtime.GOOS == "linux" {
		if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
			if lo, hi, ok := parsePortRange(string(b)); ok {
				return lo, hi
			}
		}
		return 32768, 60999
	}
	return 49152, 65535
}

func parsePortRange(s string) (lo, hi int, ok bool) {
	f := strings.Fields(s)
	if len(f) != 2 {
		return 0, 0, false
	}
	lo, err1 := strconv.Atoi(f[0])
	hi, err2 := strconv.Atoi(f[1])
	if err1 != nil || err2 != nil || lo < 1 || hi > 65535 || lo > hi {
		return 0, 0, false
	}
	return lo, hi, true
}

// kernelPorts returns n ports the kernel chose, each free at the time of the
// call.
func kernelPorts(n int) ([]int, error) {
	ports := make([]int, 0, n)
	for tries := 0; len(ports) < n; tries++ {
		if tries == 200 {
			return nil, fmt.Errorf("unable to find a free port on 127.0.0.1 after %d tries", tries)
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("unable to find a free port on 127.0.0.1: %w", err)
		}
		defer ln.Close()
		if p := ln.Addr().(*net.TCPAddr).Port; !handed[p] {
			ports = append(ports, p)
		}
	}
	for _, p := range ports {
		handed[p] = true
	}
	return ports, nil
}

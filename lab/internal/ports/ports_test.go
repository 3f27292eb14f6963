package ports

import (
	"net"
	"strconv"
	"testing"
)

func TestChosenPortsAreOutsideTheEphemeralRange(t *testing.T) {
	ephLo, ephHi := ephemeralRange()
	ports, err := Free(20)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, p := range ports {
		if seen[p] {
			t.Errorf("port %d chosen twice", p)
		}
		seen[p] = true
		if p >= ephLo && p <= ephHi {
			t.Errorf("port %d is in the ephemeral range %d-%d, where any process asking for a free port may be given it", p, ephLo, ephHi)
		}
		ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
		if err != nil {
			t.Errorf("port %d was given as free: %v", p, err)
			continue
		}
		ln.Close()
	}
}

func TestChoosableRange(t *testing.T) {
	for _, c := range []struct{ ephLo, ephHi, lo, hi int }{
		{32768, 60999, 20000, 32768},
		{49152, 65535, 20000, 49152},
		{1024, 40000, 40001, 65536},
		{20500, 65535, 65536, 65536}, // no room: the kernel chooses
	} {
		lo, hi := choosableRange(c.ephLo, c.ephHi)
		if lo != c.lo || hi != c.hi {
			t.Errorf("choosableRange(%d, %d) = %d, %d, want %d, %d", c.ephLo, c.ephHi, lo, hi, c.lo, c.hi)
		}
	}
	for _, s := range []string{"", "1", "a b", "70000 80000", "5000 4000"} {
		if _, _, ok := parsePortRange(s); ok {
			t.Errorf("parsePortRange(%q) accepted", s)
		}
	}
	if lo, hi, ok := parsePortRange("32768\t60999\n"); !ok || lo != 32768 || hi != 60999 {
		t.Errorf("parsePortRange of Linux's default = %d %d %v", lo, hi, ok)
	}
}

// A port handed out and not bound yet (a webhook port the user's server
// binds later) is never handed out again.
func TestNoPortIsHandedOutTwice(t *testing.T) {
	seen := map[int]bool{}
	for range 300 {
		ps, err := Free(3)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range ps {
			if seen[p] {
				t.Fatalf("port %d handed out twice", p)
			}
			seen[p] = true
		}
	}
}

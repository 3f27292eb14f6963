package kubemain

import (
	"os"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// A lab's components sit idle most of their life: a learner reads, a
// suite is between specs. With Go's default GOGC=100 a process keeps up to
// twice its live heap, and after boot kube-apiserver's live heap is ~100
// MB, most of it OpenAPI built once and never freed. An idle process
// allocates little, so collecting it more often costs little: while a
// component is idle, idleGC runs it with GOGC=idleGCPercent, and returns
// its boot's garbage to the system once. The moment it is busy again
// (a scale-up, a test's burst of writes) it runs with Go's default again,
// so it is never slower where speed counts (docs/boot.md, Memory).

// idleGCPercent is the GOGC of an idle component: a heap of up to 1.25
// times what is live.
const idleGCPercent = 25

// idleTick is how often a component's allocation is looked at.
const idleTick = 500 * time.Millisecond

// idleTicks is how many quiet ticks in a row make a component idle.
const idleTicks = 4

// busyShare: a component that allocated in one tick more than
// live/busyShare is busy. At idleGCPercent, allocating at that rate for
// ten seconds (twenty ticks) is one collection: an idle component
// collects at most about every ten seconds.
const busyShare = 80

// IdleGCEnv names the variable that turns idleGC off ("off"), as does a
// GOGC of the user's.
const IdleGCEnv = "CRDLAB_IDLE_GC"

// idleGC is idle's state: whether the component is idle, and for how many
// ticks it has been quiet.
type idleGC struct {
	idle  bool
	quiet int
	freed bool // the boot's garbage was returned to the system
}

// gcChange is what a tick asks of the runtime.
type gcChange struct {
	percent int  // the GOGC to set; 0: none
	free    bool // return the free memory to the system (debug.FreeOSMemory)
}

// tick takes what the component allocated since the last tick and its
// live heap, and says what to change.
func (g *idleGC) tick(allocated, live uint64) gcChange {
	if allocated > live/busyShare {
		g.quiet = 0
		if g.idle {
			g.idle = false
			return gcChange{percent: 100}
		}
		return gcChange{}
	}
	g.quiet++
	if g.idle || g.quiet < idleTicks {
		return gcChange{}
	}
	g.idle = true
	c := gcChange{percent: idleGCPercent, free: !g.freed}
	g.freed = true
	return c
}

// startIdleGC runs idleGC in the background, unless the environment sets
// GOGC or IdleGCEnv is "off".
func startIdleGC() {
	if os.Getenv("GOGC") != "" || os.Getenv(IdleGCEnv) == "off" {
		return
	}
	go func() {
		samples := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}, {Name: "/gc/heap/live:bytes"}}
		read := func() (allocs, live uint64) {
			metrics.Read(samples)
			return samples[0].Value.Uint64(), samples[1].Value.Uint64()
		}
		var g idleGC
		last, _ := read()
		t := time.NewTicker(idleTick)
		defer t.Stop()
		for range t.C {
			allocs, live := read()
			c := g.tick(allocs-last, live)
			last = allocs
			if c.percent != 0 {
				debug.SetGCPercent(c.percent)
			}
			if c.free {
				debug.FreeOSMemory()
				last, _ = read()
			}
		}
	}()
}

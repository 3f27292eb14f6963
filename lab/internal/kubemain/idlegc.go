package kubemain

import (
	"context"
	"math"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// How a component's heap is collected, in three phases (docs/boot.md,
// Memory):
//
//   - Booting, it collects nothing until its heap reaches bootMemoryLimit.
//     kube-apiserver allocates ~300 MB while it boots, most of it garbage
//     (the OpenAPI of every group, built, merged and marshaled), and with
//     Go's default GOGC=100 it collected ~13 times on the way, a quarter
//     of its CPU while it booted. The boot ends when the component is
//     ready (kube-apiserver: BootDoneWhenReady, which also returns the
//     boot's garbage to the system), after bootTicks ticks, or at its
//     first collection (the limit was reached), whichever comes first.
//   - Busy, it runs with Go's default, GOGC=100.
//   - A lab's components sit idle most of their life: a learner reads, a
//     suite is between specs. With GOGC=100 a process keeps up to twice
//     its live heap, and after boot kube-apiserver's live heap is ~100
//     MB, most of it OpenAPI built once and never freed. An idle process
//     allocates little, so collecting it more often costs little: while a
//     component is idle it runs with GOGC=idleGCPercent, and the first
//     time it returns its garbage to the system. The moment it is busy
//     again (a scale-up, a test's burst of writes) it runs with Go's
//     default again, so it is never slower where speed counts.

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

// bootMemoryLimit is the most a booting component holds before it
// collects (debug.SetMemoryLimit): above what kube-apiserver allocates
// while it boots on an empty lab, so that it collects nothing before it
// is ready.
const bootMemoryLimit = 512 << 20

// readyTimeout is how long a component that says when it is ready
// (BootDoneWhenReady) boots at most.
const readyTimeout = 2 * time.Minute

// bootTicks is how long a component that does not say it is ready boots
// at most, in ticks (kube-controller-manager, kube-scheduler and etcd
// allocate a few tens of MB while they start).
const bootTicks = 2

// IdleGCEnv names the variable that turns both off ("off"), as does a
// GOGC or GOMEMLIMIT of the user's.
const IdleGCEnv = "CRDLAB_IDLE_GC"

// BootGCEnv names the variable through which a lab says that it set the
// GOGC and GOMEMLIMIT of the component it starts (BootGCEnviron), so that
// the component collects nothing from its first instruction on, its
// packages' initialization included (~15 ms of every process start of
// the multi-call binary), and does not take them for the user's.
const BootGCEnv = "CRDLAB_BOOT_GC"

// BootGCEnviron is what a lab adds to the environment of a component of
// its own (a multi-call binary or components executable of this version),
// unless this process's environment sets GOGC or GOMEMLIMIT, or turns
// collection tuning off (IdleGCEnv). A component that did not know
// BootGCEnv would still collect, at bootMemoryLimit.
func BootGCEnviron() []string {
	if !tuneGC() {
		return nil
	}
	return []string{"GOGC=off", "GOMEMLIMIT=" + strconv.Itoa(bootMemoryLimit), BootGCEnv + "=1"}
}

// tuneGC says whether this process's environment leaves collection to
// crdlab: no GOGC or GOMEMLIMIT of the user's, and IdleGCEnv not "off".
func tuneGC() bool {
	return os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" && os.Getenv(IdleGCEnv) != "off"
}

// idleGC is the state of a component's collection: whether it is booting
// or idle, and for how many ticks it has been so.
type idleGC struct {
	booting bool
	boot    int  // ticks booting
	toReady bool // the boot ends when the component says it is ready, or at the limit
	idle    bool
	quiet   int
	freed   bool // the boot's garbage was returned to the system
}

// gcChange is what a tick asks of the runtime.
type gcChange struct {
	percent int  // the GOGC to set; 0: none
	free    bool // return the free memory to the system (debug.FreeOSMemory)
	unlimit bool // lift the boot's memory limit
}

// tick takes what the component allocated since the last tick, its live
// heap and whether it collected since the last tick, and says what to
// change.
func (g *idleGC) tick(allocated, live uint64, collected bool) gcChange {
	if g.booting {
		g.boot++
		if !collected && (g.toReady || g.boot < bootTicks) {
			return gcChange{}
		}
		g.booting = false
		return gcChange{percent: 100, unlimit: true}
	}
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

// ready ends the boot of a component that says it is ready, and returns
// the boot's garbage to the system (and, once idle, it returns what it
// freed since).
func (g *idleGC) ready() gcChange {
	if !g.booting {
		return gcChange{}
	}
	g.booting = false
	return gcChange{percent: 100, unlimit: true, free: true}
}

// bootReady is closed by BootDone; bootToReady says that the component
// will call it.
var (
	bootReady     = make(chan struct{})
	bootReadyOnce sync.Once
	bootToReady   atomic.Bool
)

// BootDone says that the component is ready: its boot ends.
func BootDone() { bootReadyOnce.Do(func() { close(bootReady) }) }

// startIdleGC runs idleGC in the background, unless the user's environment
// sets GOGC or GOMEMLIMIT, or IdleGCEnv is "off". Started by a lab
// (BootGCEnv), the component already runs with no collection; otherwise
// it stops collecting now.
func startIdleGC() {
	if os.Getenv(BootGCEnv) != "" {
		// The lab's settings, read by the runtime at start: not passed on.
		for _, v := range []string{"GOGC", "GOMEMLIMIT", BootGCEnv} {
			_ = os.Unsetenv(v)
		}
	} else if !tuneGC() {
		return
	}
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(bootMemoryLimit)
	g := idleGC{booting: true}
	go func() {
		samples := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}, {Name: "/gc/heap/live:bytes"}, {Name: "/gc/cycles/total:gc-cycles"}}
		read := func() (allocs, live, cycles uint64) {
			metrics.Read(samples)
			return samples[0].Value.Uint64(), samples[1].Value.Uint64(), samples[2].Value.Uint64()
		}
		last, _, lastCycles := read()
		t := time.NewTicker(idleTick)
		defer t.Stop()
		ready := bootReady
		for {
			var c gcChange
			select {
			case <-t.C:
				g.toReady = bootToReady.Load()
				allocs, live, cycles := read()
				c = g.tick(allocs-last, live, cycles != lastCycles)
				last, lastCycles = allocs, cycles
			case <-ready:
				ready = nil
				c = g.ready()
			}
			if c.unlimit {
				debug.SetMemoryLimit(math.MaxInt64)
			}
			if c.percent != 0 {
				debug.SetGCPercent(c.percent)
			}
			if c.free {
				debug.FreeOSMemory()
				last, _, lastCycles = read()
			}
		}
	}()
}

// TuneGC runs, in a crdlab process that is no component (the lab of
// 'crdlab up'), what every component runs: its boot ends when it calls
// BootDone (or at the limit), then it is busy or idle as a component is.
func TuneGC() {
	bootToReady.Store(true)
	startIdleGC()
}

// BootDoneWhenReady ends kube-apiserver's boot (BootDone) once its
// /readyz answers ok, asked through its loopback client every 10 ms, and
// after readyTimeout at the latest: until then its boot is not limited
// to bootTicks.
func BootDoneWhenReady(ctx context.Context, loopback *rest.Config) {
	client, err := kubernetes.NewForConfig(loopback)
	if err != nil {
		BootDone()
		return
	}
	bootToReady.Store(true)
	go func() {
		defer BootDone()
		_ = wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, readyTimeout, true, func(ctx context.Context) (bool, error) {
			return client.Discovery().RESTClient().Get().AbsPath("/readyz").Do(ctx).Error() == nil, nil
		})
	}()
}

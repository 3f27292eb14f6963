package kubemain

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestIdleGC: a component becomes idle after idleTicks quiet ticks (GOGC
// idleGCPercent, its free memory returned once), busy again at the first
// tick that allocates more than live/busyShare (Go's default), and idle
// again after quiet ticks, without returning the memory a second time.
func TestIdleGC(t *testing.T) {
	const live = 100 << 20
	quietTick, busyTick := uint64(live/busyShare), uint64(live/busyShare+1)
	var g idleGC
	want := func(what string, got, want gcChange) {
		t.Helper()
		if got != want {
			t.Errorf("%s: %+v, want %+v", what, got, want)
		}
	}
	// Booting: busy, nothing changes.
	for range 10 {
		want("a busy tick while booting", g.tick(busyTick, live, false), gcChange{})
	}
	for i := range idleTicks - 1 {
		want("quiet tick "+string(rune('1'+i)), g.tick(quietTick, live, false), gcChange{})
	}
	want("the last quiet tick", g.tick(quietTick, live, false), gcChange{percent: idleGCPercent, free: true})
	want("idle", g.tick(0, live, false), gcChange{})
	want("a busy tick", g.tick(busyTick, live, false), gcChange{percent: 100})
	want("busy", g.tick(busyTick, live, false), gcChange{})
	// A busy tick among quiet ones starts the count again.
	for range idleTicks - 1 {
		want("a quiet tick", g.tick(0, live, false), gcChange{})
	}
	want("a busy tick among quiet ones", g.tick(busyTick, live, false), gcChange{})
	for range idleTicks - 1 {
		want("a quiet tick", g.tick(0, live, false), gcChange{})
	}
	want("idle again", g.tick(0, live, false), gcChange{percent: idleGCPercent})
}

// TestBootGC: a booting component collects nothing until bootTicks
// ticks have passed, or it collected (its memory limit was reached), or,
// for one that says when it is ready, until it does: then Go's default,
// without the limit; said ready, it also returns its garbage to the
// system, and does so again once idle.
func TestBootGC(t *testing.T) {
	const live = 100 << 20
	end := gcChange{percent: 100, unlimit: true}
	want := func(what string, got, want gcChange) {
		t.Helper()
		if got != want {
			t.Errorf("%s: %+v, want %+v", what, got, want)
		}
	}

	g := idleGC{booting: true}
	for i := range bootTicks - 1 {
		want(fmt.Sprintf("booting, tick %d", i+1), g.tick(live, live, false), gcChange{})
	}
	want("the last tick of the boot", g.tick(live, live, false), end)
	want("busy after the boot", g.tick(live, live, false), gcChange{})
	want("said ready after the boot", g.ready(), gcChange{})

	g = idleGC{booting: true}
	want("booting", g.tick(live, live, false), gcChange{})
	want("collected: the limit was reached", g.tick(live, live, true), end)

	g = idleGC{booting: true, toReady: true}
	for range 3 * bootTicks {
		want("booting until ready", g.tick(0, live, false), gcChange{})
	}
	want("ready", g.ready(), gcChange{percent: 100, unlimit: true, free: true})
	want("said ready twice", g.ready(), gcChange{})
	for range idleTicks - 1 {
		want("a quiet tick", g.tick(0, live, false), gcChange{})
	}
	want("idle after ready", g.tick(0, live, false), gcChange{percent: idleGCPercent, free: true})

	g = idleGC{booting: true, toReady: true}
	want("collected before ready", g.tick(live, live, true), end)
}

// TestIdleGCAsDocumented: docs/boot.md states idleGC's figures as they are.
func TestIdleGCAsDocumented(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "boot.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := strings.Join(strings.Fields(string(b)), " ")
	words := map[int]string{4: "four"}
	for _, want := range []string{
		fmt.Sprintf("runs with `GOGC=%d`", idleGCPercent),
		fmt.Sprintf("after %s quiet ticks in a row (less than 1/%d of its live heap each)", words[idleTicks], busyShare),
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("docs/boot.md does not say %q", want)
		}
	}
	ticks := map[int]string{2: "after two ticks (a second)"}
	for _, want := range []string{
		fmt.Sprintf("a memory limit of %d MiB", bootMemoryLimit>>20),
		fmt.Sprintf("`GOMEMLIMIT=%d`", bootMemoryLimit),
		ticks[bootTicks],
	} {
		if want == "" || !strings.Contains(doc, want) {
			t.Errorf("docs/boot.md does not say %q (bootTicks %d, bootMemoryLimit %d)", want, bootTicks, bootMemoryLimit)
		}
	}
	if idleTick != 500*time.Millisecond || !strings.Contains(doc, "allocated every half second") {
		t.Errorf("docs/boot.md says a component looks every half second; idleTick is %s", idleTick)
	}
}

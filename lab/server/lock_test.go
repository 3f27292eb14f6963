package server

import (
	"context"
	"errors"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/crdlab/crdlab/lab/labtest/control"
)

// Issue 37: a status probe (control.Dir.Status, what 'watch crdlab status'
// runs over and over) never fails a lab that starts at that moment: 2,000
// lock acquisitions, as 2,000 starts take it, racing a tight probe loop,
// all succeed.
func TestLockWhileProbed(t *testing.T) {
	d := control.Dir(t.TempDir())
	unlock, err := Lock(d) // the lock file, as a lab that ran leaves it
	if err != nil {
		t.Fatal(err)
	}
	unlock()

	ctx, cancel := context.WithCancel(context.Background())
	var probes, seen atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			if _, err := d.Status(); err == nil {
				seen.Add(1)
			}
			probes.Add(1)
		}
	}()
	const starts = 2000
	var failed int
	for range starts {
		unlock, err := Lock(d)
		if err != nil {
			if failed == 0 {
				t.Errorf("Lock under a probe loop: %v", err)
			}
			failed++
			continue
		}
		unlock()
	}
	cancel()
	<-done
	if failed > 0 {
		t.Errorf("%d of %d starts failed under a probe loop", failed, starts)
	}
	if probes.Load() < starts {
		t.Errorf("the probe loop ran %d times during %d starts: no race", probes.Load(), starts)
	}
	t.Logf("%d probes during %d starts (%d found a lab starting)", probes.Load(), starts, seen.Load())
}

// A running lab's lock is still refused (at once when its status says it
// runs, else after lockWait: one starting), and probes do not take each
// other for a lab.
func TestLockRefusesARunningLab(t *testing.T) {
	d := control.Dir(t.TempDir())
	unlock, err := Lock(d)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := Lock(d); !errors.Is(err, control.ErrRunning) || !strings.Contains(err.Error(), "(starting)") {
		t.Errorf("Lock of a state dir a lab is starting on: %v; want ErrRunning, starting", err)
	}
	if took := time.Since(start); took > lockWait+5*time.Second {
		t.Errorf("Lock waited %s for a lab starting, more than %s", took, lockWait)
	}
	if err := os.WriteFile(d.StatusFile(), []byte(`{"pid":1234,"endpoint":"https://127.0.0.1:6443"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Lock(d); !errors.Is(err, control.ErrRunning) || !strings.Contains(err.Error(), "pid 1234") {
		t.Errorf("Lock of a state dir a lab runs on: %v; want ErrRunning naming its pid", err)
	}
	unlock()

	// A probe holding the lock (shared) is no lab to another probe.
	f, err := os.Open(d.LockFile())
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Status(); !errors.Is(err, control.ErrNotRunning) || strings.Contains(err.Error(), "starting") {
		t.Errorf("Status while another probe asks: %v; want ErrNotRunning, no lab starting", err)
	}
}

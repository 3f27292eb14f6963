package control

import (
	"context"
	"errors"
	"os/exec"
	"testing"
	"time"
)

// say writes the ready byte, as a lab's server does once it is ready.
const say = `eval "printf x >&$` + ReadyFDEnv + `"; `

// Ready returns once the lab says so, or says why not: it ended first
// (ErrExited), or ctx ended first, and then nothing is left running.
func TestStartReadyStop(t *testing.T) {
	for _, tc := range []struct {
		name, script string
		timeout      time.Duration // of Ready's ctx
		want         error         // nil: ready
	}{
		{"ready", say + "exec sleep 60", time.Minute, nil},
		{"exits first", "exit 1", time.Minute, ErrExited},
		{"too slow", "exec sleep 60", 200 * time.Millisecond, context.DeadlineExceeded},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Start(exec.Command("sh", "-c", tc.script))
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), tc.timeout)
			defer cancel()
			err = p.Ready(ctx)
			if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
				t.Fatalf("Ready: %v, want %v", err, tc.want)
			}
			if err != nil {
				select {
				case <-p.Exited(): // Ready left nothing running
				default:
					t.Fatalf("Ready failed with %v, and pid %d still runs", err, p.PID())
				}
				return
			}
			if err := p.Stop(time.Minute); err != nil {
				t.Errorf("Stop: %v", err)
			}
			select {
			case <-p.Exited():
			default:
				t.Errorf("Stop returned, and pid %d still runs", p.PID())
			}
			if err := p.Stop(time.Minute); err != nil {
				t.Errorf("Stop again: %v", err)
			}
		})
	}
}

// A lab that does not stop when asked is killed after the timeout.
func TestStopKillsAfterTimeout(t *testing.T) {
	p, err := Start(exec.Command("sh", "-c", `trap "" TERM; `+say+"while :; do sleep 1; done"))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Ready(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := p.Stop(100 * time.Millisecond); !errors.Is(err, ErrStopTimeout) {
		t.Errorf("Stop: %v, want %v", err, ErrStopTimeout)
	}
	select {
	case <-p.Exited():
	default:
		t.Errorf("pid %d still runs after Stop", p.PID())
	}
}
